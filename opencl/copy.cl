// Data movement as index maps (built on the host at load time from the op's parameters):
// every output float reads the input float at map[i], or `fill` where map[i] is -1 (PAD's
// padding), or zero where it is -2 (the layout's padding lanes).
// RESHAPE, TRANSPOSE, SLICE, STRIDED_SLICE, PAD, MIRROR_PAD, TILE, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
// GATHER, SPLIT and UNPACK use `gather`; CONCATENATION and PACK `scatter` each input into place.

__kernel void gather(__global const store_t* src, __global const int* map, __global store_t* dst,
                     int n, float fill) {
  int i = get_global_id(0);
  if (i >= n) return;
  int j = map[i];
  STORE1(dst, i, j >= 0 ? LOAD1(src, j) : j == -1 ? fill : 0.0f);
}

__kernel void scatter(__global const store_t* src, __global const int* map, __global store_t* dst, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int j = map[i];
  if (j >= 0) STORE1(dst, j, LOAD1(src, i));
}
