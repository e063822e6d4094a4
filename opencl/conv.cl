// Convolutions and matrix products. transpose_conv2d and fully_connected compute one output float4
// cell per work-item: global size (W, H, B * S), filters packed at load (opencl/ops/conv.py
// pack_filter) as float4 columns: for each output slice, tap and input slice, four float4 (one per
// input lane, each over the 4 output lanes), so a tap is four multiply-adds of whole cells, as the
// delegate's conv kernels do. conv2d and pointwise_conv2d are blocked over four output slices (see
// below). Padding lanes hold zero on both sides (see zero_padding). Accumulation is in float.

// PoCL 3.0 compiles OpenCL builtins here as calls that are not inlined (vload4, vload8, vstore4,
// min, clamp, fmax: one call per use, read in the generated code; 1.3-2x slower inner loops), so
// the kernels below avoid them: float16 weights are read through aligned pointers (float4 cells
// and the fused activations as common.cl's LOAD4 / STORE4 / activate do), bounds are plain
// conditionals (docs/verify.md "Speed").
#ifdef HALF_STORAGE
#define LOAD16(p, i) vload_half16((i), (p))
#else
#define LOAD16(p, i) (((__global const float16*)(p))[i])
#endif

// One input cell times the 4 packed float4 at `w[wi..wi+3]`.
#define MAC(acc, v, w, wi) \
  acc += LOAD4(w, (wi)) * (v).x + LOAD4(w, (wi) + 1) * (v).y + LOAD4(w, (wi) + 2) * (v).z + LOAD4(w, (wi) + 3) * (v).w

// The blocked convolutions (conv2d, pointwise_conv2d, depthwise_pointwise) compute four output
// slices per work-item as one float16 (16 output channels; PoCL's LLVM computes it as two 256-bit
// halves, and whole AVX-512 registers measured no faster: docs/benchmarks.md), for several
// neighbouring pixels, so each input cell loaded is used 16 times and each weight once per pixel
// of the block: per input lane one float16 multiply-add with the lane broadcast, the shape of
// XNNPACK's micro-kernels, written out per work-item since neither CPU runtime vectorizes across
// work-items here (docs/benchmarks.md "Executor speed"). Filters are packed by pack_blocked
// (opencl/ops/conv.py): [ceil(S_out / 4), KH, KW, C_in padded to whole slices, 16 output lanes];
// the bias is padded to whole groups of 16.

// The 16-lane filter block of one input slice at float16 index wi: lane c of the input cell times w##c.
#define LOAD_BLOCK16(w, wi) \
  float16 w0 = LOAD16(w, (wi)), w1 = LOAD16(w, (wi) + 1), w2 = LOAD16(w, (wi) + 2), w3 = LOAD16(w, (wi) + 3)
// Each product joins the accumulator at once (four multiply-adds, where summing the four products
// first took a multiply, three multiply-adds and an add: PoCL's kernels 3-5 % less time on
// MobileNetV2, Intel's the same; fp32 sums may differ from the other order in the last bit).
#define MAC_BLOCK16(acc, v) acc += w0 * (v).x, acc += w1 * (v).y, acc += w2 * (v).z, acc += w3 * (v).w
// Store the four slices (4g .. 4g + 3, those that exist) of output pixel (py, px), whose first
// slice's cell is at float4 index `first` (the kernel walks its pixels' cells in order: 8-15 %
// less pointwise time than a CELL per slice, PoCL and Intel).
#define STORE_BLOCK16(dst, od, b, g, py, px, first, acc, act)                                                 \
  {                                                                                                           \
    int s4 = (g) * 4, S4 = ((od).w + 3) / 4, out_plane = (od).y * (od).z;                                     \
    STORE_AT(dst, first, od, b, s4, py, px, activate((acc).s0123, act));                                      \
    if (s4 + 1 < S4) STORE_AT(dst, (first) + out_plane, od, b, (s4 + 1), py, px, activate((acc).s4567, act)); \
    if (s4 + 2 < S4) STORE_AT(dst, (first) + 2 * out_plane, od, b, (s4 + 2), py, px, activate((acc).s89ab, act));\
    if (s4 + 3 < S4) STORE_AT(dst, (first) + 3 * out_plane, od, b, (s4 + 3), py, px, activate((acc).scdef, act));\
  }

// Runtime (non-constant) CONV_2D weights into the blocked layout, before each run of the conv, as the
// delegate converts them with a kernel of its own (common/tasks/conv_weights_converter.cc: the
// weights tensor read as BHWC with B = O, H = KH, W = KW, C = I). wd = (O, KH, KW, I); global size
// (16 * ceil(O / 16), KH * KW, I padded to whole slices): one packed float per work-item, zero past
// the real output and input channels.
__kernel void pack_conv_weights(__global const store_t* src, int4 wd, __global store_t* dst) {
  int co = get_global_id(0), tap = get_global_id(1), ci = get_global_id(2);
  int ky = tap / wd.z, kx = tap % wd.z, cis = get_global_size(2);
  float v = co < wd.x && ci < wd.w ? AT(src, wd, co, ky, kx, ci) : 0.0f;
  STORE1(dst, (((co / 16) * wd.y * wd.z + tap) * cis + ci) * 16 + co % 16, v);
}

// The input columns of filter column kx for X_BLOCK outputs from x0 (k and p as conv2d below), and
// whether each is inside the input (else read column 0 and use zero).
#define WINDOW_COLUMNS(ix, inside, x0, kx, k, p, sd)  \
  int ix[X_BLOCK];                                    \
  bool inside[X_BLOCK];                               \
  for (int i = 0; i < X_BLOCK; i++) {                 \
    int at = ((x0) + i) * (k).w - (p).w + (kx) * (p).y; \
    inside[i] = at >= 0 && at < (sd).z;               \
    ix[i] = inside[i] ? at : 0;                       \
  }

// X_BLOCK neighbouring outputs along x per work-item: global size (ceil(W / X_BLOCK), H, B * G)
// with G = ceil(S_out / 4).
// k = (kernel_h, kernel_w, stride_h, stride_w), p = (dilation_h, dilation_w, pad_top, pad_left).
#define X_BLOCK 8
__kernel void conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                     __global const store_t* bias, __global store_t* dst, int4 od, int4 k, int4 p, int act EPILOGUE_PARAMS) {
  int x0 = get_global_id(0) * X_BLOCK, y = get_global_id(1), bg = get_global_id(2);
  int G = (od.w + 15) / 16, b = bg / G, g = bg % G;
  int SI = (sd.w + 3) / 4, plane = sd.y * sd.z;
  if (x0 >= od.z) return;
  // every column the block reads inside the input: the cells are read without bounds checks
  bool interior = x0 * k.w - p.w >= 0 && (x0 + X_BLOCK - 1) * k.w - p.w + (k.y - 1) * p.y < sd.z;
  float16 acc[X_BLOCK];
  for (int i = 0; i < X_BLOCK; i++) acc[i] = LOAD16(bias, g);
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - p.z + ky * p.x;
    if (iy < 0 || iy >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      int wi = ((g * k.x + ky) * k.y + kx) * SI * 4, row = CELL(b, 0, iy, 0, SI, sd.y, sd.z);
      if (interior) {
        row += x0 * k.w - p.w + kx * p.y;
        for (int si = 0; si < SI; si++, wi += 4, row += plane) {
          LOAD_BLOCK16(w, wi);
          for (int i = 0; i < X_BLOCK; i++) {
            float4 v = LOAD4(src, row + i * k.w);
            MAC_BLOCK16(acc[i], v);
          }
        }
        continue;
      }
      WINDOW_COLUMNS(ix, inside, x0, kx, k, p, sd);
      for (int si = 0; si < SI; si++, wi += 4, row += plane) {
        LOAD_BLOCK16(w, wi);
        for (int i = 0; i < X_BLOCK; i++) {
          float4 v = inside[i] ? LOAD4(src, row + ix[i]) : (float4)(0.0f);
          MAC_BLOCK16(acc[i], v);
        }
      }
    }
  }
  for (int i = 0; i < X_BLOCK && x0 + i < od.z; i++) {
    int x = x0 + i;
    STORE_BLOCK16(dst, od, b, g, y, x, CELL(b, g * 4, y, x, (od.w + 3) / 4, od.y, od.z), acc[i], act);
  }
}

// conv2d for at most 4 output channels (one slice), where the blocked kernel would compute 16
// lanes for them (a segmentation head's last 3x3 conv to one channel): X_BLOCK outputs along x
// per work-item over pack_filter's float4 columns. Global size (ceil(W / X_BLOCK), H, B); k and p
// as conv2d.
__kernel void conv2d_slice(__global const store_t* src, int4 sd, __global const store_t* w,
                           __global const store_t* bias, __global store_t* dst, int4 od, int4 k, int4 p,
                           int act EPILOGUE_PARAMS) {
  int x0 = get_global_id(0) * X_BLOCK, y = get_global_id(1), b = get_global_id(2);
  int SI = (sd.w + 3) / 4, plane = sd.y * sd.z;
  if (x0 >= od.z) return;
  float4 acc[X_BLOCK];
  for (int i = 0; i < X_BLOCK; i++) acc[i] = LOAD4(bias, 0);
  for (int ky = 0; ky < k.x; ky++) {
    int iy = y * k.z - p.z + ky * p.x;
    if (iy < 0 || iy >= sd.y) continue;
    for (int kx = 0; kx < k.y; kx++) {
      WINDOW_COLUMNS(ix, inside, x0, kx, k, p, sd);
      int wi = (ky * k.y + kx) * SI * 4, row = CELL(b, 0, iy, 0, SI, sd.y, sd.z);
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
    STORE_CELL(dst, od, b, 0, y, x0 + i, activate(acc[i], act));
}

// A 1x1 convolution with stride 1 and no padding (most of a MobileNet's multiply-adds) as a
// matrix product over the flattened pixels: `block` neighbouring pixels per work-item, the loops
// over them under `unroll` (UNROLL or KEEP_LOOP). Global size (ceil(H * W / block), G, B).
// Instances: pointwise_conv2d (8 pixels, unrolled, so the accumulators live in registers;
// work-groups of 8 along the pixels: opencl/ops/conv.py) and pointwise_row (one pixel: a
// FULLY_CONNECTED over a few rows, where a block of pixels would only repeat the one row). A whole
// block reads its cells without clamping the pixel index (the last, partial block clamps it):
// 0.94-0.96x MobileNetV2's kernel time, PoCL and Intel, the same numbers bit for bit.
#define UNROLL _Pragma("unroll")
#define KEEP_LOOP
#define POINTWISE_KERNEL(name, block, unroll)                                                      \
  __kernel void name(__global const store_t* src, int4 sd, __global const store_t* w,              \
                     __global const store_t* bias, __global store_t* dst, int4 od, int act EPILOGUE_PARAMS) { \
    int p0 = get_global_id(0) * (block), g = get_global_id(1), b = get_global_id(2);                \
    int SI = (sd.w + 3) / 4, plane = sd.y * sd.z, last = plane - 1;                                \
    if (p0 >= plane) return;                                                                       \
    float16 acc[block];                                                                            \
    unroll for (int i = 0; i < (block); i++) acc[i] = LOAD16(bias, g);                             \
    int row = b * SI * plane, wi = g * SI * 4;                                                     \
    if (p0 + (block) <= plane) {                                                                   \
      for (int si = 0, at = row + p0; si < SI; si++, wi += 4, at += plane) {                       \
        LOAD_BLOCK16(w, wi);                                                                       \
        unroll for (int i = 0; i < (block); i++) {                                                 \
          float4 v = LOAD4(src, at + i);                                                           \
          MAC_BLOCK16(acc[i], v);                                                                  \
        }                                                                                          \
      }                                                                                            \
    } else {                                                                                       \
      for (int si = 0; si < SI; si++, wi += 4, row += plane) {                                     \
        LOAD_BLOCK16(w, wi);                                                                       \
        unroll for (int i = 0; i < (block); i++) {                                                 \
          float4 v = LOAD4(src, row + (p0 + i < last ? p0 + i : last));                            \
          MAC_BLOCK16(acc[i], v);                                                                  \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    int y = p0 / od.z, x = p0 % od.z, first = (b * ((od.w + 3) / 4) + g * 4) * plane + p0;        \
    for (int i = 0; i < (block) && p0 + i < plane; i++, x++, first++) {                            \
      if (x == od.z) x = 0, y++;                                                                   \
      STORE_BLOCK16(dst, od, b, g, y, x, first, acc[i], act);                                      \
    }                                                                                              \
  }
POINTWISE_KERNEL(pointwise_conv2d, 8, UNROLL)
POINTWISE_KERNEL(pointwise_row, 1, KEEP_LOOP)

// The depthwise kernels unroll their loops over the block (the accumulators and the input row
// then live in registers: 36 % less time measured on MobileNetV2); conv2d does not (with float8
// halves, unrolled it measured 20-30 % slower).

// The generic depthwise sums of slice s (of S) for DW_X_BLOCK outputs along x from x0 into
// acc[]: the bias, then every tap of the window inside the input (k and p as in conv2d).
#define DEPTHWISE_TAPS(acc, src, sd, filter, bias, b, s, S, out_y, x0, k, p)                \
  _Pragma("unroll") for (int i = 0; i < DW_X_BLOCK; i++) acc[i] = LOAD4(bias, s);       \
  for (int ky = 0; ky < (k).x; ky++) {                                                      \
    int iy = (out_y) * (k).z - (p).z + ky * (p).x;                                          \
    if (iy < 0 || iy >= (sd).y) continue;                                                   \
    int row = CELL(b, s, iy, 0, S, (sd).y, (sd).z);                                         \
    for (int kx = 0; kx < (k).y; kx++) {                                                    \
      float4 wk = LOAD4(filter, (ky * (k).y + kx) * (S) + (s));                         \
      _Pragma("unroll") for (int i = 0; i < DW_X_BLOCK; i++) {                              \
        int ix = ((x0) + i) * (k).w - (p).w + kx * (p).y;                                   \
        if (ix >= 0 && ix < (sd).z) acc[i] += LOAD4(src, row + ix) * wk;                \
      }                                                                                     \
    }                                                                                       \
  }

// Depth multiplier 1 (other multipliers run as a grouped conv2d): filter packed [KH, KW, S] float4.
// DW_X_BLOCK outputs along x per work-item: global size (ceil(W / DW_X_BLOCK), H, B * S).
#define DW_X_BLOCK 4
__kernel void depthwise_conv2d(__global const store_t* src, int4 sd, __global const store_t* w,
                               __global const store_t* bias, __global store_t* dst, int4 od, int4 k, int4 p,
                               int act EPILOGUE_PARAMS) {
  int x0 = get_global_id(0) * DW_X_BLOCK, y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 acc[DW_X_BLOCK];
  DEPTHWISE_TAPS(acc, src, sd, w, bias, b, s, S, y, x0, k, p);
  for (int i = 0; i < DW_X_BLOCK && x0 + i < od.z; i++)
    STORE_CELL(dst, od, b, s, y, x0 + i, activate(acc[i], act));
}

// KxK depthwise at stride 1 or 2, dilation 1 (most of a MobileNet's depthwise layers are 3x3,
// MediaPipe's landmark models also have 5x5): DW_ROW_X_BLOCK outputs along x per work-item from one
// row of (DW_ROW_X_BLOCK - 1) * STRIDE + K input cells loaded once per filter row (the generic
// kernel loads each cell once per tap). Global size (ceil(W / DW_ROW_X_BLOCK), H, B * S);
// p = (pad_top, pad_left). Each filter row's products are summed before they join the accumulator.
// Four outputs are one float16 (four neighbouring cells of one slice are contiguous in PHWC4), so a
// tap multiplies four outputs at once, their cells gathered into a float16 by shuffles. The row is
// held either as float16 chunks of four cells (CHUNKS: a chunk inside the input is one load) or
// as cells (CELLS: one load each). CHUNKS runs faster, CELLS compiles faster: 3x3 at stride 1 and
// 5x5 take chunks, 3x3 at stride 2 cells, its rows of chunks unrolled took PoCL 1.0 s to compile
// against 0.45 s (docs/benchmarks.md, issue #27's depthwise round). The rows of a 5x5 stay a loop
// for the same reason (unrolled, 1.5-2.0 s against 0.6-0.7 s). Against a float4 per output, the
// same numbers bit for bit, 0.5-0.8x the depthwise time on MobileNetV2, PoCL and Intel.
#define DW_ROW_X_BLOCK 8
// Chunk of a row: four neighbouring cells from column x on as one float16, a cell outside [0, W)
// read as zero (a chunk wholly inside is one load: unaligned, as a float16 pointer at a cell is).
#ifdef HALF_STORAGE
#define LOAD_CELLS4(p, i) (float16)(LOAD4(p, i), LOAD4(p, (i) + 1), LOAD4(p, (i) + 2), LOAD4(p, (i) + 3))
#else
typedef float16 __attribute__((aligned(16))) cells4_t;
#define LOAD_CELLS4(p, i) (*(__global const cells4_t*)((p) + 4 * (i)))
#endif
float4 cell_or_zero(__global const store_t* src, int row, int x, int W) {
  return x >= 0 && x < W ? LOAD4(src, row + x) : (float4)(0.0f);
}
float16 chunk_of_row(__global const store_t* src, int row, int x, int W) {
  if (x >= 0 && x + 4 <= W) return LOAD_CELLS4(src, row + x);
  return (float16)(cell_or_zero(src, row, x, W), cell_or_zero(src, row, x + 1, W),
                   cell_or_zero(src, row, x + 2, W), cell_or_zero(src, row, x + 3, W));
}
// A row held `held` (CHUNKS or CELLS): the type and number of its elements for a KxK window at
// STRIDE, element j loaded, and cell m (a constant once the loops are unrolled).
#define CHUNKS_TYPE float16
#define CHUNKS_COUNT(K, STRIDE) (((DW_ROW_X_BLOCK - 1) * (STRIDE) + (K) + 3) / 4)
#define CHUNKS_LOAD(src, row, left, j, W) chunk_of_row(src, row, (left) + 4 * (j), W)
#define QUARTER(v, r) ((r) == 0 ? (v).s0123 : (r) == 1 ? (v).s4567 : (r) == 2 ? (v).s89ab : (v).scdef)
#define CHUNKS_CELL(c, m) QUARTER(c[(m) / 4], (m) % 4)
#define CELLS_TYPE float4
#define CELLS_COUNT(K, STRIDE) ((DW_ROW_X_BLOCK - 1) * (STRIDE) + (K))
#define CELLS_LOAD(src, row, left, j, W) cell_or_zero(src, row, (left) + (j), W)
#define CELLS_CELL(c, m) c[m]
// The cells m, m + step, m + 2 step, m + 3 step of a row held `held`, as one float16.
#define CELLS_FROM(held, c, m, step) \
  (float16)(held##_CELL(c, m), held##_CELL(c, (m) + (step)), held##_CELL(c, (m) + 2 * (step)), held##_CELL(c, (m) + 3 * (step)))
// The depthwise sums of slice s (of S) for DW_ROW_X_BLOCK neighbouring outputs of row y, whose
// windows start at input column `left`, four outputs a float16 in d[]: the bias, then each filter
// row's products summed and added. `top`: the padding above.
#define DW_ROW_SUMS(d, src, sd, w, bias, b, s, S, y, top, left, K, STRIDE, rows, held)              \
  {                                                                                                  \
    float4 b4 = LOAD4(bias, s);                                                                      \
    _Pragma("unroll") for (int q = 0; q < DW_ROW_X_BLOCK / 4; q++) d[q] = (float16)(b4, b4, b4, b4); \
    rows for (int ky = 0; ky < (K); ky++) {                                                         \
      int iy = (y) * (STRIDE) - (top) + ky;                                                          \
      if (iy < 0 || iy >= (sd).y) continue;                                                          \
      int row = CELL(b, s, iy, 0, S, (sd).y, (sd).z);                                                \
      held##_TYPE c[held##_COUNT(K, STRIDE)];                                                        \
      float16 wk[K];                                                                                 \
      _Pragma("unroll") for (int j = 0; j < held##_COUNT(K, STRIDE); j++)                           \
        c[j] = held##_LOAD(src, row, left, j, (sd).z);                                               \
      _Pragma("unroll") for (int kx = 0; kx < (K); kx++) {                                          \
        float4 w4 = LOAD4(w, (ky * (K) + kx) * (S) + (s));                                           \
        wk[kx] = (float16)(w4, w4, w4, w4);                                                          \
      }                                                                                              \
      _Pragma("unroll") for (int q = 0; q < DW_ROW_X_BLOCK / 4; q++) {                              \
        float16 sum = CELLS_FROM(held, c, 4 * q * (STRIDE), STRIDE) * wk[0];                         \
        _Pragma("unroll") for (int kx = 1; kx < (K); kx++)                                          \
          sum += CELLS_FROM(held, c, 4 * q * (STRIDE) + kx, STRIDE) * wk[kx];                        \
        d[q] += sum;                                                                                 \
      }                                                                                              \
    }                                                                                                \
  }
#define DEPTHWISE_ROW_KERNEL(name, K, STRIDE, rows, held)                                            \
  __kernel void name(__global const store_t* src, int4 sd, __global const store_t* w,                \
                     __global const store_t* bias, __global store_t* dst, int4 od, int2 p,           \
                     int act EPILOGUE_PARAMS) {                                                      \
    int x0 = get_global_id(0) * DW_ROW_X_BLOCK, y = get_global_id(1), bs = get_global_id(2);        \
    int S = (od.w + 3) / 4, b = bs / S, s = bs % S, left = x0 * (STRIDE) - p.y;                     \
    if (x0 >= od.z || y >= od.y) return;                                                             \
    float16 acc[DW_ROW_X_BLOCK / 4];                                                                 \
    DW_ROW_SUMS(acc, src, sd, w, bias, b, s, S, y, p.x, left, K, STRIDE, rows, held);               \
    _Pragma("unroll") for (int q = 0; q < DW_ROW_X_BLOCK / 4; q++) {                                \
      float4 out[4] = {acc[q].s0123, acc[q].s4567, acc[q].s89ab, acc[q].scdef};                      \
      for (int i = 0; i < 4 && x0 + 4 * q + i < od.z; i++)                                           \
        STORE_CELL(dst, od, b, s, y, x0 + 4 * q + i, activate(out[i], act));                         \
    }                                                                                                \
  }
DEPTHWISE_ROW_KERNEL(depthwise_conv3x3_s1, 3, 1, UNROLL, CHUNKS)
DEPTHWISE_ROW_KERNEL(depthwise_conv5x5_s1, 5, 1, KEEP_LOOP, CHUNKS)
DEPTHWISE_ROW_KERNEL(depthwise_conv3x3_s2, 3, 2, UNROLL, CELLS)
DEPTHWISE_ROW_KERNEL(depthwise_conv5x5_s2, 5, 2, KEEP_LOOP, CHUNKS)

// A DEPTHWISE_CONV_2D (multiplier 1, any window) and the 1x1 CONV_2D reading its output in one
// kernel, where the delegate merges them (opencl/fusion.py depthwise_plus_1x1: at most 16 depthwise
// channels and 32 outputs) and, in fp32, where the executor does (depthwise_into_1x1: at most 32
// outputs, any channels), for the windows the row kernels do not take: each depthwise cell is computed, activated with the depthwise op's
// activation (the delegate's ReLU node between the two) and multiplied into the 1x1 conv's blocked
// accumulators straight away; the intermediate tensor is never stored (in fp16 not rounded to
// half either). DW_X_BLOCK outputs along x per work-item: global size (ceil(W / DW_X_BLOCK), H,
// B * G), G = ceil(S_out / 4). dw: filter [KH, KW, S_in] float4 and bias as depthwise_conv2d,
// k and p as there; pw: pack_blocked's layout and bias as pointwise_conv2d.
__kernel void depthwise_pointwise(__global const store_t* src, int4 sd, __global const store_t* dw,
                                  __global const store_t* dw_bias, int4 k, int4 p, int dw_act,
                                  __global const store_t* w, __global const store_t* bias,
                                  __global store_t* dst, int4 od, int act EPILOGUE_PARAMS) {
  int x0 = get_global_id(0) * DW_X_BLOCK, y = get_global_id(1), bg = get_global_id(2);
  int G = (od.w + 15) / 16, b = bg / G, g = bg % G, SI = (sd.w + 3) / 4;
  if (x0 >= od.z) return;
  float16 acc[DW_X_BLOCK];
  _Pragma("unroll") for (int i = 0; i < DW_X_BLOCK; i++) acc[i] = LOAD16(bias, g);
  for (int si = 0; si < SI; si++) {
    float4 cell[DW_X_BLOCK];
    DEPTHWISE_TAPS(cell, src, sd, dw, dw_bias, b, si, SI, y, x0, k, p);
    LOAD_BLOCK16(w, (g * SI + si) * 4);
    _Pragma("unroll") for (int i = 0; i < DW_X_BLOCK; i++) {
      float4 v = activate(cell[i], dw_act);
      MAC_BLOCK16(acc[i], v);
    }
  }
  for (int i = 0; i < DW_X_BLOCK && x0 + i < od.z; i++) {
    int x = x0 + i;
    STORE_BLOCK16(dst, od, b, g, y, x, CELL(b, g * 4, y, x, (od.w + 3) / 4, od.y, od.z), acc[i], act);
  }
}

// depthwise_pointwise with the depthwise sums of the row kernels (DW_ROW_SUMS; KxK at stride 1 or
// 2, dilation 1): DW_ROW_X_BLOCK outputs along x per work-item, global size (ceil(W /
// DW_ROW_X_BLOCK), H, B * G); p = (pad_top, pad_left), the rest as depthwise_pointwise. Each input
// slice's depthwise sums are those the row kernel would store, in the same order, so in fp32 the
// outputs are the two kernels' bit for bit; against depthwise_pointwise's sums of one tap at a
// time, 0.85x the time of MobileNetV2's six merged pairs on PoCL, 0.73x on Intel's runtime. The
// filter rows stay a loop: unrolled, a 3x3 kernel took PoCL 0.56 s to compile against 0.38 s and
// ran no faster (docs/benchmarks.md).
#define DEPTHWISE_POINTWISE_ROW_KERNEL(name, K, STRIDE, held)                                        \
  __kernel void name(__global const store_t* src, int4 sd, __global const store_t* dw,               \
                     __global const store_t* dw_bias, int2 p, int dw_act, __global const store_t* w, \
                     __global const store_t* bias, __global store_t* dst, int4 od, int act EPILOGUE_PARAMS) { \
    int x0 = get_global_id(0) * DW_ROW_X_BLOCK, y = get_global_id(1), bg = get_global_id(2);        \
    int G = (od.w + 15) / 16, b = bg / G, g = bg % G, SI = (sd.w + 3) / 4, left = x0 * (STRIDE) - p.y; \
    if (x0 >= od.z || y >= od.y) return;                                                             \
    float16 acc[DW_ROW_X_BLOCK];                                                                     \
    _Pragma("unroll") for (int i = 0; i < DW_ROW_X_BLOCK; i++) acc[i] = LOAD16(bias, g);            \
    for (int si = 0; si < SI; si++) {                                                                \
      float16 d[DW_ROW_X_BLOCK / 4];                                                                 \
      DW_ROW_SUMS(d, src, sd, dw, dw_bias, b, si, SI, y, p.x, left, K, STRIDE, KEEP_LOOP, held);    \
      LOAD_BLOCK16(w, (g * SI + si) * 4);                                                            \
      _Pragma("unroll") for (int i = 0; i < DW_ROW_X_BLOCK; i++) {                                  \
        float4 v = activate(QUARTER(d[i / 4], i % 4), dw_act);                                       \
        MAC_BLOCK16(acc[i], v);                                                                      \
      }                                                                                              \
    }                                                                                                \
    for (int i = 0; i < DW_ROW_X_BLOCK && x0 + i < od.z; i++) {                                      \
      int x = x0 + i;                                                                                \
      STORE_BLOCK16(dst, od, b, g, y, x, CELL(b, g * 4, y, x, (od.w + 3) / 4, od.y, od.z), acc[i], act); \
    }                                                                                                \
  }
DEPTHWISE_POINTWISE_ROW_KERNEL(depthwise_pointwise3x3_s1, 3, 1, CHUNKS)
DEPTHWISE_POINTWISE_ROW_KERNEL(depthwise_pointwise5x5_s1, 5, 1, CHUNKS)
DEPTHWISE_POINTWISE_ROW_KERNEL(depthwise_pointwise3x3_s2, 3, 2, CELLS)
DEPTHWISE_POINTWISE_ROW_KERNEL(depthwise_pointwise5x5_s2, 5, 2, CHUNKS)

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
