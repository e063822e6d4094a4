"""One truth per op on real converter output: the 14 MediaPipe models under every profile that
partitions (litert-mldrift, gpu-current). An op placed on the GPU is never reported as rejected
(JSON `unsupported`, a finding of error severity naming it, a what-if line), and the node subsets
and partition counts agree with where the ops are placed."""

import pytest

import real_models
from gpucompat.pipeline import Task, check_one
from gpucompat.rules.lint.calibrated_forms import WRONG_CODES


@pytest.mark.parametrize("profile", ["litert-mldrift", "gpu-current"])
@pytest.mark.parametrize("name", real_models.NAMES)
def test_an_op_on_the_gpu_is_never_rejected(real_models, name, profile):
    rec = check_one(Task(str(real_models[name]), profile, "cl", True, 1))
    s = rec["summary"]
    on_gpu = {(o["subgraph"], o["index"]) for o in rec["ops"] if o["placement"] == "gpu"}
    assert len(on_gpu) == s["ops_gpu"]
    rejected = {tuple(n) for u in rec["unsupported"] for n in u["nodes"]}
    assert not on_gpu & rejected
    # errors that keep an op off the GPU (not those about what a delegated op computes: GPU005, GPU008)
    blamed = {tuple(n) for f in rec["findings"] if f["severity"] == "error" and f["code"] not in WRONG_CODES
              for n in f["nodes"]}
    assert not on_gpu & blamed
    assert not on_gpu & {tuple(n) for w in rec["what_if"] for n in w["nodes"]}
    if s["delegation_fails"]:
        return
    delegated = {(sg["index"], n) for sg in rec["subgraphs"] for sub in sg["node_subsets"] if sub["delegated"]
                 for n in sub["nodes"]}
    assert delegated == on_gpu
    kernels = sum(1 for sg in rec["subgraphs"] for sub in sg["node_subsets"] if sub["delegated"])
    assert kernels == s["partitions_delegated"] <= s["partitions_total"]
