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

// Gate k (input 0, cell 1, forget 2, output 3) of unit n before its activation: the gate's sum at
// channel k * gate_stride + n plus its peephole term, peep[p * U + n] times the cell value c, where p is
// the peephole slot (input 0, forget 1, output 2); the cell gate has none.
float gate_sum(__global const store_t* gates, int4 gd, int b, int k, int n, int gate_stride,
               __global const store_t* peep, int units, float c) {
  int slot = k == 0 ? 0 : k == 2 ? 1 : k == 3 ? 2 : -1;
  float peephole = slot < 0 ? 0.0f : LOAD1(peep, slot * units + n) * c;
  return gate_at(gates, gd, b, k * gate_stride + n) + peephole;
}

// The new cell value from the activated forget gate, the input gate's sum (unused with CIFG: the input
// gate is then 1 - forget) and the cell gate's sum: input * tanh(cell) + forget * c, clamped to
// +-cell_clip when cell_clip > 0.
float cell_update(float forget, float input_sum, float cell_sum, float c, int cifg, float cell_clip) {
  float input = cifg ? 1.0f - forget : sigmoid(input_sum);
  float cell = input * tanh(cell_sum) + forget * c;
  return cell_clip > 0.0f ? clamp(cell, -cell_clip, cell_clip) : cell;
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
  float forget = sigmoid(gate_sum(gates, gd, b, 2, n, gate_stride, peep, sd.w, c));
  float cell = cell_update(forget, gate_sum(gates, gd, b, 0, n, gate_stride, peep, sd.w, c),
                           gate_sum(gates, gd, b, 1, n, gate_stride, peep, sd.w, c), c, cifg, cell_clip);
  float output = sigmoid(gate_sum(gates, gd, b, 3, n, gate_stride, peep, sd.w, cell));
  STORE1(c_new, ROW_AT(sd, b, n), cell);
  STORE1(h, ROW_AT(sd, b, n), output * tanh(cell));
}

// (mean, 1 / sqrt(variance + 1e-8)) of gate k's sums (gate_sum, cell values from c) over the U units of
// row b, in two passes: the delegate's MEAN_STDDEV_NORMALIZATION (tasks/mean_stddev_normalization.cc,
// two_step, variance_bias 1e-8 by default), as kernels/lstm_eval.cc's MeanStddevNormalization.
float2 gate_moments(__global const store_t* gates, int4 gd, int b, int k, __global const store_t* peep,
                    __global const store_t* c, int4 sd) {
  float sum = 0.0f, squares = 0.0f;
  for (int m = 0; m < sd.w; m++) sum += gate_sum(gates, gd, b, k, m, sd.w, peep, sd.w, LOAD1(c, ROW_AT(sd, b, m)));
  float mean = sum / sd.w;
  for (int m = 0; m < sd.w; m++) {
    float d = gate_sum(gates, gd, b, k, m, sd.w, peep, sd.w, LOAD1(c, ROW_AT(sd, b, m))) - mean;
    squares += d * d;
  }
  return (float2)(mean, rsqrt(squares / sd.w + 1e-8f));
}

// Gate k of unit n with layer normalization, before its activation: the sum normalized by the gate's
// moments, times the gate's coefficient, plus its bias (common/lstm_parser.cc BuildLstmGate: the
// bias comes after the normalization). coef and bias [4U] in lstm_cell's gate order.
float normalized_gate(__global const store_t* gates, int4 gd, int b, int k, int n, __global const store_t* peep,
                      float c, float2 moments, __global const store_t* coef, __global const store_t* bias, int units) {
  float sum = gate_sum(gates, gd, b, k, n, units, peep, units, c);
  return (sum - moments.x) * moments.y * LOAD1(coef, k * units + n) + LOAD1(bias, k * units + n);
}

// lstm_cell for the full kernel with layer normalization; gates [B, 4U] without biases. Every gate is
// normalized over the units, and the output gate's peephole reads the new cell state, so one work-item
// does a whole row b: the moments of the input, cell and forget gates over the old state, the new state
// (written over the old one, unit by unit), then the output gate's moments over it and the output.
__kernel void lstm_cell_normalized(__global const store_t* gates, int4 gd, __global store_t* c_state,
                                   __global store_t* h, int4 sd, __global const store_t* peep,
                                   __global const store_t* coef, __global const store_t* bias, int cifg,
                                   float cell_clip) {
  int b = get_global_id(0), units = sd.w;
  float2 input_m = cifg ? (float2)(0.0f, 0.0f) : gate_moments(gates, gd, b, 0, peep, c_state, sd);
  float2 cell_m = gate_moments(gates, gd, b, 1, peep, c_state, sd);
  float2 forget_m = gate_moments(gates, gd, b, 2, peep, c_state, sd);
  for (int n = 0; n < units; n++) {
    float c = LOAD1(c_state, ROW_AT(sd, b, n));
    float forget = sigmoid(normalized_gate(gates, gd, b, 2, n, peep, c, forget_m, coef, bias, units));
    float input_sum = cifg ? 0.0f : normalized_gate(gates, gd, b, 0, n, peep, c, input_m, coef, bias, units);
    float cell_sum = normalized_gate(gates, gd, b, 1, n, peep, c, cell_m, coef, bias, units);
    STORE1(c_state, ROW_AT(sd, b, n), cell_update(forget, input_sum, cell_sum, c, cifg, cell_clip));
  }
  float2 output_m = gate_moments(gates, gd, b, 3, peep, c_state, sd);
  for (int n = 0; n < units; n++) {
    float cell = LOAD1(c_state, ROW_AT(sd, b, n));
    float output = sigmoid(normalized_gate(gates, gd, b, 3, n, peep, cell, output_m, coef, bias, units));
    STORE1(h, ROW_AT(sd, b, n), output * tanh(cell));
  }
}
