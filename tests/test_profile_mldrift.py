"""litert-mldrift on one-op models (tests/models_mldrift_ops.py), without a device: GPU ops and
rejected op types worked out by hand from the profile's rules (rules/support/profiles/litert_mldrift.py,
each fact observed on LiteRT 2.3.0); tests/test_fidelity.py confirms every row on the real
accelerator."""

import pytest

import models_mldrift_ops  # noqa: F401  (registers the builders)
from gpucompat import ir
from gpucompat.confirm.compare import predicted
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options

# name: (GPU ops in subgraph 0, rejected op types, compiles)
EXPECTED = {
    # taken although the classic delegate refuses them
    "md_atan2": (1, set(), True), "md_ceil": (1, set(), True), "md_sign": (1, set(), True),
    "md_topk": (1, set(), True), "md_reverse": (1, set(), True), "md_equal_out": (1, set(), True),
    "md_argmax": (1, set(), True),  # INT32 output: runtime INT32 tensors are accepted
    "md_add_int": (1, set(), True),
    "md_rank0": (2, set(), True),  # scalars: MUL, ADD
    "md_prelu": (4, set(), True),  # MAXIMUM, MINIMUM, MUL, ADD (no PRELU fusion for this form)
    "md_one_hot": (1, set(), True),  # axis -1
    # numpy broadcasting
    "md_bcast_numpy": (1, set(), True), "md_bcast_batch": (1, set(), True),
    # identical inputs: ADD/MUL taken, SUB/DIV/MAXIMUM refused
    "md_add_same": (1, set(), True), "md_mul_same": (1, set(), True),
    "md_sub_same": (0, {"SUB"}, True), "md_div_same": (0, {"DIV"}, True), "md_max_same": (0, {"MAXIMUM"}, True),
    # not in the table
    "md_argmin": (0, {"ARG_MIN"}, True), "md_bcast_to": (0, {"BROADCAST_TO"}, True),
    "md_stb": (0, {"SPACE_TO_BATCH_ND"}, True), "md_bts": (0, {"BATCH_TO_SPACE_ND"}, True),
    "md_gather_nd": (0, {"GATHER_ND"}, True), "md_l2norm": (0, {"L2_NORMALIZATION"}, True),
    "md_lrn": (0, {"LOCAL_RESPONSE_NORMALIZATION"}, True), "md_log_softmax": (0, {"LOG_SOFTMAX"}, True),
    # tensor types and rank
    "md_argmax64": (0, {"ARG_MAX"}, True),  # INT64 output
    "md_rank5_relu": (0, {"RELU"}, True), "md_bcast_5d": (0, {"ADD"}, True),
    # parameters
    "md_mirror_symm": (0, {"MIRROR_PAD"}, True), "md_mirror_reflect": (1, set(), True),
    "md_sslice_shrink": (0, {"STRIDED_SLICE"}, True), "md_sslice_rev": (0, {"STRIDED_SLICE"}, True),
    "md_d2s_block1": (0, {"DEPTH_TO_SPACE"}, True), "md_sub_sign_bit": (0, {"SUB"}, True),
    # custom ops: registered ones load and stay on the CPU, others stop the model loading
    "md_custom_MaxUnpooling2D": (0, {"MaxUnpooling2D"}, True),
    "md_custom_TransformLandmarks": (0, {"TransformLandmarks"}, False),
    "md_custom_MyCustomOp": (0, {"MyCustomOp"}, False),
    # a PAD whose paddings are a runtime input: its output becomes dynamic, the model fails
    "md_pad_rt": (0, set(), False),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_one_op(models, name):
    gpu, rejected, compiles = EXPECTED[name]
    ours = predicted(check_model(ir.load(models.path(name)), registry.get("litert-mldrift"), Options(backend="webgpu")))
    assert ours.compiles is compiles
    assert ours.gpu_ops.get(0, 0) == gpu
    if compiles:
        assert set(ours.rejected) == rejected
