// Data movement by per-axis arithmetic: SLICE, STRIDED_SLICE, PAD / PADV2 / MIRROR_PAD, TILE,
// TRANSPOSE, GATHER with constant indices, SPLIT / SPLIT_V / UNPACK, CONCATENATION / PACK.
//
// A launch fills a region of dst, [offset, offset + size) per BHWC axis (the whole tensor, or one
// input's place in a concatenation). The region position o = (b, y, x, c) reads src at, per src
// axis k (0 b, 1 h, 2 w, 3 c),
//     begin[k] + stride[k] * o[perm[k]]
// (stride 0: a fixed coordinate, as an unpacked or shrunk axis), or table[o[perm[k]]] on the axis
// `lookup_axis` (GATHER's constant indices; -1 for none). A coordinate outside src is resolved by
// the border mode: 0 reads `fill` (PAD), 1 REFLECT (tasks/padding.cc reflect_coord), 2 SYMMETRIC
// (the reference interpreter's mirror_pad.cc: the edge repeated), 3 wraps around (tasks/tile.cc).
// The delegate has one task per op (tasks/strided_slice.cc: s_x = X * stride_x + offset_x;
// tasks/padding.cc: s_x = X - prepended_x; tasks/transpose.cc, concat_xy.cc, concat_z.cc,
// split.cc): the same coordinates, one parameterised kernel here.
//
// `window_cells` copies whole float4 cells (the channel axis unmoved and slice-aligned, as the
// delegate's aligned paths: Is4Aligned in strided_slice.cc, the "optimized case" of padding.cc);
// `window_lanes` resolves each of the 4 lanes on its own. Lanes past dst's channel count are
// written as zero or not at all (they start zero).

#define FILL 0
#define REFLECT 1
#define SYMMETRIC 2
#define WRAP 3

// Component i of v (0 .x .. 3 .w): selects, not an indexed private array, so work-items vectorize.
int pick(int4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// Coordinates s on axes of sizes n after the border mode; -1 where `fill` is read.
int4 border(int4 s, int4 n, int mode) {
  if (mode == WRAP) return s % n;  // TILE reads from 0 up: s >= 0
  int4 reflect = n - 1 - convert_int4(abs(convert_int4(abs(s)) - n + 1));  // abs(int) is unsigned in OpenCL C
  int4 symmetric = select(2 * n - 1 - s, -1 - s, s < 0);
  int4 outside = mode == REFLECT ? reflect : mode == SYMMETRIC ? symmetric : (int4)(-1);
  return select(outside, s, s >= 0 && s < n);
}

// The src coordinate on axis k, before the border, for region position `at` along perm[k].
#define RAW(k, at) (k == lookup_axis ? table[at] : pick(begin, k) + pick(stride, k) * (at))

#define WINDOW_PARAMS __global const store_t* src, int4 sd, __global store_t* dst, int4 dd, int4 offset, int4 size, \
                      int4 begin, int4 stride, int4 perm, int mode, float fill, __global const int* table, int lookup_axis

// `table` is GATHER's index vector; other launches pass any buffer (it is not read).
__kernel void window_cells(WINDOW_PARAMS) {
  int slices = (size.w + 3) / 4, gs = get_global_id(2) % slices;
  int4 o = (int4)(get_global_id(2) / slices, get_global_id(1), get_global_id(0), 0);
  int4 q = border((int4)(RAW(0, pick(o, perm.x)), RAW(1, pick(o, perm.y)), RAW(2, pick(o, perm.z)), 0), sd, mode);
  bool inside = q.x >= 0 && q.y >= 0 && q.z >= 0;
  q = max(q, 0);
  float4 v = LOAD4(src, CELL(q.x, begin.w / 4 + gs, q.y, q.z, (sd.w + 3) / 4, sd.y, sd.z));
  int ds = offset.w / 4 + gs;
  STORE4(dst, CELL(offset.x + o.x, ds, offset.y + o.y, offset.z + o.z, (dd.w + 3) / 4, dd.y, dd.z),
         zero_padding(inside ? v : (float4)(fill), ds, dd.w));
}

// The 4 lanes at once: region channels c (one per lane) give, per src axis, 4 coordinates.
int4 source4(int k, int4 o, int4 c, int4 begin, int4 stride, int4 perm, int4 sd, int mode,
             __global const int* table, int lookup_axis) {
  int4 at = pick(perm, k) == 3 ? c : (int4)(pick(o, pick(perm, k)));
  int4 s = (int4)(RAW(k, at.x), RAW(k, at.y), RAW(k, at.z), RAW(k, at.w));
  return border(s, (int4)(pick(sd, k)), mode);
}

#define SOURCE4(k) source4(k, o, c, begin, stride, perm, sd, mode, table, lookup_axis)

__kernel void window_lanes(WINDOW_PARAMS) {
  int first = offset.w / 4, slices = (offset.w + size.w - 1) / 4 - first + 1;
  int gs = get_global_id(2) % slices, ds = first + gs;
  int4 o = (int4)(get_global_id(2) / slices, get_global_id(1), get_global_id(0), 0);
  int4 c = ds * 4 - offset.w + (int4)(0, 1, 2, 3);  // region channel of each lane
  int4 mine = c >= 0 && c < size.w;
  c = clamp(c, 0, size.w - 1);  // lanes outside the region read a valid position, then drop it
  int4 sb = SOURCE4(0), sy = SOURCE4(1), sx = SOURCE4(2), sc = SOURCE4(3);
  int4 inside = sb >= 0 && sy >= 0 && sx >= 0 && sc >= 0;
  sb = max(sb, 0), sy = max(sy, 0), sx = max(sx, 0), sc = max(sc, 0);
  int4 at = ((((sb * ((sd.w + 3) / 4) + sc / 4) * sd.y + sy) * sd.z + sx) * 4) + sc % 4;
  float4 v = (float4)(LOAD1(src, at.x), LOAD1(src, at.y), LOAD1(src, at.z), LOAD1(src, at.w));
  v = select((float4)(0.0f), select((float4)(fill), v, inside), mine);
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
