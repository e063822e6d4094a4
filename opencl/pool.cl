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

__kernel void max_pool(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                       int4 k, int2 pad, int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 best = (float4)(-INFINITY);
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - pad.x + ky;
    if (iy < 0 || iy >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      int ix = x * k.w - pad.y + kx;
      if (ix < 0 || ix >= sd.z) continue;
      best = fmax(best, LOAD4(src, CELL(b, s, iy, ix, S, sd.y, sd.z)));
    }
  }
  STORE_CELL(dst, od, b, s, y, x, activate(best, act));
}
