"""Verification, used by `gpucompat verify`, by `fix`'s numerical proof and by the
tests: one tolerance rule (tolerance.py), one input source (inputs.py), one reference runner
(interpreter.py, on the model reference_model.py says), hybrid execution (hybrid.py with
submodel.py, constant_folding.py, control_flow.py, prepared_shapes.py) on the OpenCL executor in
opencl/, and the comparison and localization (comparison.py, localize.py). Who runs the test side
is a runner from the table in gpucompat/runners/ (session.py and fix_proof.py choose from it).
docs/verify.md has the module map."""
