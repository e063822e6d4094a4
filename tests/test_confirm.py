"""`gpucompat confirm`: reading the runtime's log lines (captured from ai-edge-litert 2.3.0 on
lavapipe), the child-process runner's handling of crashes, hangs and a missing Vulkan device,
and the comparison with the prediction. Runtime runs on a real device live in test_fidelity.py."""

import json
import os
import stat
import sys

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.confirm import compare, logs, runner
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options

# rw_while: subgraph 0 WHILE | TANH, cond LESS, body ADD, MUL, ADD (the body is prepared again
# while the loop runs its first iteration at allocation, and logs its line again)
WHILE_LOG = """\
INFO: [delegate_webgpu.cc:363] Created a WebGPU environment.
I0000 00:00:1795241462.866357   17034 environment.cc:532] Selected adapter: llvmpipe (LLVM 15.0.6, 256 bits), arch=software, vendor=mesa, backend=Vulkan, adapterType=CPU / Software
ERROR: Following operations are not supported by GPU delegate:
WHILE: Operation is not supported.
1 operations will run on the GPU, and the remaining 1 operations will run on the CPU.
VERBOSE: Replacing 1 out of 2 node(s) with delegate (LITERT_WEBGPU) node, yielding 2 partitions for subgraph 0 (main).
I0000 00:00:1795241462.878597   17034 delegate_kernel.cc:984] Initializing WebGPU-based API from graph.
VERBOSE: Replacing 1 out of 1 node(s) with delegate (LITERT_WEBGPU) node, yielding 1 partitions for subgraph 1 (while_cond).
VERBOSE: Replacing 3 out of 3 node(s) with delegate (LITERT_WEBGPU) node, yielding 1 partitions for subgraph 2 (while_body).
INFO: Created TensorFlow Lite XNNPACK delegate for CPU.
VERBOSE: Replacing 3 out of 3 node(s) with delegate (LITERT_WEBGPU) node, yielding 1 partitions for subgraph 2 (while_body).
"""

# rw_fp16_partial: an empty reason, then XNNPACK takes 4 of the 6 nodes left
FP16_PARTIAL_LOG = """\
ERROR: Following operations are not supported by GPU delegate:
DEQUANTIZE: 
GATHER_ND: Operation is not supported.
2 operations will run on the GPU, and the remaining 5 operations will run on the CPU.
VERBOSE: Replacing 2 out of 7 node(s) with delegate (LITERT_WEBGPU) node, yielding 2 partitions for subgraph 0 (main).
INFO: Created TensorFlow Lite XNNPACK delegate for CPU.
VERBOSE: Replacing 4 out of 6 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 2 partitions for subgraph 0 (main).
"""

CUSTOM_LISTED_LOG = """\
ERROR: Following operations are not supported by GPU delegate:
CUSTOM Resampler: Expected 2 runtime input tensor(s), but node has 1 runtime input(s).
No operations will run on the GPU, and all 1 operations will run on the CPU.
INFO: Created TensorFlow Lite XNNPACK delegate for CPU.
"""

FAILURES = {
    "gate": ("WARNING: Attempting to use a delegate that only supports static-sized tensors with a graph that "
             "has dynamic-sized tensors (tensor#-1 is a dynamic-sized tensor).\n"),
    "custom": ("ERROR: Encountered unresolved custom op: MyCustomOp.\n"
               "See instructions: https://www.tensorflow.org/lite/guide/ops_custom \n"
               "ERROR: Node number 1 (MyCustomOp) failed to prepare.\n"),
    "prepare": ("ERROR: If half_pixel_centers is True, align_corners must be False.\n"
                "ERROR: Node number 0 (RESIZE_BILINEAR) failed to prepare.\n"),
    "check": ("VERBOSE: Replacing 1 out of 2 node(s) with delegate (LITERT_WEBGPU) node, yielding 2 partitions for subgraph 0 (main).\n"
              "F0000 00:00:1795241547.537721   21402 model_builder_helper.cc:155] Check failed: params->scale->size == 1 (64 vs. 1) \n"),
    # a kernel that gives no reason: the glog line before it is not one
    "silent_prepare": ("I0000 00:00:1795689304.065336   15939 delegate_webgpu.cc:759] # of threads to compile kernels = 0\n"
                       "ERROR: Node number 2 (CONV_2D) failed to prepare.\n"),
    "kernel": ("VERBOSE: Replacing 3 out of 3 node(s) with delegate (LITERT_WEBGPU) node, yielding 1 partitions for subgraph 0 (main).\n"
               "E0000 00:00:1795689505.087536   26487 delegate_webgpu.cc:478] Failed to create "
               "litert::ml_drift::DelegateKernelLiteRt: INVALID_ARGUMENT: Unable to parse bc coord for BATCH axis. "
               "Layout is bhwc, args are cond_x, cond_y, cond_z.; selector object=cond_tensor\n"
               "ERROR: Failed to initialize kernel.\n"
               "ERROR: Restored original execution plan after delegate application failure.\n"),
}

NO_DEVICE_LOG = """\
INFO: [delegate_webgpu.cc:342] Create WebGPU environment (use_low_power=0, enable_host_mapped_pointer=1)
Warning: Vulkan shaderUniform*ArrayDynamicIndexing required.
ERROR: [delegate_webgpu.cc:359] Failed to initialize WebGPU environment: INTERNAL: No adapters found
"""


def test_first_gpu_line_of_each_subgraph_counts():
    f = logs.parse(WHILE_LOG.splitlines())
    assert f.gpu_ops == {0: 1, 1: 1, 2: 3} and f.ops_seen == {0: 2, 1: 1, 2: 3}
    assert f.rejected == {"WHILE": ["Operation is not supported."]}
    assert f.delegate == "LITERT_WEBGPU" and f.adapter.startswith("llvmpipe")
    assert not f.dynamic_gate and f.no_device is None


def test_xnnpack_lines_are_not_gpu_ops_and_empty_reasons_are_kept():
    f = logs.parse(FP16_PARTIAL_LOG.splitlines())
    assert f.gpu_ops == {0: 2} and f.cpu_delegate_ops == {0: 4}
    assert f.rejected == {"DEQUANTIZE": [""], "GATHER_ND": ["Operation is not supported."]}


def test_custom_ops_are_listed_by_their_code():
    f = logs.parse(CUSTOM_LISTED_LOG.splitlines())
    assert f.rejected == {"Resampler": ["Expected 2 runtime input tensor(s), but node has 1 runtime input(s)."]}
    assert f.gpu_ops == {}


def test_failures_are_read():
    gate = logs.parse(FAILURES["gate"].splitlines())
    assert gate.dynamic_gate and gate.dynamic_tensor == -1
    custom = logs.parse(FAILURES["custom"].splitlines())
    assert custom.unresolved_custom_ops == ["MyCustomOp"]
    prepare = logs.parse(FAILURES["prepare"].splitlines())
    assert prepare.prepare_failure == ("Node number 0 (RESIZE_BILINEAR) failed to prepare. "
                                       "If half_pixel_centers is True, align_corners must be False.")
    check = logs.parse(FAILURES["check"].splitlines())
    assert check.check_failure == "params->scale->size == 1 (64 vs. 1)" and check.gpu_ops == {0: 1}
    assert logs.parse(FAILURES["silent_prepare"].splitlines()).prepare_failure == \
        "Node number 2 (CONV_2D) failed to prepare."
    kernel = logs.parse(FAILURES["kernel"].splitlines())
    assert kernel.kernel_failure.startswith("INVALID_ARGUMENT: Unable to parse bc coord for BATCH axis.")
    assert "cond_tensor" in kernel.kernel_failure and kernel.gpu_ops == {0: 3}


def test_no_adapter_is_read():
    assert "No adapters found" in logs.parse(NO_DEVICE_LOG.splitlines()).no_device


# A stand-in for the child's Python: it runs no runtime, it follows the protocol of
# gpucompat/confirm/child.py and behaves as each model's name says.
FAKE_CHILD = r"""#!/bin/sh
shift  # the child script
say() { printf '%s\n' "$1" >&2; }
say '@@gpucompat verbose {"ok": true, "symbols": ["x"], "litert": "fake"}'
i=0
for m in "$@"; do
  say "@@gpucompat model $i"
  case "$m" in
    *hang*) sleep 30 ;;
    *crash*) say 'F0000 builder.cc:1] Check failed: x == 1'; kill -ABRT $$ ;;
    *fail*) say 'ERROR: Node number 0 (ADD) failed to prepare.'
            say '@@gpucompat result {"compiled": false, "error": "Failed to modify graph with delegate", "fully_accelerated": null}' ;;
    *) say 'VERBOSE: Replacing 1 out of 1 node(s) with delegate (LITERT_WEBGPU) node, yielding 1 partitions for subgraph 0 (main).'
       say '@@gpucompat result {"compiled": true, "error": null, "fully_accelerated": true}' ;;
  esac
  i=$((i+1))
done
"""


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "python"
    path.write_text(FAKE_CHILD)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return runner.Launcher(str(path), dict(os.environ), "fake")


def test_a_crash_ends_its_child_and_the_rest_go_to_a_fresh_one(fake):
    reports = runner.compile_models(["a", "crash", "b", "fail", "c"], fake)
    assert [r.path for r in reports] == ["a", "crash", "b", "fail", "c"]
    assert [r.compiled for r in reports] == [True, False, True, False, True]
    crash = reports[1]
    assert crash.crashed and not crash.timed_out and "Check failed: x == 1" in crash.error
    assert reports[3].facts.prepare_failure.startswith("Node number 0 (ADD)") and not reports[3].crashed
    assert all(r.litert == "fake" for r in reports)


def test_a_hang_is_given_up_after_its_time_limit(fake):
    reports = runner.compile_models(["hang", "a"], fake, per_model_timeout=1.0)
    assert reports[0].timed_out and not reports[0].compiled and "1 s" in reports[0].error
    assert reports[1].compiled and reports[1].facts.gpu_ops == {0: 1}


def no_device_env(tmp_path) -> str:
    """A set-up directory whose env.sh names a Vulkan driver that does not exist."""
    (tmp_path / "env.sh").write_text(f"export VK_ICD_FILENAMES={tmp_path}/none.json VK_DRIVER_FILES={tmp_path}/none.json\n")
    return str(tmp_path)


def test_no_vulkan_device_is_one_line_and_exit_2(models, tmp_path):
    r = gpucompat("confirm", models.path("conv_relu"), "--vulkan-dir", no_device_env(tmp_path))
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    assert "no Vulkan device" in r.stderr and "lavapipe" in r.stderr and "Traceback" not in r.stderr


def test_a_missing_set_up_directory_is_one_line_and_exit_2(models, tmp_path):
    r = gpucompat("confirm", models.path("conv_relu"), "--vulkan-dir", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "env.sh: no such file" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_bad_model_stops_before_the_runtime_starts(tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a model")
    r = gpucompat("confirm", str(bad), "--vulkan-dir", no_device_env(tmp_path))
    assert r.returncode == 2 and "bad.tflite" in r.stderr and "Vulkan" not in r.stderr


def report_from(log: str, compiled: bool = True, path: str = "m") -> runner.RuntimeReport:
    lines = log.splitlines()
    return runner.RuntimeReport(path, compiled, None if compiled else "Failed to modify graph with delegate",
                                facts=logs.parse(lines), log=lines)


def test_agreement_on_a_control_flow_model(models):
    model = ir.load(models.path("rw_while"))
    c = compare.confirmation(report_from(WHILE_LOG), check_model(model, registry.get("litert-mldrift"), Options()),
                             [len(g.ops) for g in model.graphs])
    assert c.disagreements == []
    assert c.observed.gpu_ops == {0: 1, 1: 1, 2: 3} and not c.observed.fully_delegated


def test_every_kind_of_disagreement_is_named(models):
    """rw_float_cnn (3 ops, predicted all on the GPU) against a made-up runtime that rejects MEAN,
    then against one that gates the model."""
    model = ir.load(models.path("rw_float_cnn"))
    ours = check_model(model, registry.get("litert-mldrift"), Options())
    partial = ("ERROR: Following operations are not supported by GPU delegate:\nMEAN: nope\n"
               "VERBOSE: Replacing 2 out of 3 node(s) with delegate (LITERT_WEBGPU) node, yielding 2 partitions for subgraph 0 (main).\n")
    c = compare.confirmation(report_from(partial), ours, [3])
    assert c.disagreements == ["GPU ops per subgraph: runtime {0: 2}, predicted {0: 3}",
                               "partitions per subgraph: runtime {0: 2}, predicted {0: 1}",
                               "fully delegated: runtime no, predicted yes",
                               "rejected op types: only the runtime rejects MEAN"]
    gated = compare.confirmation(report_from(FAILURES["gate"], compiled=False), ours, [3])
    assert gated.disagreements == ["compiles: runtime no, predicted yes",
                                   "GPU ops per subgraph: runtime {}, predicted {0: 3}",
                                   "partitions per subgraph: runtime {}, predicted {0: 1}",
                                   "fully delegated: runtime no, predicted yes",
                                   "dynamic-tensor gate: runtime yes, predicted no"]
    record = compare.record(gated)
    assert record["runtime"]["dynamic_tensor"] == -1 and record["agree"] is False
    json.dumps(record)  # plain JSON


def test_the_fp16_helper_subgraph_lists_nothing(models):
    """rw_fp16_cnn: 3 fp16 DEQUANTIZE + 3 ops all taken by the FP16 helper: the runtime prints no
    list of unsupported ops, so the prediction must not list DEQUANTIZE either."""
    model = ir.load(models.path("rw_fp16_cnn"))
    ours = compare.predicted(check_model(model, registry.get("litert-mldrift"), Options()))
    assert ours.rejected == {} and ours.gpu_ops == {0: 6} and ours.fully_delegated


def test_check_confirm_wants_the_terminal(models):
    r = gpucompat("check", models.path("conv_relu"), "--confirm", "--format", "json")
    assert r.returncode == 2 and r.stdout == "" and "gpucompat confirm --format json" in r.stderr


def test_no_stderr_line_is_lost_while_the_child_is_watched():
    # The watcher reads the child's stderr while it writes; with a shared file offset some lines
    # were written over (the fidelity suite saw "reported models out of order" now and then).
    count = 1_000_000  # a few seconds of writing: the old shared offset lost some hundred lines
    code = f"import os\nfor i in range({count}): os.write(2, b'{runner.child.MARK} model %d\\n' % i)"
    proc, lines, timed_out = runner.run_watched([sys.executable, "-c", code], None, per_model_timeout=60)
    assert proc.returncode == 0 and not timed_out
    assert lines == [f"{runner.child.MARK} model {i}" for i in range(count)]


def test_confirm_names_what_compiling_cannot_show_wrong_and_the_outputs_it_spoils(fake, tmp_path):
    """ADD of an [85, 16] tensor and a constant [1, 85, 16], a form the accelerator computes
    wrongly: compiling says nothing of it, so confirm names the op and the graph output its GPU
    partition reaches, in the terminal and in JSON."""
    from gpucompat.output import confirm_view
    from irbuild import one_op

    path = tmp_path / "wrong_add.tflite"
    path.write_bytes(one_op("ADD", [85, 16], np.ones([1, 85, 16], np.float32)))
    (c,) = compare.confirm([str(path)], fake)
    output = ir.load(str(path)).graphs[0].outputs[0].name
    assert [(u.op, u.status, u.suspect) for u in c.unproven] == [("ADD", "wrong", (output,))]
    assert compare.record(c)["unproven"][0]["suspect_outputs"] == [output]
    text = confirm_view.terminal([c])
    assert "1 op is known wrong on the real GPU: op#0 ADD" in text and repr(output) in text


def test_a_crashed_compile_lists_rejected_op_types_without_comparing_them(fake, tmp_path):
    """The runtime's list of rejected op types stops where it crashed: when a model does not
    compile on both sides the row is marked "not compared", never left to look like agreement."""
    from gpucompat.output import confirm_view
    from test_composites import composite_model

    path = tmp_path / "crash_composite.tflite"
    path.write_bytes(composite_model("odml.rms_norm"))
    (c,) = compare.confirm([str(path)], fake)
    assert not c.observed.compiles and not c.predicted.compiles and not c.disagreements
    row = next(line for line in confirm_view.terminal([c]).splitlines() if line.startswith("rejected op types"))
    assert "STABLEHLO_COMPOSITE" in row and row.rstrip().endswith("not compared")
