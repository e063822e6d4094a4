"""Graph rewrites for `gpucompat fix`: one module per rewrite (pattern, check, rewrite, safety),
applied by rewrites/engine.py. `REWRITES` lists them in priority order; `select` picks the ones a
command line asks for."""

from __future__ import annotations

from gpucompat.errors import GpucompatError
from gpucompat.rewrites.batched_vector import BatchedVector
from gpucompat.rewrites.cleanup import Cleanup
from gpucompat.rewrites.drop_unit_axis import DropUnitAxis
from gpucompat.rewrites.engine import Rewrite
from gpucompat.rewrites.explicit_rank4 import ExplicitRank4
from gpucompat.rewrites.finite_mask_fill import FiniteMaskFill
from gpucompat.rewrites.flat_constant import FlatConstant
from gpucompat.rewrites.flatten_fc_rows import FlattenFcRows
from gpucompat.rewrites.float32_constant import Float32Constant
from gpucompat.rewrites.fold_constants import FoldConstants
from gpucompat.rewrites.fold_quantized_weights import FoldQuantizedWeights
from gpucompat.rewrites.fold_space_to_batch import FoldSpaceToBatch
from gpucompat.rewrites.fp16_safe_layernorm import Fp16SafeLayerNorm
from gpucompat.rewrites.freeze_shapes import FreezeShapes
from gpucompat.rewrites.inline_composite import InlineComposite
from gpucompat.rewrites.rgb_to_rgba import RgbToRgba
from gpucompat.rewrites.split_batch import SplitBatch
from gpucompat.rewrites.subsample_1x1_conv import Subsample1x1Conv
from gpucompat.rewrites.substitute import FAMILY as SUBSTITUTE
from gpucompat.rewrites.substitute_batch_matmul import SubstituteBatchMatmul
from gpucompat.rewrites.substitute_broadcast_to import SubstituteBroadcastTo
from gpucompat.rewrites.substitute_embedding_lookup import SubstituteEmbeddingLookup
from gpucompat.rewrites.substitute_gather import SubstituteGather
from gpucompat.rewrites.substitute_l2_normalization import SubstituteL2Normalization
from gpucompat.rewrites.substitute_mirror_pad import SubstituteMirrorPad
from gpucompat.rewrites.substitute_relu_0_to_1 import SubstituteRelu0To1
from gpucompat.rewrites.substitute_split import SubstituteSplit
from gpucompat.rewrites.substitute_transpose_conv_activation import SubstituteTransposeConvActivation
from gpucompat.rewrites.tile_batch_matmul import TileBatchMatmul

REWRITES: tuple[type[Rewrite], ...] = tuple(sorted(
    (BatchedVector, Cleanup, DropUnitAxis, ExplicitRank4, FiniteMaskFill, FlatConstant, FlattenFcRows, Float32Constant,
     FoldConstants, FoldQuantizedWeights, FoldSpaceToBatch, Fp16SafeLayerNorm, FreezeShapes, InlineComposite,
     RgbToRgba, SubstituteBatchMatmul, SubstituteBroadcastTo, SubstituteEmbeddingLookup, SubstituteGather,
     SplitBatch, SubstituteL2Normalization, SubstituteMirrorPad, SubstituteRelu0To1, SubstituteSplit,
     SubstituteTransposeConvActivation, Subsample1x1Conv, TileBatchMatmul),
    key=lambda r: (r.priority, r.name)))


def by_name() -> dict[str, type[Rewrite]]:
    """Rewrite classes by their command-line name."""
    return {r.name: r for r in REWRITES}


def _expand(names: list[str] | None) -> list[str] | None:
    """Family names ("substitute") stand for every rewrite named "substitute-...";
    unknown names are kept so that `select` can report them."""
    if names is None:
        return None
    family = [r.name for r in REWRITES if r.name.startswith(SUBSTITUTE + "-")]
    return [m for n in names for m in (family if n == SUBSTITUTE else [n])]


def select(only: list[str] | None = None, skip: list[str] | None = None, unsafe: bool = False,
           input_shapes: dict[str, tuple[int, ...]] | None = None) -> list[Rewrite]:
    """The rewrites to run: `only` (default: all), minus `skip`. Signature rewrites change the
    model's inputs or outputs, so they need `unsafe` (the --unsafe-fixes flag); shapes named by
    --input-shape (`input_shapes`) allow freeze-shapes by themselves. "substitute" names the whole
    substitution family."""
    known = by_name()
    only, skip = _expand(only), _expand(skip)
    for name in [*(only or []), *(skip or [])]:
        if name not in known:
            raise GpucompatError(f"unknown rewrite {name!r} (known: {', '.join(known)}; {SUBSTITUTE} names "
                                 f"every {SUBSTITUTE}-* rewrite)")
    chosen = [known[n] for n in known if (not only or n in only) and n not in (skip or [])]
    if input_shapes and FreezeShapes not in chosen:
        raise GpucompatError(f"--input-shape needs the {FreezeShapes.name} rewrite, which --rewrite / --skip leave out")
    allowed = {FreezeShapes} if input_shapes else set()
    if not unsafe:
        asked = [r.name for r in chosen if r.safety == "signature" and only and r.name in only and r not in allowed]
        if asked:
            raise GpucompatError(f"{', '.join(asked)} changes the model's inputs or outputs: "
                                 f"pass --unsafe-fixes to allow it")
        chosen = [r for r in chosen if r.safety != "signature" or r in allowed]
    return [r(input_shapes) if r is FreezeShapes else r() for r in chosen]
