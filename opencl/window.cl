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

typedef struct {
  int dims[4], begin[4], stride[4], perm[4];
  int mode, lookup_axis;
} Window;

int border(int s, int n, int mode) {
  if (s >= 0 && s < n) return s;
  switch (mode) {
    case 1: return n - 1 - (int)abs((int)abs(s) - n + 1);  // abs(int) is unsigned in OpenCL C
    case 2: return s < 0 ? -1 - s : 2 * n - 1 - s;
    case 3: return (s % n + n) % n;
    default: return -1;
  }
}

// The src coordinate on axis k for region position o, or -1 where `fill` is read.
int source_coord(const Window* w, int k, const int* o, __global const int* table) {
  int at = o[w->perm[k]];
  int s = k == w->lookup_axis ? table[at] : w->begin[k] + w->stride[k] * at;
  return border(s, w->dims[k], w->mode);
}

Window window_of(int4 sd, int4 begin, int4 stride, int4 perm, int mode, int lookup_axis) {
  Window w = {{sd.x, sd.y, sd.z, sd.w}, {begin.x, begin.y, begin.z, begin.w},
              {stride.x, stride.y, stride.z, stride.w}, {perm.x, perm.y, perm.z, perm.w}, mode, lookup_axis};
  return w;
}

// Region slices go along the third grid axis with the batch: (B * slices).
#define REGION_POSITION(slices)                                                  \
  int o[4] = {(int)get_global_id(2) / (slices), (int)get_global_id(1), (int)get_global_id(0), 0}; \
  int gs = (int)get_global_id(2) % (slices)

// `table` is GATHER's index vector; other launches pass any buffer (it is not read).
__kernel void window_cells(__global const store_t* src, int4 sd, __global store_t* dst, int4 dd, int4 offset,
                           int4 size, int4 begin, int4 stride, int4 perm, int mode, float fill,
                           __global const int* table, int lookup_axis) {
  REGION_POSITION((size.w + 3) / 4);
  Window w = window_of(sd, begin, stride, perm, mode, lookup_axis);
  int sb = source_coord(&w, 0, o, table), sy = source_coord(&w, 1, o, table), sx = source_coord(&w, 2, o, table);
  int ds = offset.w / 4 + gs;
  float4 v = sb < 0 || sy < 0 || sx < 0 ? (float4)(fill)
                                        : LOAD4(src, CELL(sb, begin.w / 4 + gs, sy, sx, (sd.w + 3) / 4, sd.y, sd.z));
  STORE4(dst, CELL(offset.x + o[0], ds, offset.y + o[1], offset.z + o[2], (dd.w + 3) / 4, dd.y, dd.z),
         zero_padding(v, ds, dd.w));
}

__kernel void window_lanes(__global const store_t* src, int4 sd, __global store_t* dst, int4 dd, int4 offset,
                           int4 size, int4 begin, int4 stride, int4 perm, int mode, float fill,
                           __global const int* table, int lookup_axis) {
  int first = offset.w / 4;
  REGION_POSITION((offset.w + size.w - 1) / 4 - first + 1);
  Window w = window_of(sd, begin, stride, perm, mode, lookup_axis);
  int ds = first + gs;
  int cell = CELL(offset.x + o[0], ds, offset.y + o[1], offset.z + o[2], (dd.w + 3) / 4, dd.y, dd.z);
  float v[4];
  for (int l = 0; l < 4; ++l) {
    o[3] = ds * 4 + l - offset.w;
    v[l] = 0.0f;
    if (o[3] < 0 || o[3] >= size.w) continue;
    int sb = source_coord(&w, 0, o, table), sy = source_coord(&w, 1, o, table);
    int sx = source_coord(&w, 2, o, table), sc = source_coord(&w, 3, o, table);
    v[l] = sb < 0 || sy < 0 || sx < 0 || sc < 0 ? fill : AT(src, sd, sb, sy, sx, sc);
  }
  if (offset.w == 0 && size.w == dd.w) {  // the region holds whole cells: one store, padding lanes 0
    STORE4(dst, cell, (float4)(v[0], v[1], v[2], v[3]));
  } else {  // a channel range shared with other launches: only this region's lanes
    for (int l = 0; l < 4; ++l) {
      int c = ds * 4 + l - offset.w;
      if (c >= 0 && c < size.w) STORE1(dst, cell * 4 + l, v[l]);
    }
  }
}
