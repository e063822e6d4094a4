// Elementwise ops, one work-item per float4 cell: global size (W, H, B * S) of the output.
// `fn` numbers the operation (opencl/ops/elementwise.py keeps the table).

float4 unary(float4 v, int fn, float alpha) {
  switch (fn) {
    case 0: return v;                                         // identity (CAST float->float, DEQUANTIZE)
    case 1: return fabs(v);
    case 2: return cos(v);
    case 3: return sin(v);
    case 4: return exp(v);
    case 5: return log(v);
    case 6: return -v;
    case 7: return rsqrt(v);
    case 8: return sqrt(v);
    case 9: return v * v;
    case 10: return tanh(v);
    case 11: return 1.0f / (1.0f + exp(-v));                  // LOGISTIC
    case 12: return fmax(v, 0.0f);                            // RELU
    case 13: return clamp(v, 0.0f, 6.0f);                     // RELU6
    case 14: return clamp(v, -1.0f, 1.0f);                    // RELU_N1_TO_1
    case 15: return clamp(v, 0.0f, 1.0f);                     // RELU_0_TO_1
    case 16: return select(v, exp(v) - 1.0f, v < 0.0f);       // ELU
    case 17: return v * clamp(v + 3.0f, 0.0f, 6.0f) / 6.0f;   // HARD_SWISH
    case 18: return select(v, v * alpha, v < 0.0f);           // LEAKY_RELU
    case 19: return floor(v);
    case 20: return sign(v);
    case 21: return 0.5f * v * (1.0f + erf(v * 0.70710678f)); // GELU (exact)
    case 22: return trunc(v);                                 // CAST float->int
    case 23: return select((float4)(0.0f), (float4)(1.0f), v != 0.0f);  // CAST ->bool
    case 24: return ceil(v);
    case 25: return (float4)(1.0f) - v;                       // LOGICAL_NOT on 0/1
    default: return v;
  }
}

float4 binary(float4 a, float4 b, int fn) {
  switch (fn) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return pow(a, b);
    case 5: return fmax(a, b);
    case 6: return fmin(a, b);
    case 7: return (a - b) * (a - b);                          // SQUARED_DIFFERENCE
    case 8: return floor(a / b);                               // FLOOR_DIV
    case 9: return a - floor(a / b) * b;                       // FLOOR_MOD
    case 10: return select((float4)(0.0f), (float4)(1.0f), a > b);
    case 11: return select((float4)(0.0f), (float4)(1.0f), a >= b);
    case 12: return select((float4)(0.0f), (float4)(1.0f), a < b);
    case 13: return select((float4)(0.0f), (float4)(1.0f), a <= b);
    case 14: return select((float4)(0.0f), (float4)(1.0f), a == b);
    case 15: return select((float4)(0.0f), (float4)(1.0f), a != b);
    case 16: return select((float4)(0.0f), (float4)(1.0f), a != 0.0f && b != 0.0f);   // LOGICAL_AND
    case 17: return select((float4)(0.0f), (float4)(1.0f), a != 0.0f || b != 0.0f);   // LOGICAL_OR
    case 18: return select(a, a * b, a < 0.0f);                 // PRELU (b = alpha)
    default: return a;
  }
}

__kernel void unary_op(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                       int fn, float alpha, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 v = read_broadcast(src, sd, b, s, y, x);
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), activate(unary(v, fn, alpha), act));
}

__kernel void binary_op(__global const store_t* a, int4 ad, __global const store_t* b_, int4 bd,
                        __global store_t* dst, int4 od, int fn, int act) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 v = binary(read_broadcast(a, ad, b, s, y, x), read_broadcast(b_, bd, b, s, y, x), fn);
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), activate(v, act));
}

// SELECT_V2: cond ? t : e, each broadcast to the output.
__kernel void select_op(__global const store_t* c, int4 cd, __global const store_t* t, int4 td,
                        __global const store_t* e, int4 ed, __global store_t* dst, int4 od) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 cv = read_broadcast(c, cd, b, s, y, x);
  float4 v = select(read_broadcast(e, ed, b, s, y, x), read_broadcast(t, td, b, s, y, x), cv != 0.0f);
  STORE4(dst, CELL(b, s, y, x, S, od.y, od.z), v);
}

// The delegate's QUANTIZE_AND_DEQUANTIZE after every op with a fixed-point output
// (common/transformations/add_quant_adjustments.h): round to the quantized grid and back.
__kernel void quantize_dequantize(__global store_t* t, int cells, float scale, float zero_point,
                                  float qmin, float qmax) {
  int i = get_global_id(0);
  if (i >= cells) return;
  float4 q = clamp(rint(LOAD4(t, i) / scale) + zero_point, qmin, qmax);
  STORE4(t, i, (q - zero_point) * scale);
}
