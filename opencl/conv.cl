// Convolutions and matrix products, one work-item per output float4 cell: global size (W, H, B * S).
// Filters are packed at load (opencl/ops/conv.py pack_filter) as float4 columns: for each output
// slice, tap and input slice, four float4 (one per input lane, each over the 4 output lanes), so a
// tap is four multiply-adds of whole cells, as the delegate's conv kernels do. Padding lanes hold
// zero on both sides (see zero_padding). Accumulation is in float.

// One input cell times the 4 packed float4 at `w[wi..wi+3]`.
#define MAC(acc, v, w, wi) \
  acc += LOAD4(w, (wi)) * (v).x + LOAD4(w, (wi) + 1) * (v).y + LOAD4(w, (wi) + 2) * (v).z + LOAD4(w, (wi) + 3) * (v).w

// Each work-item computes X_BLOCK neighbouring outputs along x, so every weight cell loaded is
// used X_BLOCK times: global size (ceil(W / X_BLOCK), H, B * S).
// k = (kernel_h, kernel_w, stride_h, stride_w), p = (dilation_h, dilation_w, pad_top, pad_left).
#define X_BLOCK 4
__kernel void conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                     __global const store_t* bias, __global store_t* dst, int4 od, int4 k, int4 p, int act EPILOGUE_PARAMS) {
  int x0 = get_global_id(0) * X_BLOCK, y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int SI = (sd.w + 3) / 4, plane = sd.y * sd.z;
  float4 acc[X_BLOCK];
  for (int i = 0; i < X_BLOCK; i++) acc[i] = LOAD4(bias, s);
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - p.z + ky * p.x;
    if (iy < 0 || iy >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      int ix[X_BLOCK];
      bool inside[X_BLOCK];
      for (int i = 0; i < X_BLOCK; i++) {
        int at = (x0 + i) * k.w - p.w + kx * p.y;
        inside[i] = at >= 0 && at < sd.z;
        ix[i] = clamp(at, 0, sd.z - 1);
      }
      int wi = ((s * k.x + ky) * k.y + kx) * SI * 4, row = CELL(b, 0, iy, 0, SI, sd.y, sd.z);
      for (int si = 0; si < SI; si++, wi += 4, row += plane) {
        float4 w0 = LOAD4(w, wi), w1 = LOAD4(w, wi + 1), w2 = LOAD4(w, wi + 2), w3 = LOAD4(w, wi + 3);
        for (int i = 0; i < X_BLOCK; i++) {
          float4 v = inside[i] ? LOAD4(src, row + ix[i]) : (float4)(0.0f);
          acc[i] += w0 * v.x + w1 * v.y + w2 * v.z + w3 * v.w;
        }
      }
    }
  }
  for (int i = 0; i < X_BLOCK && x0 + i < od.z; i++)
    STORE_CELL(dst, od, b, s, y, x0 + i, activate(acc[i], act));
}

// Depth multiplier 1 (other multipliers run as a grouped conv2d): filter packed [KH, KW, S] float4.
// X_BLOCK outputs along x per work-item, as conv2d.
__kernel void depthwise_conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                               __global const store_t* bias, __global store_t* dst, int4 od, int4 k, int4 p,
                               int act EPILOGUE_PARAMS) {
  int x0 = get_global_id(0) * X_BLOCK, y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 acc[X_BLOCK];
  for (int i = 0; i < X_BLOCK; i++) acc[i] = LOAD4(bias, s);
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - p.z + ky * p.x;
    if (iy < 0 || iy >= sd.y) continue;
    int row = CELL(b, s, iy, 0, S, sd.y, sd.z);
    for (int kx = 0; kx < k.y; kx++) {
      float4 wk = LOAD4(w, (ky * k.y + kx) * S + s);
      for (int i = 0; i < X_BLOCK; i++) {
        int ix = (x0 + i) * k.w - p.w + kx * p.y;
        if (ix >= 0 && ix < sd.z) acc[i] += LOAD4(src, row + ix) * wk;
      }
    }
  }
  for (int i = 0; i < X_BLOCK && x0 + i < od.z; i++)
    STORE_CELL(dst, od, b, s, y, x0 + i, activate(acc[i], act));
}

// The gather form of a transposed convolution: output (y, x) takes input (iy, ix) through tap
// (ky, kx) when iy * stride + ky - pad == y. Filter packed as in conv2d; k and p as in conv2d
// (dilation unused).
__kernel void transpose_conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                               __global const store_t* bias, __global store_t* dst, int4 od, int4 k, int4 p,
                               int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int SI = (sd.w + 3) / 4, plane = sd.y * sd.z;
  float4 acc = LOAD4(bias, s);
  for (int ky = 0; ky < k.x; ky++) {
    int ty = y + p.z - ky;
    if (ty < 0 || ty % k.z != 0 || ty / k.z >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      int tx = x + p.w - kx;
      if (tx < 0 || tx % k.w != 0 || tx / k.w >= sd.z) continue;
      int wi = ((s * k.x + ky) * k.y + kx) * SI * 4, ci = CELL(b, 0, ty / k.z, tx / k.w, SI, sd.y, sd.z);
      for (int si = 0; si < SI; si++, wi += 4, ci += plane) {
        float4 v = LOAD4(src, ci);
        MAC(acc, v, w, wi);
      }
    }
  }
  STORE_CELL(dst, od, b, s, y, x, activate(acc, act));
}

// FULLY_CONNECTED: output row (b, y, x) is input row number (b * H + y) * W + x of the output's
// own dims, read at the same row number in the input's dims. Weights packed as a 1x1 conv2d filter.
__kernel void fully_connected(__global const store_t* src, int4 sd, __global const store_t* w,
                              __global const store_t* bias, __global store_t* dst, int4 od, int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int SI = (sd.w + 3) / 4, plane = sd.y * sd.z;
  int row = (b * od.y + y) * od.z + x;
  int ci = CELL(row / plane, 0, (row / sd.z) % sd.y, row % sd.z, SI, sd.y, sd.z), wi = s * SI * 4;
  float4 acc = LOAD4(bias, s);
  for (int si = 0; si < SI; si++, wi += 4, ci += plane) {
    float4 v = LOAD4(src, ci);
    MAC(acc, v, w, wi);
  }
  STORE_CELL(dst, od, b, s, y, x, activate(acc, act));
}
