// LSTM (opencl/ops/lstm.py) as the delegate composes it: fully connected gates over the
// concatenation [input, previous output], then the cell update (common/lstm_parser.cc for the
// full kernel, model_builder.cc LSTMOperationParser::ParseBasic and tasks/lstm.cc for the basic
// one). Every tensor is [B, n], BHWC (B, 1, 1, n); one work-item per output float, global size (n, B).

// Float index of element (b, k) of a [B, n] tensor with BHWC dims d.
#define ROW_AT(d, b, k) (CELL((b), (k) / 4, 0, 0, ((d).w + 3) / 4, 1, 1) * 4 + (k) % 4)

// [a, h]: the concatenation of a [B, widths.x] and h [B, widths.y] along the last axis.
float pair_at(__global const store_t* a, int4 ad, __global const store_t* h, int4 hd, int2 widths, int b, int k) {
  return k < widths.x ? LOAD1(a, ROW_AT(ad, b, k)) : LOAD1(h, ROW_AT(hd, b, k - widths.x));
}

__kernel void concat_pair(__global const store_t* a, int4 ad, __global const store_t* h, int4 hd, int2 widths,
                          __global store_t* dst, int4 od) {
  int k = get_global_id(0), b = get_global_id(1);
  STORE1(dst, ROW_AT(od, b, k), pair_at(a, ad, h, hd, widths, b, k));
}

// dst[b, r] = bias[r] + sum_k w[r, k] * [a, h][b, k] (w row-major [n, widths.x + widths.y]; h may
// be empty), clamped to [-clip, clip] when clip > 0.
__kernel void dense_pair(__global const store_t* a, int4 ad, __global const store_t* h, int4 hd, int2 widths,
                         __global const store_t* w, __global const store_t* bias, __global store_t* dst, int4 od,
                         float clip) {
  int r = get_global_id(0), b = get_global_id(1);
  int depth = widths.x + widths.y;
  float acc = LOAD1(bias, r);
  for (int k = 0; k < depth; k++) acc += LOAD1(w, r * depth + k) * pair_at(a, ad, h, hd, widths, b, k);
  STORE1(dst, ROW_AT(od, b, r), clip > 0.0f ? clamp(acc, -clip, clip) : acc);
}

float sigmoid(float v) { return 1.0f / (1.0f + exp(-v)); }

// Gate value at channel ch of row b of gates [B, 4U]; channels past the tensor read as 0, as the
// accelerator's bounds-checked reads of slices past the tensor do (seen on LiteRT's GPU accelerator;
// tests/test_executor_lstm_device.py).
float gate_at(__global const store_t* gates, int4 gd, int b, int ch) {
  return ch < gd.w ? LOAD1(gates, ROW_AT(gd, b, ch)) : 0.0f;
}

// The cell update for unit n of batch b. gates [B, 4U]: pre-activations with biases, in the basic
// kernel's order (input, cell, forget, output), gate k of unit n at channel k * gate_stride + n.
// gate_stride is U for the full kernel; for the basic kernel it is the delegate's slice stride,
// 4 * ceil(U / 4) channels (tasks/lstm.cc reads gate k at slice Z + k * activation.Slices()), so
// with U % 4 != 0 the gates come from the wrong channels, and the last ones from past the end.
// c_prev and c_new [B, U] may be one buffer (each work-item reads its element before writing it).
// peep [3U]: peephole weights (input, forget, output), zeros without them. cifg: the input gate is
// 1 - forget gate. cell_clip > 0 clamps the new state. The cell gate and the output use tanh (the
// only activation the schema can express besides the ones the delegate refuses).
__kernel void lstm_cell(__global const store_t* gates, int4 gd, __global const store_t* c_prev,
                        __global store_t* c_new, __global store_t* h, int4 sd, __global const store_t* peep,
                        int cifg, float cell_clip, int gate_stride) {
  int n = get_global_id(0), b = get_global_id(1);
  float c = LOAD1(c_prev, ROW_AT(sd, b, n));
  float forget = sigmoid(gate_at(gates, gd, b, 2 * gate_stride + n) + LOAD1(peep, sd.w + n) * c);
  float input = cifg ? 1.0f - forget : sigmoid(gate_at(gates, gd, b, n) + LOAD1(peep, n) * c);
  float cell = input * tanh(gate_at(gates, gd, b, gate_stride + n)) + forget * c;
  if (cell_clip > 0.0f) cell = clamp(cell, -cell_clip, cell_clip);
  float output = sigmoid(gate_at(gates, gd, b, 3 * gate_stride + n) + LOAD1(peep, 2 * sd.w + n) * cell);
  STORE1(c_new, ROW_AT(sd, b, n), cell);
  STORE1(h, ROW_AT(sd, b, n), output * tanh(cell));
}
