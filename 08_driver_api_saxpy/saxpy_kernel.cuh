// Lesson 08, the kernel: out[i] = a * x[i] + y[i] (SAXPY), as source text.
//
// Teaches: one text, compiled two ways. nvcc compiles it ahead of time (saxpy_runtime.cu
// #includes this file and launches it with <<<>>>); NVRTC compiles it while the program runs
// (the build embeds this file as a string, see CMakeLists.txt). Both GPU rows of the lesson
// therefore run the same code, and a difference between them can only come from how it was
// compiled, loaded and launched.
//
// What the text does so that NVRTC can compile it on its own:
//  - no #include: NVRTC sees only this text. float4 and blockIdx are built into the compiler.
//  - extern "C": the kernel's symbol is its plain name "saxpy", so cuModuleGetFunction(...,
//    "saxpy") finds it. As a C++ function it would be mangled (_Z5saxpyfPKfS0_Pfy).
//  - parameters with fixed sizes (unsigned long long, not size_t): cuLaunchKernel copies each
//    argument's bytes from the pointer the host gives, as many as the kernel declares.
//
// How it reaches the copy bandwidth (lesson 02 measures the same ideas on c = a + b):
//  - 16-byte accesses: float4 loads and stores, a quarter of the instructions of floats;
//  - SAXPY_ILP groups of x and of y loaded per thread before any is used, all in flight at once;
//  - a grid-stride loop, so the launcher can size the grid to the GPU (a few waves of the
//    blocks that fit at once), and a scalar tail for the last n % 4 elements.
// x, y and out must be 16-byte aligned (cuMemAlloc and cudaMalloc return 256-byte aligned
// memory); the launchers check.
//
// Rounding: with --fmad=false (both compilers are given it) a * x + y is a multiply and an add,
// each rounded, like the CPU's; with contraction allowed it becomes one fused multiply-add.

#ifndef SAXPY_ILP
#define SAXPY_ILP 2  // the launchers pass -DSAXPY_ILP (saxpy::kIlp) to both compilers
#endif

// [docs:saxpy_kernel]
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, const float* __restrict__ y,
                                 float* __restrict__ out, unsigned long long n) {
  const unsigned long long thread = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long groups = n / 4;  // whole float4 groups; the tail is n % 4 elements

  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float4* y4 = reinterpret_cast<const float4*>(y);
  float4* out4 = reinterpret_cast<float4*>(out);
  unsigned long long v = thread;
  // Whole trips: all SAXPY_ILP groups of this trip exist. Every load is issued before the
  // first multiply, so they travel together.
  for (; v + (SAXPY_ILP - 1) * stride < groups; v += SAXPY_ILP * stride) {
    float4 xs[SAXPY_ILP], ys[SAXPY_ILP];
#pragma unroll
    for (int k = 0; k < SAXPY_ILP; ++k) {
      xs[k] = x4[v + k * stride];
      ys[k] = y4[v + k * stride];
    }
#pragma unroll
    for (int k = 0; k < SAXPY_ILP; ++k) {
      float4 r;
      r.x = a * xs[k].x + ys[k].x;
      r.y = a * xs[k].y + ys[k].y;
      r.z = a * xs[k].z + ys[k].z;
      r.w = a * xs[k].w + ys[k].w;
      out4[v + k * stride] = r;
    }
  }
  // Fewer than SAXPY_ILP groups are left for this thread.
  for (; v < groups; v += stride) {
    const float4 xv = x4[v], yv = y4[v];
    float4 r;
    r.x = a * xv.x + yv.x;
    r.y = a * xv.y + yv.y;
    r.z = a * xv.z + yv.z;
    r.w = a * xv.w + yv.w;
    out4[v] = r;
  }
  // The last n % 4 elements, one per thread of the first threads.
  for (unsigned long long i = 4 * groups + thread; i < n; i += stride) out[i] = a * x[i] + y[i];
}
// [docs:end saxpy_kernel]
