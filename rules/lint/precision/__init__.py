"""PREC family: where the numbers the GPU computes differ from the CPU's.

PREC403-405 judge the value ranges `check --inputs` observed (gpucompat/value_ranges.py) against
fp16's range; without inputs, PREC406-407 flag the patterns that leave it (gpucompat/fp16_patterns.py).
PREC408 reads the numerics calibration of LiteRT's real accelerator (rules/lint/calibrated_forms.py)."""
