"""Program sources holding only the kernels a model uses.

A kernel family's file (opencl/<family>.cl) is read as its shared text (macros, helper functions)
and its kernels, each a `__kernel void name(...)` up to the closing brace in column 0, or one line
instantiating a kernel macro (`POINTWISE_KERNEL(pointwise_conv2d, 8)`). A program is the
elementwise function codes (opencl/functions.py), common.cl and linked.cl, the shared text of each
family it draws on, then one copy of each kernel variant it needs: a kernel with the EPILOGUE
definitions of the ops fused into it (opencl/fusion.py), renamed so that variants of one kernel
live side by side.

Why: PoCL and Intel's CPU runtime compile every kernel of a program (PoCL when its binary is taken
for the cache), so a program of the whole family per fused epilogue compiled each family's unused
kernels again for every epilogue: most of a cold start (docs/benchmarks.md "Cold start").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from gpucompat.opencl import functions
from gpucompat.opencl.fusion import PLAIN

_KERNEL = re.compile(r"__kernel void (\w+)\(")
_INSTANCE = re.compile(r"[A-Z][A-Z0-9_]*\((\w+)\b.*\)\s*")  # a kernel macro's instance, one line
# An unfused kernel stores its value as it is (common.cl STORE_CELL).
PLAIN_EPILOGUE = PLAIN.source
# Every kernel is declared as already vectorized (it works on float4 cells), so Intel's compiler
# skips vectorizing it across work-items: that pass was most of its cold compile (face_landmark's
# kernels 2.9-3.1 -> 1.0-1.1 s) for a few percent of run time at most. PoCL compiles and runs
# them in the same time either way, and both compute the same numbers bit for bit
# (docs/benchmarks.md, issue #27's last round).
KERNEL = "__kernel __attribute__((vec_type_hint(float4))) void"


@dataclass(frozen=True, order=True)
class Variant:
    """One kernel of a family with the definitions of the ops fused into it ("" for none)."""

    family: str
    kernel: str
    epilogue: str = ""

    @property
    def label(self) -> str:
        """"family.kernel" (what progress and logs name)."""
        return f"{self.family}.{self.kernel}"


def kernel_source(name: str) -> str:
    """The text of opencl/<name>.cl."""
    return resources.files("gpucompat.opencl").joinpath(f"{name}.cl").read_text()


@functools.cache
def family(name: str) -> tuple[str, dict[str, str]]:
    """A family file as (its shared text, kernel name -> that kernel's text)."""
    shared: list[str] = []
    kernels: dict[str, list[str]] = {}
    inside = None
    for line in kernel_source(name).splitlines():
        if inside is not None:
            kernels[inside].append(line)
            inside = None if line == "}" else inside
        elif (m := _KERNEL.match(line)) is not None:
            inside = m.group(1)
            kernels[inside] = [line]
        elif (m := _INSTANCE.fullmatch(line)) is not None:
            kernels[m.group(1)] = [line]
        else:
            shared.append(line)
    return "\n".join(shared), {k: "\n".join(lines) for k, lines in kernels.items()}


def kernel_names(name: str) -> list[str]:
    """Every kernel of a family."""
    return list(family(name)[1])


def entry_point(variant: Variant, index: int) -> str:
    """The name of the `index`-th variant of a program (unique within it)."""
    return f"{variant.kernel}__{index}"


def source(variants: list[Variant]) -> str:
    """The program holding `variants` (in this order: `entry_point(v, i)` names the i-th), after
    the elementwise function codes (opencl/functions.py)."""
    parts = [functions.preamble(), kernel_source("common"), kernel_source("linked")]
    parts += [family(f)[0] for f in dict.fromkeys(v.family for v in variants)]
    for i, v in enumerate(variants):
        kernels = family(v.family)[1]
        if v.kernel not in kernels:
            raise KeyError(f"opencl/{v.family}.cl has no kernel {v.kernel!r}")
        text = re.sub(rf"\b{v.kernel}\b", entry_point(v, i), kernels[v.kernel], count=1)
        parts += ["#undef EPILOGUE_PARAMS\n#undef EPILOGUE", v.epilogue or PLAIN_EPILOGUE, text]
    return "\n".join(parts).replace("__kernel void", KERNEL)  # macro-made kernels included


def split(variants: list[Variant], count: int) -> list[list[Variant]]:
    """`variants` in at most `count` programs of about equal numbers of kernels, the longest texts
    dealt first, the same way every time (the program cache finds them again by their source).
    By number, not by text: compiling a kernel takes 0.1-0.4 s whatever its length on PoCL (a
    one-line macro instance expands to a blocked convolution; docs/benchmarks.md "Cold start")."""
    bins: list[list[Variant]] = [[] for _ in range(max(1, min(count, len(variants))))]
    for k, v in enumerate(sorted(variants, key=lambda v: (-len(family(v.family)[1][v.kernel]) - len(v.epilogue), v))):
        bins[k % len(bins)].append(v)
    return [sorted(b) for b in bins]
