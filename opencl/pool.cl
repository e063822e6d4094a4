// 2-D pooling, one work-item per output float4 cell: global size (W, H, B * S).
// k = (filter_h, filter_w, stride_h, stride_w), pad = (pad_top, pad_left). Padded positions are
// skipped: the average divides by the number of input pixels actually in the window.

__kernel void average_pool(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                           int4 k, int2 pad, int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 sum = (float4)(0.0f);
  int count = 0;
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - pad.x + ky;
    if (iy < 0 || iy >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      int ix = x * k.w - pad.y + kx;
      if (ix < 0 || ix >= sd.z) continue;
      sum += LOAD4(src, CELL(b, s, iy, ix, S, sd.y, sd.z));
      count++;
    }
  }
  STORE_CELL(dst, od, b, s, y, x, activate(sum / (float)max(count, 1), act));
}

// The maximum of the window of output (b, s, y, x), and in `index` each lane's tap of it within
// the window, ky * filter_w + kx (the first maximum wins: a later equal value does not replace
// it). The maximum starts at -10000, as in the delegate's kernel (tasks/pooling.cc
// GetMaxPoolingKernelCode): a window whose values are all below that yields -10000.
float4 window_max(__global const store_t* src, int4 sd, int b, int s, int y, int x, int4 k, int2 pad,
                  float4* index) {
  int S = (sd.w + 3) / 4;
  float4 best = (float4)(-10000.0f);
  *index = (float4)(0.0f);
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - pad.x + ky;
    if (iy < 0 || iy >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      int ix = x * k.w - pad.y + kx;
      if (ix < 0 || ix >= sd.z) continue;
      float4 v = LOAD4(src, CELL(b, s, iy, ix, S, sd.y, sd.z));
      int4 larger = isgreater(v, best);
      *index = select(*index, (float4)((float)(ky * k.y + kx)), larger);
      best = select(best, v, larger);
    }
  }
  return best;
}

__kernel void max_pool(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                       int4 k, int2 pad, int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 index;
  STORE_CELL(dst, od, b, s, y, x, activate(window_max(src, sd, b, s, y, x, k, pad, &index), act));
}

// MediaPipe's MaxPoolingWithArgmax2D as the delegate runs it (tasks/pooling.cc, output_indices):
// the values as max_pool, and the indices of window_max.
__kernel void max_pool_argmax(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                              __global store_t* indices, int4 k, int2 pad, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S, cell = CELL(b, s, y, x, S, od.y, od.z);
  float4 index;
  float4 best = window_max(src, sd, b, s, y, x, k, pad, &index);
  STORE4(dst, cell, zero_padding(activate(best, act), s, od.w));
  STORE4(indices, cell, zero_padding(index, s, od.w));
}

// MaxUnpooling2D as the delegate runs it (tasks/max_unpooling.cc): output (y, x) looks at the
// pooled cell ((y + pad_h) / stride_h, (x + pad_w) / stride_w), pad being the *appended* SAME
// padding as the delegate passes it, and takes each lane's value where that lane's index names
// this position in the window, else 0.
__kernel void max_unpool(__global const store_t* src, int4 sd, __global const store_t* indices,
                         __global store_t* dst, int4 od, int4 k, int2 pad) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int sy = (y + pad.x) / k.z, sx = (x + pad.y) / k.w;
  bool outside = sy < 0 || sx < 0 || sy >= sd.y || sx >= sd.z;
  float4 v = (float4)(0.0f);
  int4 index = (int4)(0);
  if (!outside) {
    int cell = CELL(b, s, sy, sx, S, sd.y, sd.z);
    v = LOAD4(src, cell);
    index = convert_int4(LOAD4(indices, cell));
  }
  int tap = (y - (sy * k.z - pad.x)) * k.y + (x - (sx * k.w - pad.y));
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), zero_padding(select((float4)(0.0f), v, index == (int4)(tap)), s, od.w));
}
