"""`gpucompat verify`: TFLite's inference_diff with pass/fail thresholds, on hybrid execution
(GPU partitions on the included OpenCL executor, CPU partitions on the reference interpreter)."""

import sys as _sys
import types as _types


class _CallablePackage(_types.ModuleType):
    """Python's import system sets `gpucompat.verify` to this package as soon as one of its modules
    is imported, hiding the API function of the same name; calling the package runs that function
    (gpucompat.api.verify), so `gpucompat.verify(path)` works whatever was imported before."""

    def __call__(self, *args, **kwargs):
        from gpucompat.api import verify

        return verify(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallablePackage
