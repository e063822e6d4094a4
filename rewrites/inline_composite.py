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

Safety: equivalent. The CPU runs a composite by running its decomposition (tflite/kernels/
stablehlo_composite.cc invokes that subgraph): the inlined ops are the ops it ran, but in the main
subgraph XNNPACK takes some of them, which rounds differently (measured: 4e-7 on TinyLlama).
"""

from __future__ import annotations

import copy

import numpy as np

from gpucompat.ir import Op, Tensor
from gpucompat.ir.signatures import composite_name, decomposition, drop_unreached
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type


class InlineComposite(Rewrite):
    name = "inline-composite"
    safety = "equivalent"
    priority = 8  # before cleanup: the inlined ops then get every other rewrite
    summary = "a STABLEHLO_COMPOSITE the GPU crashes on or rejects becomes its decomposition's ops"

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
        return Match(op, [op])

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
                record = copy.copy(t.fb)
                record.name = f"{op.outputs[0].name}/{t.name}"
                record.buffer = (graph.model.add_buffer(np.asarray(t.buffer.data, np.uint8).tobytes())
                                 if t.is_constant else 0)
                mapped[id(t)] = graph.add_tensor(record)
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
