"""Fuzz campaign regressions of `gpucompat fix` and the rewrites (docs/robustness.md), each with its
minimised model built in code."""

import json
import os
import sys

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.rewrites.cleanup import Cleanup
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.fold_space_to_batch import FoldSpaceToBatch
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz import runner, seeds  # noqa: E402
from fuzz.seeds import record_of, single_graph  # noqa: E402


def _ctx() -> RewriteContext:
    return RewriteContext(registry.get("gpu-current"), Options())


def _run(*argv: str) -> runner.Outcome:
    return runner.run_one(list(argv), timeout_s=60)


@pytest.mark.parametrize("options", [None, fb.DensifyOptionsT()], ids=["missing", "another-type"])
def test_fold_space_to_batch_refuses_a_conv_without_its_options(options):
    """fuzz seed 0 cases 7558, 7995, 8832: the conv of a SPACE_TO_BATCH_ND chain with no options,
    or DensifyOptions in their place, crashed the match with AttributeError on strideH."""
    model = ir.from_bytes(seeds.dilated_conv())
    conv = next(op for op in model.ops() if op.name == "CONV_2D")
    conv.fb.builtinOptions = options
    stb = next(op for op in model.ops() if op.name == "SPACE_TO_BATCH_ND")
    assert FoldSpaceToBatch().check(stb, _ctx()) == "conv has no Conv2DOptions"


def test_fix_dry_run_on_a_conv_without_options_keeps_the_contract(tmp_path):
    """The same (case 7995) through the command: either the reader refuses the model in one line
    (exit 2), or the chain is listed as not applied, with why (exit 0); never an internal error."""
    model = ir.from_bytes(seeds.dilated_conv())
    conv = next(op for op in model.ops() if op.name == "CONV_2D")
    conv.fb.builtinOptionsType, conv.fb.builtinOptions = fb.BuiltinOptions.NONE, None
    p = tmp_path / "m.tflite"
    p.write_bytes(ir.to_bytes(model))
    out = _run("fix", str(p), "--dry-run", "--format", "json", "--unsafe-fixes")
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    if out.exit_code == 2:
        assert len(lines) == 1 and lines[0].startswith(f"gpucompat: {p}: ") and "internal error" not in lines[0], out
    else:
        assert out.exit_code == 0 and not lines, out
        refused = {(e["rewrite"], e["reason"]) for e in json.loads(out.stdout)["not_applied"]}
        assert ("fold-space-to-batch", "conv has no Conv2DOptions") in refused


def _two_transposes(outer_perm: list[int]) -> bytes:
    """x (1,2,3,4) -> TRANSPOSE [0,2,3,1] -> TRANSPOSE outer_perm -> RELU -> z."""
    b, g = single_graph()
    x = g.tensor("x", (1, 2, 3, 4))
    t = g.tensor("t", (1, 3, 4, 2))
    g.op("TRANSPOSE", [x, g.const("p1", np.array([0, 2, 3, 1], np.int32))], [t])
    y = g.tensor("y", (1, 2, 3, 4))
    g.op("TRANSPOSE", [t, g.const("p2", np.array(outer_perm, np.int32))], [y])
    z = g.tensor("z", (1, 2, 3, 4))
    g.op("RELU", [y], [z])
    g.io([x], [z])
    return b.finish()


def test_cleanup_refuses_a_transpose_whose_permutation_is_out_of_range(tmp_path):
    """fuzz seed 0 case 4222: an op turned into TRANSPOSE whose 'permutation' holds 8 for a 4-D
    input made the cancelling-pair check index past the inner permutation (IndexError)."""
    model = ir.from_bytes(_two_transposes([0, 8, 1, 2]))
    outer = model.graphs[0].ops[1]
    assert Cleanup().check(outer, _ctx()) == "permutation not constant, or not a permutation of the input's axes"
    p = tmp_path / "m.tflite"
    p.write_bytes(_two_transposes([0, 8, 1, 2]))
    out = _run("fix", str(p), "-o", str(tmp_path / "fixed.tflite"), "--no-verify", "--unsafe-fixes")
    assert out.exit_code == 0 and "internal error" not in out.stderr, out


def test_cleanup_still_cancels_a_valid_transpose_pair():
    """The guard keeps the real case: [0,2,3,1] then [0,3,1,2] is the identity, both go."""
    model = ir.from_bytes(_two_transposes([0, 3, 1, 2]))
    step = Cleanup().check(model.graphs[0].ops[1], _ctx())
    assert [op.name for op in step.ops] == ["TRANSPOSE", "TRANSPOSE"]


def test_fix_refuses_metadata_pointing_past_the_buffers(tmp_path):
    """fuzz seed 0 case 9112: a metadata entry naming buffer 11 of 6 crashed buffer compaction
    after a rewrite (KeyError: 11); it is now one line naming the entry, exit 2."""
    b, g = single_graph()
    x = g.tensor("x", (1, 4))
    r = g.tensor("r", (1, 4))
    g.op("RESHAPE", [x, g.const("shape", np.array([1, 4], np.int32))], [r])  # an identity: cleanup removes it
    y = g.tensor("y", (1, 4))
    g.op("RELU", [r], [y])
    g.io([x], [y])
    b.model.metadata = [record_of(fb.MetadataT, name="\x1b[31m{{ 7*7 }}", buffer=11)]
    p = tmp_path / "m.tflite"
    p.write_bytes(b.finish())
    n_buffers = len(ir.load(str(p)).buffers)
    out = _run("fix", str(p), "--dry-run", "--format", "json")
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.exit_code == 2 and lines == [
        f"gpucompat: {p}: metadata entry 0 refers to buffer 11, but the model has {n_buffers} buffers"], out


def test_fold_space_to_batch_refuses_a_conv_whose_output_is_not_4d():
    """fuzz seed 1 case 390: the chain's conv output declared with rank 0 crashed the walk to
    BATCH_TO_SPACE_ND (IndexError on shape[-1])."""
    model = ir.from_bytes(seeds.dilated_conv())
    conv = next(op for op in model.ops() if op.name == "CONV_2D")
    conv.outputs[0].fb.shape = []
    stb = next(op for op in model.ops() if op.name == "SPACE_TO_BATCH_ND")
    assert FoldSpaceToBatch().check(stb, _ctx()) == "conv output is not 4-D"
