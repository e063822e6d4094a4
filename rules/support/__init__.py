"""Delegate support: whether the GPU delegate takes an op. Profiles (one delegate generation's op
table, caps and types), the per-op predicates, the judging engine, verdicts, op forms and the
numerics calibration of LiteRT's real accelerator. The findings built on them are in rules/lint/."""
