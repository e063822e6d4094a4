// The linkable elementwise math: the one- and two-input ops that elementwise.cl runs as kernels and
// that fusion (opencl/fusion.py) links into a producer's kernel as its epilogue. `fn` numbers the
// operation (opencl/ops/elementwise.py keeps the table).

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
    case 26: return rint(v);                                  // ROUND: half to even, as kernels/round.cc
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
    case 19: return atan2(a, b);                               // ATAN2
    default: return a;
  }
}
