"""LiteRT's real GPU accelerator as a runner (accelerator.py): inference in a child process on a
Vulkan device (infer.py, infer_child.py) and the first divergent op found by probing every
intermediate as an extra output (localize.py). Compiling alone, and comparing what the accelerator
delegates with the litert-mldrift prediction, is `gpucompat confirm` (gpucompat/confirm/)."""
