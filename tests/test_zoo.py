"""The zoo's sample: a few real architectures (keras.applications) in every quantization mode and
each graph shape real apps have (audio front-ends, IF / WHILE subgraphs, a zero-element constant,
shape arithmetic, a placeholder stored shape, LSTM / GRU, transformer blocks), built by the zoo's
own builders (tools/zoo, cached in ~/.cache/gpucompat-zoo), compiled on LiteRT's real GPU
accelerator, and `litert-mldrift` must equal it on every point the project compares; a second
sample runs on the accelerator at fp32 and fp16 (tools/zoo/numerics.py), and `check` must flag
each model the accelerator computes wrongly.

Models the zoo's table (docs/zoo.md) lists as disagreeing are expected failures, named by their
class in tools/zoo/known.py, and strict: fixing a class makes these tests say so. The whole zoo (the
torch exports included, which need their own venv) runs from `python -m tools.zoo`, far too slowly
for CI. Needs a Vulkan device (tests/vulkan.py); building the sample takes a few minutes the first time."""

import os
import sys

import pytest

from gpucompat.confirm import runner
from vulkan import without_device

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tools.zoo import catalog, judge, known, numerics  # noqa: E402

KERAS = [f"keras_mobilenetv3small_{mode}" for mode in ("fp32", "fp16", "dynamic", "int8", "batch")] + [
    "keras_mobilenetv2_fp16", "keras_efficientnetb0_int8", "keras_resnet50_dynamic", "keras_densenet121_fp32"]
APP = ["app_stft_classifier_fp32", "app_stft_classifier_int8", "app_conv_mel_classifier_fp16",
       "app_if_classifier_fp32", "app_while_smoother_fp32", "app_zero_element_shape_fp32",
       "app_shape_arithmetic_fp32", "app_placeholder_wave_fp32", "app_lstm_fp32", "app_gru_dynamic",
       "app_encoder_fp16", "app_decoder_fp32", "app_box_decoder_batch", "app_tcn_fp32", "app_unet_int8"]
SAMPLE = KERAS + APP
pytestmark = pytest.mark.zoo


@pytest.fixture(scope="module")
def judged() -> dict:
    """Each sample model built (or read from the zoo's cache) and compiled on the accelerator."""
    entries = catalog.by_name()
    paths = [entries[name].built() for name in SAMPLE]
    try:
        return dict(zip(SAMPLE, judge.confirm(paths)))
    except runner.NoDevice as e:
        without_device(str(e))


def _expected(name: str):
    why = known.KNOWN_DISAGREEMENTS.get(name)
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=why)) if why else name


@pytest.mark.parametrize("name", [_expected(n) for n in SAMPLE])
def test_litert_mldrift_equals_the_runtime(judged, name):
    c = judged[name]
    assert c["agree"], f"{name}: {c['disagreements']}"


def test_the_sample_spans_what_the_zoo_claims(judged):
    """Guards the sample itself: four quantization modes, and the runtime really delegated (most
    models have GPU ops, some are whole, some gated or refused)."""
    entries = catalog.by_name()
    assert len({entries[n].quantization for n in SAMPLE}) >= 4
    runtime = [c["runtime"] for c in judged.values()]
    assert sum(1 for r in runtime if r["gpu_ops"]) > len(runtime) // 2
    assert any(r["fully_delegated"] for r in runtime) and any(r["rejected"] for r in runtime)


def test_fix_on_a_tcn_with_an_open_batch_refuses_to_delegate_its_wrong_pads():
    """The zoo's record of a fix run (tools/zoo/judge.fix, what docs/zoo.md lists): on a dilated
    Conv1D stack with an open batch, folding a space-to-batch or removing an EXPAND_DIMS would put a
    PAD of rank 3 on the GPU, a form LiteRT's accelerator computes wrongly, so fix refuses those steps
    (naming the form) and still applies the others. No device needed: the form is in the table."""
    rec = judge.fix(catalog.by_name()["app_tcn_batch"].built())
    assert rec["exit"] == 0 and rec["internal_error"] is None, rec["tail"]
    assert any(line.startswith("fold-space-to-batch at ") for line in rec["refused"]), rec["refused"]
    assert all("PAD [PAD rank 3 on axes 1]" in line and "computes wrongly" in line for line in rec["refused"])
    assert rec["applied"] and rec["gpu_ops"][1] >= rec["gpu_ops"][0]


# The numerics sample: fp16 weights where apps put them (a ViT's class token and positional
# embeddings, a causal mask through SELECT_V2, a transformer encoder), a dynamic-range decoder, full
# int8 (judged against its float twin), the ResNet50 whose int8 1x1 stride-2 convolutions the
# accelerator computes wrongly, and MediaPipe's pose detector as shipped (sparse weights LiteRT's
# CPU never writes for the GPU). The first two, the ResNet and the detector are wrong at fp32, as
# measured there.
NUMERICS = ["app_vit_tokens_fp16", "app_masked_attention_fp16", "app_encoder_fp16", "app_decoder_dynamic",
            "keras_mobilenetv3small_int8", "keras_resnet50_dynamic", "mediapipe_pose_detection"]
WRONG_AT_FP32 = {"app_vit_tokens_fp16", "app_masked_attention_fp16", "keras_resnet50_dynamic",
                 "mediapipe_pose_detection"}


@pytest.mark.parametrize("name", NUMERICS)
def test_check_flags_every_model_the_accelerator_computes_wrongly(name):
    """docs/zoo-numerics.md's judgement on one model: the accelerator's outputs at fp32 and fp16
    against the CPU, and `check --profile litert-mldrift` flags the model exactly when they are
    wrong (a GPU007 on a wrong model warns; silence or a false alarm fails)."""
    entries = catalog.by_name()
    e = entries[name]
    twin = str(entries[name.removesuffix(e.mode) + "fp32"].built()) if e.mode == "int8" else None
    try:
        rec = numerics.judge(str(e.built()), e.mode, twin)
    except runner.NoDevice as exc:
        without_device(str(exc))
    assert rec["fp32"]["wrong"] == (name in WRONG_AT_FP32), rec
    for precision in ("fp32", "fp16"):
        assert rec[precision]["check"] in ("agree", "warned"), (precision, rec)
