"""Op lowerings: one module per kernel family, each registering its lowerings in registry.py
(opencl/lowering.py imports them all)."""
