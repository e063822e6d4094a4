"""Pointwise kernel variants side by side: conv.cl's pointwise_conv2d and pointwise_conv2d_unrolled
(and pointwise_conv2d again, as the control) on the 1x1 layer shapes of hand_landmark_full and
pose_landmark_full, in one process on one device. Each round runs every shape with every variant
(each at its fastest of 3 launches, the variants' order rotated each round) and prints, per variant,
the median over rounds of its summed time over pointwise_conv2d's in the same round: the figure
that picks which variant a device runs (opencl/ops/conv.py `_pointwise`; docs/benchmarks.md
"Executor speed"). Random inputs and weights; asserts nothing.

    python bench/pointwise.py [--device Portable|Intel] [--rounds 20] [--precision fp32|fp16]
"""

from __future__ import annotations

import argparse

import numpy as np

# (pixels along each side, input channels, output channels): hand_landmark_full's then
# pose_landmark_full's most frequent 1x1 layers, repeated as often as the model has them.
SHAPES = ([(7, 192, 1152)] * 4 + [(7, 1152, 192)] * 3 + [(14, 80, 480)] * 3 + [(14, 480, 80)] * 2
          + [(14, 112, 672)] * 3 + [(14, 672, 112)] * 2 + [(28, 40, 240)] * 2 + [(56, 24, 144)] * 2
          + [(56, 144, 24)] + [(112, 16, 64)] + [(16, 528, 88)] * 2 + [(8, 864, 144)] * 3
          + [(64, 24, 144)] * 2 + [(128, 16, 64)])
VARIANTS = ("pointwise_conv2d", "pointwise_conv2d_unrolled", "pointwise_conv2d")
P_BLOCK, LANES, GROUP = 8, 16, 8  # opencl/ops/conv.py P_BLOCK, BLOCK_LANES, BLOCKED_GROUP


def device(name: str):
    """The first OpenCL device whose platform name contains `name` (Intel's CPU runtime made
    visible as the executor makes it)."""
    import pyopencl as cl

    from gpucompat.opencl.intel_runtime import registered

    with registered():
        platforms = cl.get_platforms()
    return next(p for p in platforms if name in p.name).get_devices()[0]


def main() -> None:
    """Time the variants round by round and print their ratios to pointwise_conv2d."""
    import pyopencl as cl

    from gpucompat.opencl import programs

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="Portable")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--precision", default="fp32", choices=("fp32", "fp16"))
    args = parser.parse_args()
    half = args.precision == "fp16"
    dev = device(args.device)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    variants = [programs.Variant("conv", k) for k in VARIANTS]
    program = cl.Program(ctx, programs.source(variants)).build(
        options=["-cl-std=CL1.2", *(["-DHALF_STORAGE"] if half else [])])
    kernels = [cl.Kernel(program, programs.entry_point(v, i)) for i, v in enumerate(variants)]
    rng, dtype, flags = np.random.default_rng(0), np.float16 if half else np.float32, cl.mem_flags

    def buffer(size: int):
        return cl.Buffer(ctx, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=rng.random(size).astype(dtype))

    layers = []
    for side, cin, cout in SHAPES:
        slices_in, groups = -(-cin // 4), -(-cout // LANES)
        grid = (-(-side * side // P_BLOCK // GROUP) * GROUP, groups, 1)
        layers.append((grid, buffer(side * side * slices_in * 4), np.array([1, side, side, cin], np.int32),
                       buffer(groups * LANES * slices_in * 4), buffer(groups * LANES),
                       buffer(side * side * -(-cout // 4) * 4), np.array([1, side, side, cout], np.int32)))
    ratios = [[] for _ in variants]
    for r in range(args.rounds):
        totals = [0.0] * len(variants)
        order = list(range(len(variants)))
        order = order[r % len(order):] + order[:r % len(order)]
        for grid, *operands in layers:
            for i in order:
                times = []
                for _ in range(3):
                    event = kernels[i](queue, grid, (GROUP, 1, 1), *operands, np.int32(3))
                    event.wait()
                    times.append((event.profile.end - event.profile.start) * 1e-6)
                totals[i] += min(times)
        for i, total in enumerate(totals):
            ratios[i].append(total / totals[0])
    print(f"{dev.platform.name} / {dev.name}, {args.precision}, {args.rounds} rounds over {len(SHAPES)} layers")
    for i, v in enumerate(variants):
        label = v.kernel + (" (control)" if i == len(variants) - 1 else "")
        print(f"{label:40s} median ratio to pointwise_conv2d {np.median(ratios[i]):.3f}")


if __name__ == "__main__":
    main()
