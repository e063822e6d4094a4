// Ops whose reads depend on runtime values or run along one axis, driven by index tables built at
// load from each op's own semantics (opencl/ops/indexed.py): one work-item per output float of the
// PHWC4 storage; row[i] < 0 marks a padding lane, stored as zero. A table row lists, in order, the
// float positions of the elements one output reads along the op's axis.

// GATHER with runtime indices: output float i reads element `index` of its table row, `index`
// being the value of the indices tensor at float position pick[i], clamped into the axis.
__kernel void gather_runtime(__global const store_t* src, __global const store_t* indices,
                             __global const int* row, __global const int* pick, __global const int* table,
                             __global store_t* dst, int axis, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  if (row[i] < 0) { STORE1(dst, i, 0.0f); return; }
  int index = clamp((int)LOAD1(indices, pick[i]), 0, axis - 1);
  STORE1(dst, i, LOAD1(src, table[row[i] * axis + index]));
}

// CUMSUM: output float i is the sum of the elements first[i] .. last[i] - 1 of its table row.
__kernel void axis_sum(__global const store_t* src, __global const int* row, __global const int* first,
                       __global const int* last, __global const int* table, __global store_t* dst,
                       int axis, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float acc = 0.0f;
  for (int a = first[i]; row[i] >= 0 && a < last[i]; a++) acc += LOAD1(src, table[row[i] * axis + a]);
  STORE1(dst, i, acc);
}

// ONE_HOT: output float i is `on` where the index at float position pick[i] equals depth[i], else `off`.
__kernel void one_hot(__global const store_t* indices, __global const int* pick, __global const int* depth,
                      __global store_t* dst, float on, float off, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float v = pick[i] < 0 ? 0.0f : ((int)LOAD1(indices, pick[i]) == depth[i] ? on : off);
  STORE1(dst, i, v);
}

// BATCH_MATMUL and FULLY_CONNECTED with runtime weights: output float i is the dot product of row
// arow[i] of table ta (over a) and row brow[i] of table tb (over b), both `depth` long, plus the
// bias float at bias_pick[i] (none when negative), through the fused activation.
__kernel void matmul(__global const store_t* a, __global const store_t* b, __global const store_t* bias,
                     __global const int* arow, __global const int* brow, __global const int* bias_pick,
                     __global const int* ta, __global const int* tb, __global store_t* dst,
                     int depth, int act, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  if (arow[i] < 0) { STORE1(dst, i, 0.0f); return; }
  float acc = bias_pick[i] >= 0 ? LOAD1(bias, bias_pick[i]) : 0.0f;
  for (int k = 0; k < depth; k++) acc += LOAD1(a, ta[arow[i] * depth + k]) * LOAD1(b, tb[brow[i] * depth + k]);
  STORE1(dst, i, activate((float4)(acc), act).x);
}

// DYNAMIC_UPDATE_SLICE: output float i is the update's element at its coordinates minus the start
// when they fall inside the update, else the operand's float i (same shape, same storage). The start
// of axis a is the value at float position start_pos[a] of the start tensor (0 where start_pos[a]
// < 0: an axis added to reach rank 4), clamped so the update fits (kernels/dynamic_update_slice.cc).
// coords holds each output float's 4 coordinates (-1 on padding lanes).
__kernel void dynamic_update_slice(__global const store_t* operand, __global const store_t* update,
                                   __global const store_t* starts, __global const int* coords,
                                   __global const int* start_pos, __global const int* update_table,
                                   __global store_t* dst, int4 dims4, int4 sizes4, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  if (coords[i * 4] < 0) { STORE1(dst, i, 0.0f); return; }
  int dims[4] = {dims4.x, dims4.y, dims4.z, dims4.w};
  int sizes[4] = {sizes4.x, sizes4.y, sizes4.z, sizes4.w};
  int flat = 0;
  bool inside = true;
  for (int a = 0; a < 4; a++) {
    int start = start_pos[a] < 0 ? 0 : clamp((int)LOAD1(starts, start_pos[a]), 0, dims[a] - sizes[a]);
    int rel = coords[i * 4 + a] - start;
    inside = inside && rel >= 0 && rel < sizes[a];
    flat = flat * sizes[a] + rel;
  }
  STORE1(dst, i, inside ? LOAD1(update, update_table[flat]) : LOAD1(operand, i));
}
