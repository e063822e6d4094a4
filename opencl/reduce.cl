// Reductions over any set of BHWC axes, one work-item per output element (b, y, x, c) of the
// keep-dims output: global size (W, H, B * C). `axes` flags the reduced dimensions (B, H, W, C).
// op: 0 sum, 1 mean, 2 max, 3 min, 4 product, 5 arg max (one reduced axis: the position of the first
// largest value along it, stored as a float: exact up to 2^24 in fp32 storage, 2048 in fp16).

__kernel void reduce(__global const store_t* src, int4 sd, __global store_t* dst, int4 od, int4 axes, int op) {
  int x = get_global_id(0), y = get_global_id(1), bc = get_global_id(2);
  int b = bc / od.w, c = bc % od.w;
  int nb = axes.x ? sd.x : 1, nh = axes.y ? sd.y : 1, nw = axes.z ? sd.z : 1, nc = axes.w ? sd.w : 1;
  float acc = op == 2 || op == 5 ? -INFINITY : op == 3 ? INFINITY : op == 4 ? 1.0f : 0.0f;
  int at = 0, best = 0;
  for (int ib = 0; ib < nb; ib++)
    for (int iy = 0; iy < nh; iy++)
      for (int ix = 0; ix < nw; ix++)
        for (int ic = 0; ic < nc; ic++, at++) {
          float v = AT(src, sd, axes.x ? ib : b, axes.y ? iy : y, axes.z ? ix : x, axes.w ? ic : c);
          if (op == 5) {
            if (at == 0 || v > acc) { acc = v; best = at; }
            continue;
          }
          acc = op == 2 ? fmax(acc, v) : op == 3 ? fmin(acc, v) : op == 4 ? acc * v : acc + v;
        }
  if (op == 1) acc /= (float)(nb * nh * nw * nc);
  if (op == 5) acc = (float)best;
  STORE1(dst, CELL(b, c / 4, y, x, (od.w + 3) / 4, od.y, od.z) * 4 + c % 4, acc);
}

// SUM or MEAN (`mean` set) over H and W alone (a global average pool), one work-item per float4
// cell of the (B, 1, 1, C) output: global size (S, B). The sums of `reduce` in its order (row by
// row, each from 0.0f), four channels at a time: the same values in a few cells' time, where
// `reduce` spends a work-item and its index arithmetic on every channel.
__kernel void reduce_hw(__global const store_t* src, int4 sd, __global store_t* dst, int mean) {
  int s = get_global_id(0), b = get_global_id(1), S = (sd.w + 3) / 4, plane = sd.y * sd.z;
  int first = CELL(b, s, 0, 0, S, sd.y, sd.z);
  float4 acc = (float4)(0.0f);
  for (int i = 0; i < plane; i++) acc += LOAD4(src, first + i);
  if (mean) acc /= (float)plane;
  STORE4(dst, b * S + s, zero_padding(acc, s, sd.w));
}

// Softmax over channels, one work-item per pixel: global size (W, H, B). beta scales the logits.
__kernel void softmax(__global const store_t* src, __global store_t* dst, int4 d, float beta) {
  int x = get_global_id(0), y = get_global_id(1), b = get_global_id(2);
  float m = -INFINITY;
  for (int c = 0; c < d.w; c++) m = fmax(m, AT(src, d, b, y, x, c));
  float sum = 0.0f;
  for (int c = 0; c < d.w; c++) sum += exp((AT(src, d, b, y, x, c) - m) * beta);
  int S = (d.w + 3) / 4;
  for (int c = 0; c < d.w; c++)
    STORE1(dst, CELL(b, c / 4, y, x, S, d.y, d.z) * 4 + c % 4, exp((AT(src, d, b, y, x, c) - m) * beta) / sum);
}
