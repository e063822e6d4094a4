// Elementwise ops, one work-item per float4 cell: global size (W, H, B * S) of the output.
// The operations themselves are in linked.cl.

__kernel void unary_op(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                       int fn, float alpha, int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 v = read_broadcast(src, sd, b, s, y, x);
  STORE_CELL(dst, od, b, s, y, x, activate(unary(v, fn, alpha), act));
}

__kernel void binary_op(__global const store_t* a, int4 ad, __global const store_t* b_, int4 bd,
                        __global store_t* dst, int4 od, int fn, int act EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 v = binary(read_broadcast(a, ad, b, s, y, x), read_broadcast(b_, bd, b, s, y, x), fn);
  STORE_CELL(dst, od, b, s, y, x, activate(v, act));
}

// SELECT_V2: cond ? t : e, each broadcast to the output.
__kernel void select_op(__global const store_t* c, int4 cd, __global const store_t* t, int4 td,
                        __global const store_t* e, int4 ed, __global store_t* dst, int4 od EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float4 cv = read_broadcast(c, cd, b, s, y, x);
  float4 v = select(read_broadcast(e, ed, b, s, y, x), read_broadcast(t, td, b, s, y, x), cv != 0.0f);
  STORE_CELL(dst, od, b, s, y, x, v);
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
