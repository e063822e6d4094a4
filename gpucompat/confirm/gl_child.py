"""Run in a child process: apply the classic TFLite GPU delegate (OpenGL ES, `TfLiteGpuDelegateCreate`)
to each model of a job, through the plugin shim of a GL set-up directory (confirm/gl_runner.py),
and report what it replaced and, when asked, what it computed. Standard library, numpy and
ai_edge_litert only (the parent may run it with another Python than its own).

Usage: gl_child.py JOB.json. JOB: {"shim": path of libgl_shim.so, "options": the shim's options (the
delegate's hidden entry points), "models": [{"path", "precision": "fp32"|"fp16", "inputs": npz or
null, "outputs": npz or null}]}. INPUTS.npz holds `run<R>_t<T>` (input tensor T of subgraph 0 for
run R); OUTPUTS.npz receives `run<R>_t<T>` for every output tensor T.

Protocol (stderr, one line each, between the runtime's own lines), as confirm/child.py:
  @@gpucompat model <index>     before model <index> (0-based)
  @@gpucompat result <json>     {"calls": [{"replaced": n, "status": s} per Prepare], "failed": bool,
                                 "error": str|null}
The CPU side runs the runtime's builtin kernels (no XNNPACK), so every op the delegate leaves is
the reference interpreter's.
"""

import ctypes
import json
import sys

import numpy as np


def _calls(stats: str) -> list[dict]:
    """The shim's records since the last reading: one per Prepare, the nodes its Replace call took
    (0 when there was none) and the Prepare status."""
    calls: list[dict] = []
    for entry in json.loads("[" + stats.rstrip(",") + "]"):
        if "prepare_status" in entry:
            if calls:
                calls[-1]["status"] = calls[-1]["status"] or entry["prepare_status"]
        else:
            calls.append({"replaced": entry["replaced"], "status": entry["status"]})
    return calls


def main(job_path: str) -> None:
    """Delegate every model in turn; a model's failure is its result, not the end of the run."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType, load_delegate
    from child import say  # confirm/child.py, beside this script: the same protocol lines

    with open(job_path) as f:
        job = json.load(f)
    shim = ctypes.CDLL(job["shim"])
    shim.gl_shim_stats.restype = ctypes.c_char_p
    seen = 0
    for i, model in enumerate(job["models"]):
        say("model", i)
        options = {**job["options"], "precision_loss_allowed": "1" if model["precision"] == "fp16" else "0"}
        result = {"failed": False, "error": None}
        try:
            delegate = load_delegate(job["shim"], options)
            interpreter = Interpreter(model_path=model["path"], experimental_delegates=[delegate],
                                      experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        except Exception as e:  # the delegate's failures reach Python as ValueError / RuntimeError
            interpreter, result = None, {"failed": True, "error": " ".join(str(e).split())[-600:]}
        stats = shim.gl_shim_stats().decode()
        result["calls"], seen = _calls(stats[seen:]), len(stats)
        result["failed"] = result["failed"] or any(c["status"] for c in result["calls"])
        if interpreter is not None and model.get("inputs"):
            try:
                _run_all(interpreter, model["inputs"], model["outputs"])
            except Exception as e:
                result["error"] = " ".join(str(e).split())[-600:]
        say("result", result)


def _run_all(interpreter, inputs_path: str, outputs_path: str) -> None:
    interpreter.allocate_tensors()
    inputs = np.load(inputs_path)
    runs = sorted({int(k.split("_")[0][3:]) for k in inputs.files})
    outputs = {}
    for r in runs:
        for d in interpreter.get_input_details():
            interpreter.set_tensor(d["index"], np.ascontiguousarray(inputs[f"run{r}_t{d['index']}"], d["dtype"]))
        interpreter.invoke()
        for d in interpreter.get_output_details():
            outputs[f"run{r}_t{d['index']}"] = interpreter.get_tensor(d["index"]).copy()
    np.savez(outputs_path, **outputs)


if __name__ == "__main__":
    main(sys.argv[1])
