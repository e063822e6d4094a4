// Shared by every kernel family: the storage type (float, or half through vload_half/vstore_half
// since cl_khr_fp16 may be missing) and the fused activations. Arithmetic is always float.
#ifdef HALF_STORAGE
typedef half store_t;
#define LOAD1(p, i) vload_half((i), (p))
#define LOAD4(p, i) vload_half4((i), (p))
#define STORE1(p, i, v) vstore_half((v), (i), (p))
#define STORE4(p, i, v) vstore_half4((v), (i), (p))
#else
// Whole cells through aligned float4 pointers rather than vload4 / vstore4, which PoCL 3.0 compiles
// as calls it does not inline (1.3-2x slower loops: docs/verify.md "Speed"). Buffers are aligned
// far beyond 16 bytes and a cell index counts whole float4.
typedef float store_t;
#define LOAD1(p, i) ((p)[i])
#define LOAD4(p, i) (((__global const float4*)(p))[i])
#define STORE1(p, i, v) ((p)[i] = (v))
#define STORE4(p, i, v) (((__global float4*)(p))[i] = (v))
#endif

// Index of the float4 cell (b, slice, y, x) in PHWC4 storage.
#define CELL(b, s, y, x, S, H, W) ((((b) * (S) + (s)) * (H) + (y)) * (W) + (x))

// TFLite ActivationFunctionType: 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6, 4 TANH
// (the delegate fuses them into the producer's kernel: model_builder_helper.cc MaybeFuseActivation).
// Comparisons rather than fmax / clamp (calls on PoCL, as above); a NaN maps to the lower bound, as
// fmax and clamp map it.
float4 activate(float4 v, int act) {
  float4 lower = act == 2 ? (float4)(-1.0f) : (float4)(0.0f), upper = act == 2 ? (float4)(1.0f) : (float4)(6.0f);
  switch (act) {
    case 1: return v > 0.0f ? v : (float4)(0.0f);
    case 2:
    case 3: return v > lower ? (v < upper ? v : upper) : lower;
    case 4: return tanh(v);
    default: return v;
  }
}

// Lanes past the channel count are stored as zero by every kernel, so readers may take whole cells
// (a convolution multiplies them by zero weights; a NaN or inf there would poison the sum).
float4 zero_padding(float4 v, int s, int channels) {
  int left = channels - s * 4;
  return left >= 4 ? v : (float4)(v.x, left > 1 ? v.y : 0.0f, left > 2 ? v.z : 0.0f, 0.0f);
}

// The value an fp16 GPU keeps of a computed float: the nearest half. The delegate computes linked
// (fused) ops on FLT4, which is half at F16 and F32_F16 precision, so each of their results is
// rounded as a stored tensor is: inf from 65520 on (where round-to-nearest leaves 65504), 11
// significant bits (Veltkamp's split, c - (c - v) with c = v * (2^13 + 1)), multiples of 2^-24 below
// 2^-14 (subnormals), so 0 below 2^-25. LiteRT's GPU accelerator at its default precision gives inf
// where a fused MUL -> ADD -> MUL chain passes 65504 midway (docs/precision.md).
#ifdef HALF_STORAGE
float4 round_half4(float4 v) {
  float4 a = fabs(v), c = v * 8193.0f;
  float4 rounded = a < 6.1035156e-5f ? rint(v * 16777216.0f) * 5.9604645e-8f : c - (c - v);
  return a >= 65520.0f ? copysign((float4)(INFINITY), v) : rounded;
}
#define TO_STORE(v) round_half4(v)
#else
#define TO_STORE(v) (v)
#endif

// Each kernel of a program is preceded by its EPILOGUE_PARAMS (the linked ops' extra operands) and
// EPILOGUE(v, b, s, y, x) (their math): opencl/fusion.py writes them, opencl/programs.py puts them
// in front of the kernel (unfused, they are empty).

// How every producer kernel stores its result cell (b, s, y, x) of a tensor with BHWC dims `od`:
// through the linked ops, padding lanes zeroed.
#define STORE_CELL(dst, od, b, s, y, x, v) STORE_AT(dst, CELL(b, s, y, x, ((od).w + 3) / 4, (od).y, (od).z), od, b, s, y, x, v)
// The same at a float4 index `cell` the kernel already holds (one walking its cells in order).
#define STORE_AT(dst, cell, od, b, s, y, x, v) STORE4(dst, cell, zero_padding(EPILOGUE((v), b, s, y, x), s, (od).w))

// A float4 cell of a tensor with BHWC dims `d` read for output position (b, s, y, x), broadcasting
// every dimension of size 1 (a 1-channel tensor repeats its value over the 4 lanes).
float4 read_broadcast(__global const store_t* p, int4 d, int b, int s, int y, int x) {
  int S = (d.w + 3) / 4;
  float4 v = LOAD4(p, CELL(d.x == 1 ? 0 : b, d.w == 1 ? 0 : s, d.y == 1 ? 0 : y, d.z == 1 ? 0 : x, S, d.y, d.z));
  return d.w == 1 ? (float4)(v.x) : v;
}

// One channel of a tensor with BHWC dims `d` (the float at (b, y, x, c) in PHWC4 storage).
#define AT(P, D, B, Y, X, C) LOAD1((P), CELL((B), (C) / 4, (Y), (X), ((D).w + 3) / 4, (D).y, (D).z) * 4 + (C) % 4)
