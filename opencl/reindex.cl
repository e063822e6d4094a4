// Data movement that re-indexes whole positions: RESHAPE (and SQUEEZE / EXPAND_DIMS, and the rank
// changes of reductions), DEPTH_TO_SPACE, SPACE_TO_DEPTH. One work-item per dst float4 cell,
// grid (W, H, B * slices); each lane's src position is computed from its dst position (b, y, x, c).
// Lanes past dst's channel count are stored as zero.

#define RESHAPE 0
#define DEPTH_TO_SPACE 1
#define SPACE_TO_DEPTH 2

// The src position (b, y, x, c) of dst position (b, y, x, c) for the op `kind`; `block` is the
// block size of DEPTH_TO_SPACE / SPACE_TO_DEPTH.
int4 source_position(int kind, int4 sd, int4 dd, int4 p, int block) {
  switch (kind) {
    case DEPTH_TO_SPACE:  // tasks/depth_to_space.cc: src channel (block row, block column, channel)
      return (int4)(p.x, p.y / block, p.z / block, ((p.y % block) * block + p.z % block) * dd.w + p.w);
    case SPACE_TO_DEPTH: {  // tasks/space_to_depth.cc: the inverse
      int cell = p.w / sd.w;
      return (int4)(p.x, p.y * block + cell / block, p.z * block + cell % block, p.w % sd.w);
    }
    default: {  // tasks/reshape.cc: the same row-major element number on both sides
      int n = ((p.x * dd.y + p.y) * dd.z + p.z) * dd.w + p.w;
      int c = n % sd.w, x = n / sd.w % sd.z, y = n / sd.w / sd.z % sd.y;
      return (int4)(n / sd.w / sd.z / sd.y, y, x, c);
    }
  }
}

__kernel void reindex_lanes(__global const store_t* src, int4 sd, __global store_t* dst, int4 dd, int kind, int block) {
  int x = get_global_id(0), y = get_global_id(1), S = (dd.w + 3) / 4;
  int b = get_global_id(2) / S, s = get_global_id(2) % S;
  float v[4];
  for (int l = 0; l < 4; ++l) {
    int4 q = source_position(kind, sd, dd, (int4)(b, y, x, s * 4 + l), block);
    v[l] = s * 4 + l < dd.w ? AT(src, sd, q.x, q.y, q.z, q.w) : 0.0f;
  }
  STORE4(dst, CELL(b, s, y, x, S, dd.y, dd.z), (float4)(v[0], v[1], v[2], v[3]));
}

// RESHAPE with both channel counts multiples of 4 (tasks/reshapex4.cc): a cell's 4 lanes are 4
// consecutive elements on both sides, so whole cells move.
__kernel void reshape_cells(__global const store_t* src, int4 sd, __global store_t* dst, int4 dd) {
  int x = get_global_id(0), y = get_global_id(1), S = (dd.w + 3) / 4;
  int b = get_global_id(2) / S, s = get_global_id(2) % S;
  int4 q = source_position(RESHAPE, sd, dd, (int4)(b, y, x, s * 4), 0);
  STORE4(dst, CELL(b, s, y, x, S, dd.y, dd.z), LOAD4(src, CELL(q.x, q.w / 4, q.y, q.z, sd.w / 4, sd.y, sd.z)));
}

// A partition input as the host holds it (plain BHWC values, its channels not whole slices) laid
// out in PHWC4, as the delegate converts its inputs on the device: one work-item per dst cell,
// grid (W, H, B * slices), lanes past the channel count zero.
__kernel void from_bhwc(__global const store_t* src, __global store_t* dst, int4 dd) {
  int x = get_global_id(0), y = get_global_id(1), S = (dd.w + 3) / 4;
  int b = get_global_id(2) / S, s = get_global_id(2) % S, c = s * 4;
  int n = ((b * dd.y + y) * dd.z + x) * dd.w + c;
  float4 v = (float4)(LOAD1(src, n), c + 1 < dd.w ? LOAD1(src, n + 1) : 0.0f, c + 2 < dd.w ? LOAD1(src, n + 2) : 0.0f,
                      c + 3 < dd.w ? LOAD1(src, n + 3) : 0.0f);
  STORE4(dst, CELL(b, s, y, x, S, dd.y, dd.z), v);
}
