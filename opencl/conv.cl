// Convolutions and matrix products, one work-item per output float4 cell: global size (W, H, B * S).
// Filters are flat OHWI (TFLite's own order for CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED);
// every lane past the real channel count is left at zero. Accumulation is in float.

// k = (kernel_h, kernel_w, stride_h, stride_w), p = (dilation_h, dilation_w, pad_top, pad_left).
__kernel void conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                     __global const store_t* bias, __global store_t* dst, int4 od,
                     int4 k, int4 p, int groups, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int cin = sd.w / groups, cout = od.w / groups;
  float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int l = 0; l < 4; l++) {
    int co = s * 4 + l;
    if (co >= od.w) break;
    int c0 = (co / cout) * cin;
    float acc = LOAD1(bias, co);
    for (int ky = 0; ky < k.x; ky++) {
      int iy = y * k.z - p.z + ky * p.x;
      if (iy < 0 || iy >= sd.y) continue;
      for (int kx = 0; kx < k.y; kx++) {
        int ix = x * k.w - p.w + kx * p.y;
        if (ix < 0 || ix >= sd.z) continue;
        int wi = ((co * k.x + ky) * k.y + kx) * cin;
        for (int ci = 0; ci < cin; ci++) acc += AT(src, sd, b, iy, ix, c0 + ci) * LOAD1(w, wi + ci);
      }
    }
    r[l] = acc;
  }
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), activate((float4)(r[0], r[1], r[2], r[3]), act));
}

// Filter [1, KH, KW, C * multiplier]; output channel co reads input channel co / multiplier.
__kernel void depthwise_conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                               __global const store_t* bias, __global store_t* dst, int4 od,
                               int4 k, int4 p, int multiplier, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int l = 0; l < 4; l++) {
    int co = s * 4 + l;
    if (co >= od.w) break;
    float acc = LOAD1(bias, co);
    for (int ky = 0; ky < k.x; ky++) {
      int iy = y * k.z - p.z + ky * p.x;
      if (iy < 0 || iy >= sd.y) continue;
      for (int kx = 0; kx < k.y; kx++) {
        int ix = x * k.w - p.w + kx * p.y;
        if (ix < 0 || ix >= sd.z) continue;
        acc += AT(src, sd, b, iy, ix, co / multiplier) * LOAD1(w, (ky * k.y + kx) * od.w + co);
      }
    }
    r[l] = acc;
  }
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), activate((float4)(r[0], r[1], r[2], r[3]), act));
}

// The gather form of a transposed convolution: output (y, x) takes input (iy, ix) through tap
// (ky, kx) when iy * stride + ky - pad == y. Filter [Cout, KH, KW, Cin]; k and p as in conv2d
// (dilation unused).
__kernel void transpose_conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                               __global const store_t* bias, __global store_t* dst, int4 od,
                               int4 k, int4 p, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int l = 0; l < 4; l++) {
    int co = s * 4 + l;
    if (co >= od.w) break;
    float acc = LOAD1(bias, co);
    for (int ky = 0; ky < k.x; ky++) {
      int ty = y + p.z - ky;
      if (ty < 0 || ty % k.z != 0 || ty / k.z >= sd.y) continue;
      for (int kx = 0; kx < k.y; kx++) {
        int tx = x + p.w - kx;
        if (tx < 0 || tx % k.w != 0 || tx / k.w >= sd.z) continue;
        int wi = ((co * k.x + ky) * k.y + kx) * sd.w;
        for (int ci = 0; ci < sd.w; ci++) acc += AT(src, sd, b, ty / k.z, tx / k.w, ci) * LOAD1(w, wi + ci);
      }
    }
    r[l] = acc;
  }
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), activate((float4)(r[0], r[1], r[2], r[3]), act));
}

// FULLY_CONNECTED: output row (b, y, x) is input row number (b * H + y) * W + x of the output's
// own dims, read at the same row number in the input's dims. Weights [Cout, Cin].
__kernel void fully_connected(__global const store_t* src, int4 sd, __global const store_t* w,
                              __global const store_t* bias, __global store_t* dst, int4 od, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int row = (b * od.y + y) * od.z + x;
  int ib = row / (sd.y * sd.z), iy = (row / sd.z) % sd.y, ix = row % sd.z;
  float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int l = 0; l < 4; l++) {
    int co = s * 4 + l;
    if (co >= od.w) break;
    float acc = LOAD1(bias, co);
    for (int ci = 0; ci < sd.w; ci++) acc += AT(src, sd, ib, iy, ix, ci) * LOAD1(w, co * sd.w + ci);
    r[l] = acc;
  }
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), activate((float4)(r[0], r[1], r[2], r[3]), act));
}
