"""inline-composite: a STABLEHLO_COMPOSITE ==> the ops of its decomposition subgraph, in its place.

    y = STABLEHLO_COMPOSITE 'odml.rms_norm' (x, w)          y = MUL(MUL(x, RSQRT(ADD(MEAN(x*x), eps))), w)
        decomposition: subgraph 7                    ==>    (subgraph 7's ops, reading x and w, writing y)

litert-torch's generative exports (enable_hlfb, its default) wrap RMS norm, attention and group norm
in `odml.*` composites. LiteRT 2.3.0's GPU accelerator crashes (SIGSEGV) building the kernel of
odml.rms_norm, odml.scaled_dot_product_attention and odml.group_norm, so the whole model never
compiles (rules/support/profiles/litert_mldrift.py CRASHING_COMPOSITES); a profile that rejects
composites leaves each on the CPU. Inlined, the same ops are ordinary ops of the signature's
subgraph, judged and delegated like the rest (measured: litert-torch's TinyLlama goes from no
compile to 62 GPU ops in its prefill subgraph, right at fp32 and fp16). A composite the profile
takes and does not crash on is left alone. The decomposition subgraphs no longer called are removed.

The decomposition is not always what the composite stands for. The CPU interpreter's XNNPACK runs
some composites by their name and attributes (odml.scaled_dot_product_attention), and the
converter's decomposition can compute something else: litert-torch 0.10.0's Gemma (one key/value
head) RESHAPEs the keys where a TRANSPOSE belongs, 0.1 off PyTorch, while XNNPACK matches it. So
each composite is first run alone on seeded inputs as the CPU runs it and as its decomposition
computes it (builtin kernels), and left alone, with the difference, when they disagree.

Safety: equivalent. The CPU runs a composite by running its decomposition (tflite/kernels/
stablehlo_composite.cc invokes that subgraph): the inlined ops are the ops it ran, but in the main
subgraph XNNPACK takes some of them, which rounds differently (measured: 4e-7 on TinyLlama).
"""

from __future__ import annotations

import copy

import numpy as np

from gpucompat.ir import Op, Tensor, dtypes
from gpucompat.ir.signatures import composite_name, decomposition, drop_unreached
from gpucompat.ir.submodel import copy_tensor
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type


class InlineComposite(Rewrite):
    name = "inline-composite"
    safety = "equivalent"
    priority = 8  # before cleanup: the inlined ops then get every other rewrite
    summary = "a STABLEHLO_COMPOSITE the GPU crashes on or rejects becomes its decomposition's ops"

    def __init__(self) -> None:
        self.compared: dict[int, tuple[object, str | None]] = {}  # id(op record) -> (record, disagreement)

    def candidates(self, graph, ctx):
        return of_type(graph, "STABLEHLO_COMPOSITE")

    def check(self, op: Op, ctx: RewriteContext) -> Match | str | None:
        name = composite_name(op)
        if name not in ctx.profile.crashing_composites and not ctx.rejects(op):
            return f"the profile takes composite {name!r} as it is"
        index = decomposition(op)
        graphs = op.graph.model.graphs
        if index is None or not 0 <= index < len(graphs) or index == op.graph.index:
            return f"composite {name!r} names no decomposition subgraph"
        body = graphs[index]
        if (len(body.inputs), len(body.outputs)) != (len(op.inputs), len(op.outputs)):
            return (f"composite {name!r} has {len(op.inputs)} inputs and {len(op.outputs)} outputs, its "
                    f"decomposition {len(body.inputs)} and {len(body.outputs)}")
        if any(t.producer is None for t in body.outputs):
            return f"composite {name!r}'s decomposition writes an output no op of it produces"
        return self._compared(op, name) or Match(op, [op])

    def _compared(self, op: Op, name: str) -> str | None:
        """_disagreement, once per composite: the engine asks again after every step it applies."""
        if self.compared.get(id(op.fb), (None,))[0] is not op.fb:
            self.compared[id(op.fb)] = (op.fb, _disagreement(op, name))
        return self.compared[id(op.fb)][1]

    def rewrite(self, match: Match, ctx: RewriteContext) -> None:
        op = match.anchor
        graph, body = op.graph, op.graph.model.graphs[decomposition(op)]
        mapped: dict[int, Tensor] = {id(a): b for a, b in zip(body.inputs, op.inputs)}
        mapped.update({id(a): b for a, b in zip(body.outputs, op.outputs)})

        def own(t: Tensor | None) -> Tensor | None:
            """The graph's tensor for the decomposition's `t` (a copy, constants with their data)."""
            if t is None:
                return None
            if id(t) not in mapped:
                mapped[id(t)] = copy_tensor(t, graph, own, f"{op.outputs[0].name}/{t.name}")
            return mapped[id(t)]

        inlined = []
        for inner in body.ops:
            record = copy.copy(inner.fb)
            record.builtinOptions = copy.deepcopy(inner.fb.builtinOptions)
            record.builtinOptions2 = copy.deepcopy(getattr(inner.fb, "builtinOptions2", None))
            inlined.append(Op(record, graph, inner.code, [own(t) for t in inner.inputs],
                              [own(t) for t in inner.outputs], [own(t) for t in inner.intermediates]))
        graph.replace_op(op, inlined)
        drop_unreached(graph.model)


TOLERANCE = 1e-3  # of the output's largest magnitude: far above float rounding, far below a wrong graph


def _disagreement(op: Op, name: str) -> str | None:
    """Why the composite's decomposition does not compute what the CPU computes for the composite
    (XNNPACK's kernel for its name, where it has one): both run on one seeded input set; None when
    they agree within TOLERANCE."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    from gpucompat.ir.submodel import cut
    from gpucompat.native_output import native_stderr_silenced

    runtime = [t for t in op.present_inputs if not t.is_constant]
    data = cut([op], runtime, op.outputs)
    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal(t.shape).astype(np.float32) if t.dtype == dtypes.FLOAT32
             else np.zeros(t.shape, dtypes.numpy_dtype(t.dtype) or np.float32) for t in runtime]
    results = []
    try:
        for resolver in (OpResolverType.AUTO, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES):
            with native_stderr_silenced():
                it = Interpreter(model_content=data, experimental_op_resolver_type=resolver)
                it.allocate_tensors()
                for d, value in zip(it.get_input_details(), feeds):
                    it.set_tensor(d["index"], value)
                it.invoke()
            results.append([it.get_tensor(d["index"]) for d in it.get_output_details()])
    except (ValueError, RuntimeError) as e:
        return f"composite {name!r} cannot be run alone to compare it with its decomposition ({e})"
    for kernel, parts in zip(*results):
        scale = float(np.abs(kernel).max()) if kernel.size else 0.0
        diff = float(np.abs(kernel.astype(np.float64) - parts).max()) if kernel.size else 0.0
        if not np.isfinite(diff) or diff > TOLERANCE * max(scale, 1e-6):
            return (f"composite {name!r}: its decomposition computes something else than the CPU's own kernel for it "
                    f"(max difference {diff:.3g} of {scale:.3g} on seeded inputs): inlining it would change the model")
    return None
