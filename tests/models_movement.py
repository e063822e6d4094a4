"""Data-movement grids for the executor (tests/test_executor_movement.py): every op the gpu-current
and litert-mldrift profiles delegate that only moves data (REVERSE_V2: litert-mldrift only), over
channel counts 1-9 and 16, odd spatial sizes, 1-D to 4-D tensors, every padding mode, slice masks
and negative strides. Outputs are exact copies of input elements (or PADV2's fill), so any
difference from the reference is a wrong position.
"""

from modelgen import builder, convert_fn, tf
from models_kernels import CHANNELS, _named

H, W = 5, 7


def _four_d(t, x, z, y3, c: int) -> dict:
    """The 4-D grid for one channel count: x and z [1, 5, 7, c], y3 [1, 5, 7, 3]."""
    out = {
        "cat_c": t.concat([x, z], 3), "cat_c3": t.concat([x, y3, z], 3), "cat_w": t.concat([x, z], 2),
        "cat_h": t.concat([x, z], 1), "cat_b": t.concat([x, z], 0),
        "rs_4d": t.reshape(x, [1, W, H, c]), "rs_2d": t.reshape(x, [H, W * c]), "rs_3d": t.reshape(x, [1, H * W, c]),
        "rs_1d": t.reshape(x, [H * W * c]),
        "sl_hw": t.slice(x, [0, 1, 2, 0], [1, 3, -1, c]),
        "ss_step": x[:, 1:5:2, ::3, :], "ss_rev": x[:, ::-1, 5:0:-2, ::-1], "ss_neg": x[:, -4:, :-2, c // 2:],
        "ss_shrink_h": x[:, 2], "ss_shrink_w": x[:, :, 3], "ss_shrink_c": x[:, :, :, c - 1],
        "ss_c2": x[:, 1:4, ::2, ::2], "ss_clamp": x[:, 1:99, -99:4, :],
        "pad_hw": t.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]]), "pad_c": t.pad(x, [[0, 0], [0, 0], [0, 0], [1, 2]]),
        "pad_c4": t.pad(x, [[0, 0], [1, 0], [0, 0], [4, 1]]), "pad_b": t.pad(x, [[1, 0], [0, 0], [0, 0], [0, 0]]),
        "padv2": t.pad(x, [[0, 0], [2, 1], [1, 2], [0, 3]], constant_values=1.5),
        "mirror_reflect": t.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]], mode="REFLECT"),
        "mirror_symmetric": t.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="SYMMETRIC"),
        "mirror_symmetric_c": t.pad(x, [[0, 0], [0, 0], [0, 0], [1, 1]], mode="SYMMETRIC"),
        "tile_wc": t.tile(x, [1, 1, 2, 2]), "tile_bh": t.tile(x, [2, 3, 1, 1]),
        "d2s": t.nn.depth_to_space(t.concat([x, z, z, x], 3), 2), "s2d2": t.nn.space_to_depth(x[:, :4, :6], 2),
        "s2d3": t.nn.space_to_depth(x[:, :3, :6], 3),
        "gather_c": t.gather(x, [c - 1, 0, c // 2], axis=3), "gather_h": t.gather(x, [4, 0, 2, 2], axis=1),
        "gather_w": t.gather(x, [6, 1], axis=2), "gather_scalar": t.gather(x, 3, axis=2),
        "split_w": t.split(x, [2, 5], axis=2)[1], "split_h": t.split(x[:, :4], 2, axis=1)[1],
        "unpack_w": t.unstack(x, axis=2)[5], "unpack_h": t.unstack(x, axis=1)[0],
        "pack_1": t.stack([x[:, 0], z[:, 1]], axis=1), "pack_3": t.stack([x[:, 0], z[:, 1]], axis=3),
        "pack_0": t.stack([x[:, 0], z[:, 1]], axis=0),
        "reverse_h": t.reverse(x, [1]), "reverse_wc": t.reverse(x, [2, -1]), "reverse_bhw": t.reverse(x, [0, 1, 2]),
    }
    for i, perm in enumerate(([0, 2, 1, 3], [0, 3, 1, 2], [0, 2, 3, 1], [3, 1, 2, 0], [0, 1, 3, 2], [2, 3, 0, 1])):
        out[f"tr{i}"] = t.transpose(x, perm)
    if c > 1:
        out["sl_c"] = t.slice(x, [0, 0, 1, 1], [1, -1, 4, c - 1])
        out["split_c"] = t.split(x, [1, c - 1], axis=3)[1]
        out["mirror_reflect_c"] = t.pad(x, [[0, 0], [0, 0], [0, 0], [1, 1]], mode="REFLECT")
    if c > 4:
        out["sl_c4"] = t.slice(x, [0, 1, 0, 4], [1, 2, 3, -1])
    if c % 2 == 0:
        out["split_even_c"] = t.split(x, 2, axis=3)[1]
    if c <= 4:
        out["unpack_c"] = t.unstack(x, axis=3)[c - 1]
    return out


@builder("mv_4d")
def mv_4d() -> bytes:
    """The 4-D grid over every channel count."""
    t = tf()

    def f(y3, *xz):
        out = {}
        for c, x, z in zip(CHANNELS, xz[0::2], xz[1::2]):
            out.update({f"c{c:02d}_{k}": v for k, v in _four_d(t, x, z, y3, c).items()})
        return _named(out)

    specs = [([1, H, W, 3], t.float32)] + [([1, H, W, c], t.float32) for c in CHANNELS for _ in (0, 1)]
    return convert_fn(f, specs)


def _low_rank(t, a, b, c: int) -> dict:
    """The 2-D ([5, c]) and 3-D ([3, 7, c]) grid for one channel count."""
    return {
        "a_tr": t.transpose(a), "a_slice": t.slice(a, [1, 0], [3, -1]), "a_rev": a[::-1, ::-1],
        "a_step": a[1:5:2, ::-2], "a_shrink": a[2], "a_pad": t.pad(a, [[1, 2], [2, 1]]),
        "a_reflect": t.pad(a, [[1, 1], [0, 0]], mode="REFLECT"),
        "a_symmetric": t.pad(a, [[2, 2], [1, 0]], mode="SYMMETRIC"),
        "a_tile": t.tile(a, [2, 3]), "a_cat0": t.concat([a, a[::-1]], 0), "a_cat1": t.concat([a, a[:, ::-1]], 1),
        "a_gather0": t.gather(a, [4, 1, 1], axis=0), "a_gather1": t.gather(a, [c - 1, 0], axis=1),
        "a_gather2d": t.gather(a, [[0, 2], [1, 1]], axis=0),
        "a_split": t.split(a, [2, 3], axis=0)[1], "a_unpack0": t.unstack(a, axis=0)[3],
        "a_unpack1": t.unstack(a, axis=1)[c - 1], "a_pack0": t.stack([a, a[::-1]], axis=0),
        "a_pack2": t.stack([a, a[::-1]], axis=2), "a_reshape": t.reshape(a, [c, 5]), "a_flat": t.reshape(a, [5 * c]),
        "b_tr021": t.transpose(b, [0, 2, 1]), "b_tr210": t.transpose(b, [2, 1, 0]),
        "b_tr102": t.transpose(b, [1, 0, 2]),
        "b_slice": t.slice(b, [1, 2, 0], [2, 4, -1]), "b_rev": b[:, ::-2, :], "b_shrink": b[1, :, :],
        "b_pad": t.pad(b, [[0, 0], [2, 1], [1, 1]]), "b_reflect": t.pad(b, [[1, 1], [2, 2], [0, 0]], mode="REFLECT"),
        "b_tile": t.tile(b, [1, 2, 1]), "b_cat1": t.concat([b, b[:, ::-1]], 1), "b_cat2": t.concat([b, b[::-1]], 2),
        "b_gather": t.gather(b, [6, 2, 0], axis=1), "b_split": t.split(b, [3, 4], axis=1)[0],
        "b_split_even": t.split(b, 3, axis=0)[1],
        "b_unpack": t.unstack(b, axis=1)[6], "b_pack": t.stack([b, b[::-1]], axis=1),
        "b_reshape2": t.reshape(b, [21, c]), "b_reshape4": t.reshape(b, [1, 3, 7, c]),
        "a_reverse": t.reverse(a, [1]), "b_reverse": t.reverse(b, [1, 2]),
    }


@builder("mv_low_rank")
def mv_low_rank() -> bytes:
    """2-D and 3-D tensors over every channel count, and a 1-D vector."""
    t = tf()

    def f(v, *ab):
        out = {"v_rev": v[::-2], "v_pad": t.pad(v, [[2, 1]]), "v_reflect": t.pad(v, [[2, 3]], mode="REFLECT"),
               "v_tile": t.tile(v, [3]), "v_cat": t.concat([v, v[::-1]], 0), "v_gather": t.gather(v, [6, 0]),
               "v_col": t.reshape(v, [7, 1]), "v_pack": t.stack([v, v[::-1]], axis=1), "v_reverse": t.reverse(v, [0])}
        for c, a, b in zip(CHANNELS, ab[0::2], ab[1::2]):
            out.update({f"c{c:02d}_{k}": x for k, x in _low_rank(t, a, b, c).items()})
        return _named(out)

    specs = [([7], t.float32)] + [s for c in CHANNELS for s in (([5, c], t.float32), ([3, 7, c], t.float32))]
    return convert_fn(f, specs)
