// The linkable elementwise math: the one- and two-input ops that elementwise.cl runs as kernels and
// that fusion (opencl/fusion.py) links into a producer's kernel as its epilogue. `fn` is a function's
// code: UNARY_* / BINARY_* are defined in front of every program from the one table,
// opencl/functions.py. A code without a case here yields NaN, so a function added to the table
// alone fails every comparison instead of computing the identity.

float4 unary(float4 v, int fn, float alpha) {
  switch (fn) {
    case UNARY_IDENTITY: return v;  // CAST float->float, DEQUANTIZE, QUANTIZE
    case UNARY_ABS: return fabs(v);
    case UNARY_COS: return cos(v);
    case UNARY_SIN: return sin(v);
    case UNARY_EXP: return exp(v);
    case UNARY_LOG: return log(v);
    case UNARY_NEG: return -v;
    case UNARY_RSQRT: return rsqrt(v);
    case UNARY_SQRT: return sqrt(v);
    case UNARY_SQUARE: return v * v;
    case UNARY_TANH: return tanh(v);
    case UNARY_LOGISTIC: return 1.0f / (1.0f + exp(-v));  // LOGISTIC
    case UNARY_RELU: return fmax(v, 0.0f);  // RELU
    case UNARY_RELU6: return clamp(v, 0.0f, 6.0f);  // RELU6
    case UNARY_RELU_N1_TO_1: return clamp(v, -1.0f, 1.0f);  // RELU_N1_TO_1
    case UNARY_RELU_0_TO_1: return clamp(v, 0.0f, 1.0f);  // RELU_0_TO_1
    case UNARY_ELU: return select(v, exp(v) - 1.0f, v < 0.0f);  // ELU
    case UNARY_HARD_SWISH: return v * clamp(v + 3.0f, 0.0f, 6.0f) / 6.0f;  // HARD_SWISH
    case UNARY_LEAKY_RELU: return select(v, v * alpha, v < 0.0f);  // LEAKY_RELU
    case UNARY_FLOOR: return floor(v);
    case UNARY_SIGN: return sign(v);
    case UNARY_GELU: return 0.5f * v * (1.0f + erf(v * 0.70710678f)); // GELU (exact)
    case UNARY_CAST_TO_INT: return trunc(v);  // CAST float->int
    case UNARY_CAST_TO_BOOL: return select((float4)(0.0f), (float4)(1.0f), v != 0.0f);  // CAST ->bool
    case UNARY_CEIL: return ceil(v);
    case UNARY_LOGICAL_NOT: return (float4)(1.0f) - v;  // LOGICAL_NOT on 0/1
    case UNARY_ROUND: return rint(v);  // ROUND: half to even, as kernels/round.cc
    default: return (float4)(NAN);  // a code without a case here
  }
}

float4 binary(float4 a, float4 b, int fn) {
  switch (fn) {
    case BINARY_ADD: return a + b;
    case BINARY_SUB: return a - b;
    case BINARY_MUL: return a * b;
    case BINARY_DIV: return a / b;
    case BINARY_POW: return pow(a, b);
    case BINARY_MAXIMUM: return fmax(a, b);
    case BINARY_MINIMUM: return fmin(a, b);
    case BINARY_SQUARED_DIFFERENCE: return (a - b) * (a - b);  // SQUARED_DIFFERENCE
    case BINARY_FLOOR_DIV: return floor(a / b);  // FLOOR_DIV
    case BINARY_FLOOR_MOD: return a - floor(a / b) * b;  // FLOOR_MOD
    case BINARY_GREATER: return select((float4)(0.0f), (float4)(1.0f), a > b);
    case BINARY_GREATER_EQUAL: return select((float4)(0.0f), (float4)(1.0f), a >= b);
    case BINARY_LESS: return select((float4)(0.0f), (float4)(1.0f), a < b);
    case BINARY_LESS_EQUAL: return select((float4)(0.0f), (float4)(1.0f), a <= b);
    case BINARY_EQUAL: return select((float4)(0.0f), (float4)(1.0f), a == b);
    case BINARY_NOT_EQUAL: return select((float4)(0.0f), (float4)(1.0f), a != b);
    case BINARY_LOGICAL_AND: return select((float4)(0.0f), (float4)(1.0f), a != 0.0f && b != 0.0f);  // LOGICAL_AND
    case BINARY_LOGICAL_OR: return select((float4)(0.0f), (float4)(1.0f), a != 0.0f || b != 0.0f);  // LOGICAL_OR
    case BINARY_PRELU: return select(a, a * b, a < 0.0f);  // PRELU (b = alpha)
    case BINARY_ATAN2: return atan2(a, b);  // ATAN2
    default: return (float4)(NAN);  // a code without a case here
  }
}
