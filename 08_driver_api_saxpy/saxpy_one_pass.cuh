// Lesson 08, the second kernel text: the same SAXPY in one pass, at the copy's limit.
//
// Teaches: what lessons 01 and 02 found closes the last few percent to a device copy, applied
// to the text NVRTC compiles. saxpy (saxpy_kernel.cuh, the lesson's first step) loops: each
// thread's trips are serial (load, wait, compute, store, next trip) and the loop's 64-bit
// bookkeeping runs between them. Here there is no loop: the grid covers the array once, each
// block owning a tile of SAXPY_VECTORS x blockDim.x float4 groups; each thread issues its
// SAXPY_VECTORS loads of x and of y back to back (all in flight before the first is used),
// computes, stores and exits, and the block scheduler hands the next tile to whichever SM has
// room. Any 4-byte-aligned x, y and out work: the launcher passes `head`, the elements before
// the first 16-byte boundary (the same for all three, or the launcher sends every element down
// the scalar path: head = n, vectors = 0), and the grid's first threads do the scalar ends.
//
// Like saxpy_kernel.cuh: no #include, extern "C", fixed-size parameters; nvcc compiles this text
// for the runtime row (saxpy_runtime.cu) and NVRTC for the driver rows, both with --fmad=false.

#ifndef SAXPY_VECTORS
#define SAXPY_VECTORS 2  // float4 groups of x and of y per thread (saxpy::kOnePassVectors)
#endif

// [docs:saxpy_one_pass]
extern "C" __global__ void saxpy_one_pass(float a, const float* __restrict__ x, const float* __restrict__ y,
                                          float* __restrict__ out, unsigned long long n, unsigned long long head,
                                          unsigned long long vectors) {
  const float4* x4 = reinterpret_cast<const float4*>(x + head);  // 16-byte aligned from here on
  const float4* y4 = reinterpret_cast<const float4*>(y + head);
  float4* out4 = reinterpret_cast<float4*>(out + head);
  const unsigned long long tile = static_cast<unsigned long long>(blockIdx.x) * SAXPY_VECTORS * blockDim.x;
  float4 xs[SAXPY_VECTORS], ys[SAXPY_VECTORS];
#pragma unroll
  for (int k = 0; k < SAXPY_VECTORS; ++k) {  // all loads first: 2 x SAXPY_VECTORS x 16 bytes in flight
    const unsigned long long i = tile + k * blockDim.x + threadIdx.x;
    if (i < vectors) {
      xs[k] = x4[i];
      ys[k] = y4[i];
    }
  }
#pragma unroll
  for (int k = 0; k < SAXPY_VECTORS; ++k) {
    const unsigned long long i = tile + k * blockDim.x + threadIdx.x;
    if (i < vectors) {
      float4 r;
      r.x = a * xs[k].x + ys[k].x;
      r.y = a * xs[k].y + ys[k].y;
      r.z = a * xs[k].z + ys[k].z;
      r.w = a * xs[k].w + ys[k].w;
      out4[i] = r;
    }
  }
  // The scalar ends: the head, and what follows the last whole float4 (at most 3 + 3 elements,
  // one per thread of the first threads; the loop only turns when every element is scalar).
  const unsigned long long tail = head + 4 * vectors;
  const unsigned long long ends = head + (n - tail);
  const unsigned long long threads = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long e = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < ends;
       e += threads) {
    const unsigned long long i = e < head ? e : tail + (e - head);
    out[i] = a * x[i] + y[i];
  }
}
// [docs:end saxpy_one_pass]
