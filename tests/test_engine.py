"""Engine behaviour that spans profiles: backend fallback, the 2019 message, FP16 under prefix mode."""

from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options


def result(models, name, profile="gpu-current", **options):
    return check_model(ir.load(models.path(name)), registry.get(profile), Options(**options))


def test_missing_opencl_kernel_falls_back_to_opengl(models):
    # FLOOR* have OpenGL shaders but no OpenCL selector: the CL build fails, the delegate logs
    # "Falling back to OpenGL" and every op builds there.
    r = result(models, "ops_floor", backend="cl")
    assert r.backend_used == "gl" and not r.delegation_fails and r.fully_delegated


def test_fallback_fails_when_opengl_lacks_another_op(models):
    # FLOOR fails on OpenCL, TRANSPOSE has no OpenGL kernel: neither backend builds the partition.
    r = result(models, "floor_transpose", backend="cl")
    assert r.delegation_fails and r.ops_gpu == 0
    assert {o.op for o in r.delegation_failure} == {"FLOOR"}


def test_litert_has_no_backend_fallback(models):
    assert registry.get("litert-mldrift").fallback_backend is None


def test_2019_docs_profile_prints_the_op_code(models):
    r = result(models, "gather_nd_island", profile="gpu-2019-docs")
    gather = next(o for o in r.ops if o.op == "GATHER_ND")
    assert gather.verdict.runtime_message == "op code #107 cannot be handled by this delegate."


def test_fp16_dequantize_does_not_end_the_2019_prefix(models):
    # fp16_cnn: constant fp16 weights read through DEQUANTIZE nodes that come first in the plan.
    # The 2019 delegate removed them from the graph, so the prefix runs through the convolutions and
    # stops at MEAN, which the 2019 code had no parser for.
    m = ir.load(models.path("fp16_cnn"))
    names = [op.name for op in m.graphs[0].ops]
    assert names[:5] == ["DEQUANTIZE"] * 3 + ["CONV_2D"] * 2 and names[5] == "MEAN"
    r = check_model(m, registry.get("gpu-2019"), Options())
    assert [o.placement for o in r.ops[:6]] == ["gpu"] * 5 + ["cpu"]


def test_whole_model_failure_reaches_the_user(models):
    # A custom op LiteRT does not register: the model cannot even be loaded with the accelerator.
    import json

    from cli import gpucompat

    r = gpucompat("check", models.path("custom_op_cnn"), "--profile", "litert-mldrift", "--format", "json")
    summary = json.loads(r.stdout)["models"][0]["summary"]
    assert r.returncode == 1 and summary["ops_gpu"] == 0
    assert "MyCustomOp" in summary["failure"] and summary["delegation_fails"]
    text = gpucompat("check", models.path("custom_op_cnn"), "--profile", "litert-mldrift").stdout
    assert "NO GPU AT ALL" in text and "MyCustomOp" in text
    # and nothing on the page says otherwise: no subset delegated, no op whose acceptance would help
    assert " delegated" not in text.replace("0 delegated", "") and "chosen, but the model never loads" in text
    assert "what to change first" not in text and json.loads(r.stdout)["models"][0]["what_if"] == []


def test_backend_fallback_is_shown(models):
    import json

    from cli import gpucompat

    r = gpucompat("check", models.path("ops_floor"), "--format", "json")
    assert json.loads(r.stdout)["models"][0]["summary"]["backend_used"] == "gl"
    assert "falls back to gl" in gpucompat("check", models.path("ops_floor")).stdout
