"""The verification package, used by `gpucompat verify`, by `fix`'s numerical proof and by the
tests: one tolerance rule (tolerance.py), one input source (inputs.py), one reference runner
(interpreter.py, on the model reference_model.py says), hybrid execution (hybrid.py with
submodel.py, constant_folding.py, control_flow.py, prepared_shapes.py) on the OpenCL executor in
opencl/, and the comparison and localization (comparison.py, localize.py). docs/verify.md has the
module map."""

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
