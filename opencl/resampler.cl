// The Resampler custom op (TF Addons' tfa.image.resampler), as the delegate runs it
// (common/tasks/resampler.cc): output (b, y, x) samples the source bilinearly at the point
// (warp[b, y, x, 0], warp[b, y, x, 1]) = (source x, source y); each of the four neighbouring
// pixels that lies outside the source reads as zero. One work-item per output float4 cell:
// global size (W, H, B * S) of the output.

float4 source_cell(__global const store_t* src, int4 sd, int b, int s, int y, int x) {
  bool inside = x >= 0 && x < sd.z && y >= 0 && y < sd.y;
  return inside ? LOAD4(src, CELL(b, s, y, x, (sd.w + 3) / 4, sd.y, sd.z)) : (float4)(0.0f);
}

__kernel void resampler(__global const store_t* src, int4 sd, __global const store_t* warp, int4 wd,
                        __global store_t* dst, int4 od) {
  int x = get_global_id(0), y = get_global_id(1), bs = get_global_id(2);
  int S = (od.w + 3) / 4, b = bs / S, s = bs % S;
  float2 point = (float2)(AT(warp, wd, b, y, x, 0), AT(warp, wd, b, y, x, 1));
  float2 corner = floor(point);
  float2 t = point - corner;
  int x0 = (int)corner.x, y0 = (int)corner.y;
  float4 top = mix(source_cell(src, sd, b, s, y0, x0), source_cell(src, sd, b, s, y0, x0 + 1), t.x);
  float4 bottom = mix(source_cell(src, sd, b, s, y0 + 1, x0), source_cell(src, sd, b, s, y0 + 1, x0 + 1), t.x);
  STORE_CELL(dst, od, b, s, y, x, mix(top, bottom, t.y));
}
