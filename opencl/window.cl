// Data movement by per-axis arithmetic: SLICE, STRIDED_SLICE, PAD / PADV2 / MIRROR_PAD, TILE,
// TRANSPOSE, GATHER with constant indices, SPLIT / SPLIT_V / UNPACK, CONCATENATION / PACK.
//
// A launch fills a region of dst, [offset, offset + size) per BHWC axis (the whole tensor, or one
// input's place in a concatenation). The region position o = (b, y, x, c) reads src at
//     begin + o.b * along_b + o.y * along_h + o.x * along_w + o.c * along_c
// (int4 over the src axes b, h, w, c: each output axis moves the src axes it feeds by their
// strides, which encodes permutations, strides and dropped axes), except on the axis marked in
// `lookup` (GATHER's constant indices), read as table[o[lookup_from]]. A coordinate outside src is
// resolved by the border mode: 0 reads `fill` (PAD), 1 REFLECT (tasks/padding.cc reflect_coord),
// 2 SYMMETRIC (the reference interpreter's mirror_pad.cc: the edge repeated), 3 wraps around
// (tasks/tile.cc). The delegate has one task per op (tasks/strided_slice.cc: s_x = X * stride_x +
// offset_x; tasks/padding.cc: s_x = X - prepended_x; tasks/transpose.cc, concat_xy.cc,
// concat_z.cc, split.cc): the same coordinates, one parameterised kernel here.
//
// `window_cells` copies whole float4 cells (the channel axis unmoved and slice-aligned, as the
// delegate's aligned paths: Is4Aligned in strided_slice.cc, the "optimized case" of padding.cc);
// `window_lanes` resolves each of the 4 lanes on its own. Lanes past dst's channel count are
// written as zero or not at all (they start zero).

#define FILL 0
#define REFLECT 1
#define SYMMETRIC 2
#define WRAP 3

// Coordinates s on axes of sizes n after the border mode; -1 where `fill` is read. Vector
// conditionals rather than abs / select / max (calls on PoCL: conv.cl), and only the mode's own
// arithmetic (the mode is the same for every work-item).
int4 border(int4 s, int4 n, int mode) {
  int4 inside = s >= 0 && s < n;
  if (mode == FILL) return inside ? s : (int4)(-1);
  if (mode == WRAP) return s % n;  // TILE reads from 0 up: s >= 0
  int4 a = s < 0 ? -s : s, d = a - n + 1;
  int4 outside = mode == REFLECT ? n - 1 - (d < 0 ? -d : d) : s < 0 ? -1 - s : 2 * n - 1 - s;
  return inside ? s : outside;
}

#define WINDOW_PARAMS __global const store_t* src, int4 sd, __global store_t* dst, int4 dd, int4 offset, int4 size, \
    int4 begin, int4 along_b, int4 along_h, int4 along_w, int4 along_c, int mode, float fill, \
    __global const int* table, int4 lookup, int lookup_from

// The src position of region position o (channel c), borders resolved.
int4 source(WINDOW_PARAMS, int4 o, int c) {
  int4 s = begin + o.x * along_b + o.y * along_h + o.z * along_w + c * along_c;
  if (lookup_from >= 0) {
    int at = lookup_from == 0 ? o.x : lookup_from == 1 ? o.y : lookup_from == 2 ? o.z : c;
    s = select(s, (int4)(table[at]), lookup);
  }
  return border(s, sd, mode);
}

#define SOURCE(c) source(src, sd, dst, dd, offset, size, begin, along_b, along_h, along_w, along_c, mode, fill, \
                         table, lookup, lookup_from, o, c)

// `table` is GATHER's index vector; other launches pass any buffer (it is not read).
__kernel void window_cells(WINDOW_PARAMS) {
  int slices = (size.w + 3) / 4, gs = get_global_id(2) % slices;
  int4 o = (int4)(get_global_id(2) / slices, get_global_id(1), get_global_id(0), 0);
  int4 q = SOURCE(0);
  bool inside = q.x >= 0 && q.y >= 0 && q.z >= 0;
  q = q > 0 ? q : (int4)(0);
  float4 v = LOAD4(src, CELL(q.x, q.w / 4 + gs, q.y, q.z, (sd.w + 3) / 4, sd.y, sd.z));
  int ds = offset.w / 4 + gs;
  STORE4(dst, CELL(offset.x + o.x, ds, offset.y + o.y, offset.z + o.z, (dd.w + 3) / 4, dd.y, dd.z),
         zero_padding(inside ? v : (float4)(fill), ds, dd.w));
}

// One lane's value: src at region channel c (fill outside src).
float lane(__global const store_t* src, int4 sd, int4 q, float fill) {
  bool inside = q.x >= 0 && q.y >= 0 && q.z >= 0 && q.w >= 0;
  q = q > 0 ? q : (int4)(0);
  float v = AT(src, sd, q.x, q.y, q.z, q.w);
  return inside ? v : fill;
}

__kernel void window_lanes(WINDOW_PARAMS) {
  int first = offset.w / 4, slices = (offset.w + size.w - 1) / 4 - first + 1;
  int gs = get_global_id(2) % slices, ds = first + gs;
  int4 o = (int4)(get_global_id(2) / slices, get_global_id(1), get_global_id(0), 0);
  int4 c = ds * 4 - offset.w + (int4)(0, 1, 2, 3);  // region channel of each lane
  int4 mine = c >= 0 && c < size.w;
  c = c < 0 ? (int4)(0) : c < size.w ? c : (int4)(size.w - 1);  // lanes outside the region read a valid
                                                                   // position, then drop it
  float4 v = (float4)(lane(src, sd, SOURCE(c.x), fill), lane(src, sd, SOURCE(c.y), fill),
                      lane(src, sd, SOURCE(c.z), fill), lane(src, sd, SOURCE(c.w), fill));
  v = select((float4)(0.0f), v, mine);
  int cell = CELL(offset.x + o.x, ds, offset.y + o.y, offset.z + o.z, (dd.w + 3) / 4, dd.y, dd.z);
  if (offset.w == 0 && size.w == dd.w) {  // the region holds whole cells: one store, padding lanes 0
    STORE4(dst, cell, v);
    return;
  }
  // a channel range shared with other launches: only this region's lanes
  if (mine.x) STORE1(dst, cell * 4, v.x);
  if (mine.y) STORE1(dst, cell * 4 + 1, v.y);
  if (mine.z) STORE1(dst, cell * 4 + 2, v.z);
  if (mine.w) STORE1(dst, cell * 4 + 3, v.w);
}
