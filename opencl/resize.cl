// 2-D resizing, one work-item per output float4 cell: global size (W, H, B * S).
// scale = (in / out per axis, or (in - 1) / (out - 1) with align_corners); flags = (align_corners,
// half_pixel_centers). Coordinates follow TFLite's reference kernels
// (kernels/internal/reference/resize_bilinear.h, resize_nearest_neighbor.h).

__kernel void resize_bilinear(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                              float2 scale, int2 flags EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float fy = flags.y ? ((float)y + 0.5f) * scale.x - 0.5f : (float)y * scale.x;
  float fx = flags.y ? ((float)x + 0.5f) * scale.y - 0.5f : (float)x * scale.y;
  // floor / ceil / min / max as conditionals (calls on PoCL: conv.cl). fy, fx >= -0.5, so the
  // truncation is floor wherever the clamp to 0 does not decide.
  int ty = (int)fy, tx = (int)fx;
  int y0 = fy > 0.0f ? ty : 0, x0 = fx > 0.0f ? tx : 0;
  int y1 = ty + ((float)ty < fy ? 1 : 0), x1 = tx + ((float)tx < fx ? 1 : 0);
  y1 = y1 < sd.y - 1 ? y1 : sd.y - 1;
  x1 = x1 < sd.z - 1 ? x1 : sd.z - 1;
  float dy = fy - (float)y0, dx = fx - (float)x0;
  float4 v = LOAD4(src, CELL(b, s, y0, x0, S, sd.y, sd.z)) * (1.0f - dy) * (1.0f - dx)
           + LOAD4(src, CELL(b, s, y1, x0, S, sd.y, sd.z)) * dy * (1.0f - dx)
           + LOAD4(src, CELL(b, s, y0, x1, S, sd.y, sd.z)) * (1.0f - dy) * dx
           + LOAD4(src, CELL(b, s, y1, x1, S, sd.y, sd.z)) * dy * dx;
  STORE_CELL(dst, od, b, s, y, x, v);
}

int nearest(int i, float scale, int size, int2 flags) {
  float offset = flags.y ? 0.5f : 0.0f;
  float f = ((float)i + offset) * scale;
  int j = min(flags.x ? (int)round(f) : (int)floor(f), size - 1);
  return flags.y ? max(j, 0) : j;
}

__kernel void resize_nearest(__global const store_t* src, int4 sd, __global store_t* dst, int4 od,
                             float2 scale, int2 flags EPILOGUE_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  int iy = nearest(y, scale.x, sd.y, flags), ix = nearest(x, scale.y, sd.z, flags);
  STORE_CELL(dst, od, b, s, y, x, LOAD4(src, CELL(b, s, iy, ix, S, sd.y, sd.z)));
}
