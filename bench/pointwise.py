"""This tree's pointwise_conv2d (conv.cl) against the one of another revision (default main) on the
1x1 layer shapes of hand_landmark_full and pose_landmark_full, in one process on one device, the
device opened as the executor opens it (opencl/device.py choose: PoCL without work-group
specialization). Each round runs every shape with each kernel (each at its fastest of 3 launches,
the order rotated each round) and prints, per kernel, the median over rounds of its summed time over
the revision's in the same round, with the revision's kernel again as the control. Both kernels are
launched as opencl/ops/conv.py `_pointwise` launches this tree's (same arguments, grid and packed
filter layout), which holds for revisions since the blocked pointwise kernel; docs/benchmarks.md
"Executor speed". Random inputs and weights; asserts nothing.

    python bench/pointwise.py [--device Portable|Intel] [--rounds 20] [--precision fp32|fp16] [--against main]
                              [--kernel pointwise_conv2d_unrolled]   # the revision's kernel to time
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import numpy as np

# (pixels along each side, input channels, output channels): hand_landmark_full's then
# pose_landmark_full's most frequent 1x1 layers, repeated as often as the model has them.
SHAPES = ([(7, 192, 1152)] * 4 + [(7, 1152, 192)] * 3 + [(14, 80, 480)] * 3 + [(14, 480, 80)] * 2
          + [(14, 112, 672)] * 3 + [(14, 672, 112)] * 2 + [(28, 40, 240)] * 2 + [(56, 24, 144)] * 2
          + [(56, 144, 24)] + [(112, 16, 64)] + [(16, 528, 88)] * 2 + [(8, 864, 144)] * 3
          + [(64, 24, 144)] * 2 + [(128, 16, 64)])


def revision_program_source(revision: str) -> str:
    """A program holding every conv.cl kernel of `revision` (its common.cl and linked.cl in front,
    unfused), to time its pointwise_conv2d beside this tree's."""
    from gpucompat.opencl import functions, programs

    def show(name: str) -> str:
        return subprocess.run(["git", "show", f"{revision}:opencl/{name}.cl"], check=True, capture_output=True,
                              text=True, cwd=Path(__file__).parent).stdout

    return "\n".join([functions.preamble(), show("common"), show("linked"), programs.PLAIN_EPILOGUE, show("conv")])


def main() -> None:
    """Time the two kernels round by round and print their ratios to the revision's."""
    from gpucompat.opencl import programs
    from gpucompat.opencl.device import choose, cl
    from gpucompat.opencl.ops.conv import BLOCK_LANES, BLOCKED_GROUP, P_BLOCK

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="Portable")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--precision", default="fp32", choices=("fp32", "fp16"))
    parser.add_argument("--against", default="main", help="the git revision whose kernel is the baseline")
    parser.add_argument("--kernel", default="pointwise_conv2d", help="the revision's kernel (same arguments)")
    args = parser.parse_args()
    half = args.precision == "fp16"
    pcl, device = cl(), choose(args.device)
    options = ["-cl-std=CL1.2", *(["-DHALF_STORAGE"] if half else [])]
    tree = programs.Variant("conv", "pointwise_conv2d")
    built = [pcl.Program(device.context, revision_program_source(args.against)).build(options=options),
             pcl.Program(device.context, programs.source([tree])).build(options=options)]
    kernels = [pcl.Kernel(built[0], args.kernel), pcl.Kernel(built[1], programs.entry_point(tree, 0)),
               pcl.Kernel(built[0], args.kernel)]
    labels = [f"{args.against}'s {args.kernel}", "this tree's pointwise_conv2d", f"{args.against}'s again (control)"]
    rng, dtype, flags = np.random.default_rng(0), np.float16 if half else np.float32, pcl.mem_flags

    def buffer(size: int):
        return pcl.Buffer(device.context, flags.READ_WRITE | flags.COPY_HOST_PTR,
                          hostbuf=rng.random(size).astype(dtype))

    layers = []
    for side, cin, cout in SHAPES:
        slices_in, groups = -(-cin // 4), -(-cout // BLOCK_LANES)
        grid = (-(-side * side // P_BLOCK // BLOCKED_GROUP[0]) * BLOCKED_GROUP[0], groups, 1)
        layers.append((grid, buffer(side * side * slices_in * 4), np.array([1, side, side, cin], np.int32),
                       buffer(groups * BLOCK_LANES * slices_in * 4), buffer(groups * BLOCK_LANES),
                       buffer(side * side * -(-cout // 4) * 4), np.array([1, side, side, cout], np.int32)))
    ratios = [[] for _ in kernels]
    for r in range(args.rounds):
        totals = [0.0] * len(kernels)
        order = list(range(len(kernels)))
        order = order[r % len(order):] + order[:r % len(order)]
        for grid, *operands in layers:
            for i in order:
                times = []
                for _ in range(3):
                    event = kernels[i](device.queue, grid, BLOCKED_GROUP, *operands, np.int32(3))
                    event.wait()
                    times.append((event.profile.end - event.profile.start) * 1e-6)
                totals[i] += min(times)
        for i, total in enumerate(totals):
            ratios[i].append(total / totals[0])
    print(f"{device.name}, {args.precision}, {args.rounds} rounds over {len(SHAPES)} layers")
    for label, r in zip(labels, ratios):
        print(f"{label:45s} median ratio to the first {np.median(r):.3f}")


if __name__ == "__main__":
    main()
