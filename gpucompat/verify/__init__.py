"""`gpucompat verify`: TFLite's inference_diff with pass/fail thresholds, on hybrid execution
(GPU partitions on the included OpenCL executor, CPU partitions on the reference interpreter)."""
