// Lesson 04: OpenBLAS, loaded at run time with the kernel set this CPU can run.
//
// Teaches: a tuned library is only as fast as the kernels it picks. OpenBLAS built for many CPUs
// (Debian's DYNAMIC_ARCH) chooses its kernels ("core") once, when the library is loaded: from
// the environment variable OPENBLAS_CORETYPE if it is set, else from the CPU's vendor, family
// and model. Debian 12's OpenBLAS 0.3.21 predates today's server CPUs, and for an Intel family-6
// CPU whose extended model it does not list (11 to 15) its get_coretype() falls out of the model
// switch into the Pentium 4 branch and returns the generic Prescott core (SSE3): OpenBLAS v0.3.21,
// driver/others/dynamic.c, lines 764-767. The reference GPU host, a virtual "Intel(R) Xeon(R)
// Processor" with AVX-512, got that core (its model number was not recorded), and its sgemm ran
// at a quarter of NumPy's speed on the same host.
//
// So the lesson decides from the CPU's features, read the way the compiler's own runtime reads
// them (__builtin_cpu_supports: CPUID, and XGETBV for the operating system's support), sets
// OPENBLAS_CORETYPE, and only then loads the library (dlopen): linked normally, OpenBLAS would
// have chosen before main() runs, and its choice can only be read once it is final. Where
// OpenBLAS recognises the CPU, the features name the same kernels it would pick (Cooperlake is
// SkylakeX plus bfloat16 routines; Zen runs Haswell's sgemm and dgemm kernels). A user's own
// OPENBLAS_CORETYPE wins, and the rows' note says which way the core was chosen.
#include <cblas.h>  // the declarations only: the functions come from dlsym below
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <strings.h>

#include "course/errors.hpp"
#include "matmul.hpp"

#ifndef COURSE_OPENBLAS_LIBRARY_PATH
#error "COURSE_OPENBLAS_LIBRARY_PATH (set by course::OpenBLAS in cmake/CourseDependencies.cmake) is missing"
#endif

namespace matmul {

namespace {

struct CoreChoice {
  std::string core;  // empty: leave the choice to OpenBLAS
  std::string why;
};

CoreChoice choose_core() {
  if (const char* user = std::getenv("OPENBLAS_CORETYPE"); user != nullptr && *user != '\0') {
    return {user, "OPENBLAS_CORETYPE set by the user"};
  }
  __builtin_cpu_init();
  // SkylakeX holds OpenBLAS's AVX-512 sgemm and dgemm kernels (its Cooperlake and Sapphire
  // Rapids cores add only bfloat16 routines on top).
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl")) {
    return {"SkylakeX", "chosen from the CPU's AVX-512 F/BW/DQ/VL"};
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    // Zen runs the Haswell kernels with block sizes tuned for AMD's caches.
    return {__builtin_cpu_is("amd") ? "Zen" : "Haswell", "chosen from the CPU's AVX2 and FMA"};
  }
  return {"", "OpenBLAS's own choice (no AVX2 on this CPU)"};
}

template <class Function>
Function symbol(void* handle, const char* name) {
  void* address = ::dlsym(handle, name);
  if (address == nullptr) {
    throw course::Error(std::string("OpenBLAS (" COURSE_OPENBLAS_LIBRARY_PATH "): no symbol ") + name);
  }
  return reinterpret_cast<Function>(address);
}

struct Library {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&openblas_get_num_threads) get_num_threads = nullptr;
  std::string core;
  std::string description;
};

Library load() {
  const CoreChoice choice = choose_core();
  // setenv before any other thread of the program reads the environment: the first BLAS call
  // comes from the main thread, before the GPU or any row runs.
  if (!choice.core.empty()) ::setenv("OPENBLAS_CORETYPE", choice.core.c_str(), 0);
  // Never closed: OpenBLAS keeps a pool of threads until the program ends.
  void* handle = ::dlopen(COURSE_OPENBLAS_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    throw course::Error(std::string("cannot load OpenBLAS: ") + (error != nullptr ? error : COURSE_OPENBLAS_LIBRARY_PATH));
  }
  Library library;
  library.sgemm = symbol<decltype(&cblas_sgemm)>(handle, "cblas_sgemm");
  library.dgemm = symbol<decltype(&cblas_dgemm)>(handle, "cblas_dgemm");
  library.set_num_threads = symbol<decltype(&openblas_set_num_threads)>(handle, "openblas_set_num_threads");
  library.get_num_threads = symbol<decltype(&openblas_get_num_threads)>(handle, "openblas_get_num_threads");
  const auto config = symbol<decltype(&openblas_get_config)>(handle, "openblas_get_config");
  const auto corename = symbol<decltype(&openblas_get_corename)>(handle, "openblas_get_corename");
  library.core = corename();
  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64 (core SkylakeX, chosen from ...)"
  std::string how = choice.why;
  if (!choice.core.empty() && ::strcasecmp(choice.core.c_str(), library.core.c_str()) != 0) {
    // The library was loaded before (by something else in the process) or did not accept the name.
    how = "OPENBLAS_CORETYPE=" + choice.core + " did not take effect";
  }
  library.description = std::string(config()) + " (core " + library.core + ", " + how + ")";
  return library;
}

const Library& library() {
  static const Library loaded = load();
  return loaded;
}

}  // namespace

void openblas_sgemm(int m, int n, int k, const float* a, const float* b, float* c) {
  library().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

void openblas_dgemm(int m, int n, int k, const double* a, const double* b, double* c) {
  library().dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}

void set_openblas_threads(int threads) { library().set_num_threads(threads); }

int openblas_threads() { return library().get_num_threads(); }

std::string_view openblas_core() { return library().core; }

std::string_view openblas_description() { return library().description; }

}  // namespace matmul
