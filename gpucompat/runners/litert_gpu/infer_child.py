"""Run in a child process: inference on LiteRT's GPU accelerator, in fp32 or at its default
precision (fp16), for the LiteRT GPU runner (infer.py) and the numerics calibration grid. Standard
library, numpy and ai_edge_litert only (the parent may run it with another Python than its own).

Usage: infer_child.py MODEL INPUTS.npz OUTPUTS.npz [fp32|fp16]. INPUTS.npz holds `run<R>_t<T>`: the value of
input tensor T (the tensor's index in the main subgraph) for run R. OUTPUTS.npz receives
`run<R>_t<T>` for every output tensor T, and `status` a JSON text: {"fully_accelerated": bool,
"error": str|null}. The model is compiled on the GPU accelerator only, so nothing falls back to
the CPU unnoticed; when the accelerator does not take every op, it is compiled again with the CPU
accelerator for the rest and `fully_accelerated` is false. fp32 sets `enforce_f32` (GpuOptions),
fp16 leaves the accelerator's default.
"""

import json
import sys

import numpy as np


def main(model_path: str, inputs_path: str, outputs_path: str, precision: str = "fp32") -> None:
    """Compile once, run every input set, write the outputs (or why there are none)."""
    from ai_edge_litert.compiled_model import CompiledModel
    from ai_edge_litert.gpu_options import GpuOptions
    from ai_edge_litert.hardware_accelerator import HardwareAccelerator
    from ai_edge_litert.options import Options

    results: dict[str, np.ndarray] = {}
    status = {"fully_accelerated": False, "error": None}
    gpu = GpuOptions(enforce_f32=precision == "fp32")
    try:
        try:
            model = CompiledModel.from_file(model_path, options=Options(HardwareAccelerator.GPU, gpu_options=gpu))
            status["fully_accelerated"] = bool(model.is_fully_accelerated())
        except Exception:  # some op not accelerated: the rest on the CPU
            both = HardwareAccelerator.GPU | HardwareAccelerator.CPU
            model = CompiledModel.from_file(model_path, options=Options(both, gpu_options=gpu))
        results = _run_all(model, np.load(inputs_path), model_path)
    except Exception as e:  # the runtime's own text is the answer
        status["error"] = " ".join(str(e).split()) or type(e).__name__
    np.savez(outputs_path, status=np.array(json.dumps(status)), **results)


def _main_signature(model_path: str, listed) -> str:
    """The key of the signature that runs subgraph 0 (the tensors INPUTS.npz names are that
    subgraph's; an LLM export lists decode before prefill), else the first one `listed`."""
    import mmap

    from ai_edge_litert import schema_py_generated as fb

    with open(model_path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        record = fb.Model.GetRootAs(data, 0)
        for i in range(record.SignatureDefsLength()):
            sd = record.SignatureDefs(i)
            if sd.SubgraphIndex() == 0 and sd.SignatureKey() is not None:
                return sd.SignatureKey().decode()
    return next(iter(listed))


def _run_all(model, inputs, model_path: str) -> dict[str, np.ndarray]:
    signature = _main_signature(model_path, model.get_signature_list())
    in_details, out_details = model.get_input_tensor_details(signature), model.get_output_tensor_details(signature)
    runs = sorted({int(k.split("_")[0][3:]) for k in inputs.files})
    outputs = {}
    for r in runs:
        feeds = {}
        for name, d in in_details.items():
            buffer = model.create_input_buffer_by_name(signature, name)
            buffer.write(np.ascontiguousarray(inputs[f"run{r}_t{d['index']}"], d["dtype"]))
            feeds[name] = buffer
        fetches = {name: model.create_output_buffer_by_name(signature, name) for name in out_details}
        model.run_by_name(signature, feeds, fetches)
        for name, d in out_details.items():
            count = int(np.prod(d["shape"], dtype=np.int64))
            outputs[f"run{r}_t{d['index']}"] = np.asarray(fetches[name].read(count, d["dtype"])).reshape(d["shape"])
    return outputs


if __name__ == "__main__":
    main(*sys.argv[1:5])
