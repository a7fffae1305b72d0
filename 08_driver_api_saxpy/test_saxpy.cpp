// Tests of lesson 08: the CPU versions and references, run-time compilation (NVRTC needs no GPU:
// those tests run anywhere), a user's kernel file, launch shapes, and on a GPU the driver-API
// round trip at awkward sizes, CUBIN against PTX, driver against runtime, contraction, the
// module and library lookups, contexts, and the exercise. Suites named Gpu* need a GPU (label
// gpu); the others run anywhere (cpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course/check.hpp"
#include "course/cublas_ceiling.hpp"
#include "course/device_buffer.hpp"
#include "course/driver.hpp"
#include "course/errors.hpp"
#include "course/nvrtc.hpp"
#include "course/random.hpp"
#include "exercise_record.hpp"
#include "gpu_test.hpp"
#include "saxpy.hpp"

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Sizes that break sloppy kernels: 1, below and around a float4 group, primes, around the block
// and around a whole trip of kIlp float4 groups per thread.
const std::size_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 255, 256, 257, 1000, 1009, 4099, 65537, 1000003};
// 2: every product exact (fused and unfused agree); the others: products that round.
const float kAValues[] = {driver_saxpy::kA, 1.1f, -0.3f};

struct Inputs {
  std::vector<float> x, y;
};

Inputs random_inputs(std::size_t n, std::uint64_t seed) {
  Inputs inputs{std::vector<float>(n), std::vector<float>(n)};
  course::fill_normal(inputs.x, seed);
  course::fill_normal(inputs.y, seed + 1);
  return inputs;
}

std::vector<float> cpu_saxpy(float a, const Inputs& inputs) {
  std::vector<float> out(inputs.x.size(), kNaN);
  driver_saxpy::saxpy_serial(a, inputs.x, inputs.y, out);
  return out;
}

// Bit for bit: memcmp, so even the sign of a zero counts.
::testing::AssertionResult same_bits(const std::vector<float>& result, const std::vector<float>& expected) {
  if (result.size() != expected.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (std::memcmp(&result[i], &expected[i], sizeof(float)) != 0) {
      return ::testing::AssertionFailure() << "element " << i << " of " << result.size() << ": " << result[i]
                                           << " vs " << expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::string trace(std::size_t n, float a, std::uint64_t seed) {
  return "n = " + std::to_string(n) + ", a = " + std::to_string(a) + ", seed = " + std::to_string(seed);
}

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

driver_saxpy::CompileOptions with_fmad(bool fmad) {
  driver_saxpy::CompileOptions options;
  options.fmad = fmad;
  return options;
}

driver_saxpy::CompileOptions with_names(std::vector<std::string> expressions) {
  driver_saxpy::CompileOptions options;
  options.name_expressions = std::move(expressions);
  return options;
}

int oldest_architecture() { return course::nvrtc::supported_architectures().front(); }

// ---- CPU ----------------------------------------------------------------------------------
TEST(SaxpyCpu, SerialMatchesTheReferenceExactly) {
  const std::uint64_t seed = course::fresh_seed();
  for (float a : kAValues) {
    for (std::size_t n : kSizes) {
      SCOPED_TRACE(trace(n, a, seed));
      const Inputs inputs = random_inputs(n, seed);
      const auto check = course::verify(cpu_saxpy(a, inputs), driver_saxpy::saxpy_reference(a, inputs.x, inputs.y),
                                        course::Tolerance::exact());
      EXPECT_TRUE(check.passed) << check.summary();
    }
  }
}

TEST(SaxpyCpu, ParallelEqualsSerialExactly) {
  const std::uint64_t seed = course::fresh_seed();
  for (float a : kAValues) {
    SCOPED_TRACE(trace(1000003, a, seed));
    const Inputs inputs = random_inputs(1000003, seed);
    std::vector<float> parallel(inputs.x.size(), kNaN);
    driver_saxpy::saxpy_parallel(a, inputs.x, inputs.y, parallel);
    EXPECT_TRUE(same_bits(parallel, cpu_saxpy(a, inputs))) << "SIMD and threads change nothing without contraction";
  }
}

TEST(SaxpyCpu, FusedDiffersOnlyWhereTheProductRounds) {
  const std::uint64_t seed = course::fresh_seed();
  const Inputs inputs = random_inputs(100000, seed);
  for (float a : kAValues) {
    SCOPED_TRACE(trace(inputs.x.size(), a, seed));
    std::vector<float> fused(inputs.x.size(), kNaN);
    driver_saxpy::saxpy_fused_serial(a, inputs.x, inputs.y, fused);
    const auto check = course::verify(fused, driver_saxpy::saxpy_fused_reference(a, inputs.x, inputs.y),
                                      course::Tolerance::exact());
    EXPECT_TRUE(check.passed) << check.summary();
    const std::vector<float> unfused = cpu_saxpy(a, inputs);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < fused.size(); ++i) differing += fused[i] != unfused[i];
    if (a == 2.0f) {
      EXPECT_EQ(differing, 0u) << "2 * x is exact: one rounding or two give the same result";
    } else {
      EXPECT_GT(differing, 0u) << "with a rounded product, an FMA must differ from multiply-then-add somewhere";
    }
  }
}

TEST(SaxpyCpu, AWrongOrMissingElementFailsVerification) {
  const std::uint64_t seed = course::fresh_seed();
  const Inputs inputs = random_inputs(5000, seed);
  const auto reference = driver_saxpy::saxpy_reference(1.1f, inputs.x, inputs.y);
  auto wrong = cpu_saxpy(1.1f, inputs);
  wrong[4321] = std::nextafter(wrong[4321], 1e30f);  // 1 ulp off: what an FMA would do
  EXPECT_FALSE(course::verify(wrong, reference, course::Tolerance::exact()).passed);
  auto missing = cpu_saxpy(1.1f, inputs);
  missing[17] = kNaN;  // never written (poisoned)
  EXPECT_FALSE(course::verify(missing, reference, course::Tolerance::exact()).passed);
}

// ---- NVRTC: no GPU needed ---------------------------------------------------------------------
TEST(SaxpyNvrtc, KernelSourceCompilesToPtxWithOneExternCEntry) {
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(driver_saxpy::kernel_source(), driver_saxpy::kKernelSourceName, target);
  EXPECT_EQ(driver_saxpy::ptx_entries(compiled.ptx), std::vector<std::string>{"saxpy"});
  ASSERT_FALSE(compiled.image.empty());
  EXPECT_EQ(compiled.image.back(), '\0') << "the driver reads PTX as a NUL-terminated string";
  EXPECT_NE(compiled.ptx.find(".target sm_" + std::to_string(target.arch)), std::string::npos);
  EXPECT_GT(compiled.compile_ms, 0.0);
}

TEST(SaxpyNvrtc, FmadDecidesWhetherPtxHasFusedMultiplyAdds) {
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled unfused = driver_saxpy::compile(driver_saxpy::kernel_source(), "saxpy.cu", target, with_fmad(false));
  const driver_saxpy::Compiled fused = driver_saxpy::compile(driver_saxpy::kernel_source(), "saxpy.cu", target, with_fmad(true));
  // --fmad=false writes the multiply and the add with explicit rounding (mul.rn, add.rn), which
  // forbids ptxas to fuse them later; --fmad=true writes fma.rn.
  EXPECT_EQ(unfused.ptx.find("fma.rn.f32"), std::string::npos);
  EXPECT_NE(unfused.ptx.find("mul.rn.f32"), std::string::npos);
  EXPECT_NE(fused.ptx.find("fma.rn.f32"), std::string::npos);
}

TEST(SaxpyNvrtc, CubinIsAnElfImageForTheNewestKnownArchitecture) {
  const driver_saxpy::CompileTarget target{course::nvrtc::supported_architectures().back(), driver_saxpy::CodeKind::cubin};
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(driver_saxpy::kernel_source(), driver_saxpy::kKernelSourceName, target);
  ASSERT_GE(compiled.image.size(), 4u);
  EXPECT_EQ(std::memcmp(compiled.image.data(), "\x7f" "ELF", 4), 0) << "a CUBIN is an ELF file";
  EXPECT_EQ(driver_saxpy::ptx_entries(compiled.ptx), std::vector<std::string>{"saxpy"});
}

TEST(SaxpyNvrtc, ABrokenSourceThrowsWithTheCompilerLog) {
  const std::string path = std::string(SAXPY_TESTS_DIR) + "/broken_kernel.cu";
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  try {
    driver_saxpy::compile(read_file(path), "broken_kernel.cu", target);
    FAIL() << "a missing semicolon compiled";
  } catch (const course::nvrtc::CompileError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
    EXPECT_NE(what.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << what;
    EXPECT_NE(what.find("broken_kernel.cu"), std::string::npos) << what;
    EXPECT_NE(error.log().find("broken_kernel.cu(5): error"), std::string::npos)
        << "the log names the file and the line after the missing ';':\n" << error.log();
  }
}

TEST(SaxpyNvrtc, AnUnknownOptionIsACompileErrorToo) {
  course::nvrtc::Program program("__global__ void k() {}", "k.cu");
  EXPECT_THROW(program.compile({"--no-such-option"}), course::nvrtc::CompileError);
}

TEST(SaxpyNvrtc, AWrongEntryNameIsAUsageErrorThatListsTheKernels) {
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const std::string path = std::string(SAXPY_TESTS_DIR) + "/user_saxpy.cu";
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(driver_saxpy::read_kernel_file(path), "user_saxpy.cu", target);
  EXPECT_NO_THROW(driver_saxpy::require_entry(compiled.ptx, "my_saxpy", "user_saxpy.cu"));
  try {
    driver_saxpy::require_entry(compiled.ptx, "saxpy", "user_saxpy.cu");
    FAIL() << "found a kernel that is not there";
  } catch (const course::UsageError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("--entry"), std::string::npos) << what;
    EXPECT_NE(what.find("my_saxpy"), std::string::npos) << "the message lists the kernels there: " << what;
  }
}

TEST(SaxpyNvrtc, ACxxKernelIsMangledUnlessExternC) {
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(
      "__global__ void scale(float* p, float s) { p[threadIdx.x] *= s; }\n", "scale.cu", target);
  const std::vector<std::string> entries = driver_saxpy::ptx_entries(compiled.ptx);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0], "_Z5scalePff");
  EXPECT_THROW(driver_saxpy::require_entry(compiled.ptx, "scale", "scale.cu"), course::UsageError);
}

TEST(SaxpyNvrtc, ChoosesTheGpusOwnArchitectureElsePtxItCanJit) {
  const std::vector<int> known = {75, 80, 86, 89, 90};  // a made-up NVRTC's list
  const driver_saxpy::CompileTarget own = driver_saxpy::choose_target(86, driver_saxpy::CodeKind::cubin, known);
  EXPECT_EQ(own.architecture(), "sm_86");
  EXPECT_EQ(driver_saxpy::choose_target(86, driver_saxpy::CodeKind::ptx, known).architecture(), "compute_86");
  // A GPU newer than this NVRTC: PTX for the newest it knows, which the driver can JIT forward.
  EXPECT_EQ(driver_saxpy::choose_target(120, driver_saxpy::CodeKind::cubin, known).architecture(), "compute_90");
  // 8.7 is not in the list: the newest older one, as PTX.
  EXPECT_EQ(driver_saxpy::choose_target(87, driver_saxpy::CodeKind::cubin, known).architecture(), "compute_86");
  // No GPU: the oldest, as PTX (it runs on every newer GPU).
  EXPECT_EQ(driver_saxpy::choose_target(0, driver_saxpy::CodeKind::cubin, known).architecture(), "compute_75");
  EXPECT_THROW(driver_saxpy::choose_target(70, driver_saxpy::CodeKind::cubin, known), course::ResourceError);
}

TEST(SaxpyNvrtc, OptionsCarryTheTargetFmadAndDefines) {
  const auto options = driver_saxpy::nvrtc_options({90, driver_saxpy::CodeKind::cubin}, {.fmad = false, .defines = {"A=1"}, .name_expressions = {}});
  const std::vector<std::string> expected = {"--gpu-architecture=sm_90", "--fmad=false", "--generate-line-info",
                                             "-DSAXPY_ILP=" + std::to_string(driver_saxpy::kIlp), "-DA=1"};
  EXPECT_EQ(options, expected);
}

// ---- A user's kernel file -----------------------------------------------------------------------
TEST(SaxpyKernelFile, MissingEmptyAndDirectoryAreUsageErrors) {
  const std::string dir = SAXPY_TESTS_DIR;
  auto message = [](const std::string& path) {
    try {
      driver_saxpy::read_kernel_file(path);
    } catch (const course::UsageError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(dir + "/no_such_kernel.cu").find("does not exist"), std::string::npos);
  EXPECT_NE(message(dir + "/empty_kernel.cu").find("is empty"), std::string::npos);
  EXPECT_NE(message(dir).find("is a directory"), std::string::npos);
  EXPECT_NE(driver_saxpy::read_kernel_file(dir + "/user_saxpy.cu").find("my_saxpy"), std::string::npos);
}

// ---- Launch shapes ------------------------------------------------------------------------------
TEST(SaxpyLaunch, GridCoversNAndStopsAtTheWaves) {
  const std::size_t per_block = 256 * 4 * driver_saxpy::kIlp;  // elements one block covers in one trip
  EXPECT_EQ(driver_saxpy::saxpy_launch(1, 256, 0, 8, 132).blocks, 1);
  EXPECT_EQ(driver_saxpy::saxpy_launch(per_block, 256, 0, 8, 132).blocks, 1);
  EXPECT_EQ(driver_saxpy::saxpy_launch(per_block + 1, 256, 0, 8, 132).blocks, 2);
  EXPECT_EQ(driver_saxpy::saxpy_launch(driver_saxpy::kClassicLength, 256, 0, 8, 132).blocks,
            driver_saxpy::kWaves * 8 * 132);
  EXPECT_EQ(driver_saxpy::saxpy_launch(driver_saxpy::kClassicLength, 256, 7, 8, 132).blocks, 7) << "--grid is taken as given";
  EXPECT_EQ(driver_saxpy::saxpy_launch(100, 64, 0, 0, 0).threads, 64);
  EXPECT_EQ(driver_saxpy::one_thread_per_element(1000, 256).blocks, 4);
  EXPECT_EQ(driver_saxpy::one_thread_per_element(1, 1024).blocks, 1);
  EXPECT_THROW(driver_saxpy::one_thread_per_element(std::size_t{1} << 40, 1), course::UsageError);
  EXPECT_EQ(driver_saxpy::one_thread_per_element(4224 * 256, 256).describe(), "4,224 blocks of 256 threads");
}

TEST(SaxpyLaunch, MisalignedPointersAreRefusedBeforeAnyLaunch) {
  EXPECT_NO_THROW(driver_saxpy::require_aligned(256, 512, 4096));
  EXPECT_THROW(driver_saxpy::require_aligned(256 + 4, 512, 4096), std::invalid_argument);
  EXPECT_THROW(driver_saxpy::launch_runtime({1, 32}, 1.0f, reinterpret_cast<const float*>(4), nullptr, nullptr, 10, nullptr),
               std::invalid_argument);
}

// ---- The exercise (compiled at run time: no GPU needed) --------------------------------------------
TEST(SaxpyExercise, NameExpressionsGiveTheMangledNamesOfEachInstance) {
  const std::string source = read_file(std::string(SAXPY_EXERCISES_DIR) + "/saxpy_template_solution.cu");
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled compiled =
      driver_saxpy::compile(source, "saxpy_template_solution.cu", target, with_names({"saxpy_ilp<1>", "saxpy_ilp<4>"}));
  ASSERT_EQ(compiled.lowered_names.size(), 2u);
  EXPECT_EQ(compiled.lowered_names[0], "_Z9saxpy_ilpILi1EEvfPKfS1_Pfy");
  EXPECT_EQ(compiled.lowered_names[1], "_Z9saxpy_ilpILi4EEvfPKfS1_Pfy");
  const std::vector<std::string> entries = driver_saxpy::ptx_entries(compiled.ptx);
  EXPECT_EQ(entries.size(), 2u) << "only the instances asked for are compiled";
  for (const std::string& name : compiled.lowered_names) {
    EXPECT_NO_THROW(driver_saxpy::require_entry(compiled.ptx, name, "saxpy_template_solution.cu"));
  }
}

// ---- The second kernel text: one pass -------------------------------------------------------------
TEST(SaxpyOnePass, SourceCompilesToPtxWithOneExternCEntry) {
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled compiled =
      driver_saxpy::compile(driver_saxpy::one_pass_source(), driver_saxpy::kOnePassSourceName, target);
  EXPECT_EQ(driver_saxpy::ptx_entries(compiled.ptx), std::vector<std::string>{driver_saxpy::kOnePassEntry});
  EXPECT_EQ(compiled.ptx.find("fma.rn.f32"), std::string::npos) << "--fmad=false: a multiply and an add";
}

TEST(SaxpyOnePass, SplitCoversTheArrayOnceAndSendsMismatchedAlignmentsToTheScalarPath) {
  // Aligned: no head, n / 4 groups, one block per kOnePassVectors x 256 groups.
  driver_saxpy::OnePassSplit split = driver_saxpy::one_pass_split(256, 512, 1024, 1000003, 256);
  EXPECT_EQ(split.head, 0u);
  EXPECT_EQ(split.vectors, 1000003u / 4);
  const unsigned long long per_block = driver_saxpy::kOnePassVectors * 256ull;
  EXPECT_EQ(split.launch.blocks, static_cast<long long>((split.vectors + per_block - 1) / per_block));
  // All three one float past a 16-byte boundary: 3 scalar elements first.
  split = driver_saxpy::one_pass_split(260, 516, 1028, 100, 256);
  EXPECT_EQ(split.head, 3u);
  EXPECT_EQ(split.vectors, 24u);  // 97 elements after the head: 24 groups and 1 in the tail
  split = driver_saxpy::one_pass_split(264, 520, 1032, 1, 256);  // head larger than n
  EXPECT_EQ(split.head, 1u);
  EXPECT_EQ(split.vectors, 0u);
  EXPECT_EQ(split.launch.blocks, 1);
  // Misaligned differently: every element scalar, one thread each.
  split = driver_saxpy::one_pass_split(260, 512, 1024, 1000, 256);
  EXPECT_EQ(split.head, 1000u);
  EXPECT_EQ(split.vectors, 0u);
  EXPECT_EQ(split.launch.blocks, 4);
  split = driver_saxpy::one_pass_split(256, 512, 1024, 1000, 2);  // too few threads for the ends
  EXPECT_EQ(split.vectors, 0u);
}

// ---- GPU: the driver API ----------------------------------------------------------------------------
// What every driver test does first: cuInit, device 0, its primary context made current (the
// runtime probe in COURSE_REQUIRE_GPU_OR_SKIP has already created it: the retain shares it).
struct DriverSession {
  course::driver::Device device;
  course::driver::PrimaryContext context;
};

DriverSession open_driver() {
  course::driver::init();
  course::driver::Device device = course::driver::Device::get(0);
  return {device, course::driver::PrimaryContext(device)};
}

driver_saxpy::Compiled compile_for(const course::driver::Device& device, driver_saxpy::CodeKind kind,
                            const driver_saxpy::CompileOptions& options = {}) {
  const driver_saxpy::CompileTarget target =
      driver_saxpy::choose_target(device.compute_capability(), kind, course::nvrtc::supported_architectures());
  return driver_saxpy::compile(driver_saxpy::kernel_source(), driver_saxpy::kKernelSourceName, target, options);
}

course::LaunchShape lesson_launch(const DriverSession& session, CUfunction function, std::size_t n, int block = 256,
                            int grid = 0) {
  return driver_saxpy::saxpy_launch(n, block, grid, course::driver::max_active_blocks_per_sm(function, block),
                             session.device.sm_count());
}

TEST(GpuSaxpyDriver, RoundTripMatchesTheCpuBitForBitAtEverySize) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::Compiled cubin = compile_for(session.device, driver_saxpy::CodeKind::cubin);
  const course::driver::Module module(cubin.image.data());
  const CUfunction function = module.function(driver_saxpy::kEntry);
  const std::uint64_t seed = course::fresh_seed();
  for (float a : kAValues) {
    for (std::size_t n : kSizes) {
      SCOPED_TRACE(trace(n, a, seed));
      const Inputs inputs = random_inputs(n, seed);
      const std::vector<float> out =
          driver_saxpy::run_driver_once(function, lesson_launch(session, function, n), a, inputs.x, inputs.y);
      EXPECT_TRUE(same_bits(out, cpu_saxpy(a, inputs)));
    }
  }
}

TEST(GpuSaxpyDriver, AnyGridCoversEveryElement) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::Compiled cubin = compile_for(session.device, driver_saxpy::CodeKind::cubin);
  const course::driver::Module module(cubin.image.data());
  const CUfunction function = module.function(driver_saxpy::kEntry);
  const std::uint64_t seed = course::fresh_seed();
  const Inputs inputs = random_inputs(100003, seed);
  for (const course::LaunchShape launch : {course::LaunchShape{1, 1}, course::LaunchShape{1, 32}, course::LaunchShape{3, 96},
                                     course::LaunchShape{7, 1024}, course::LaunchShape{100000, 64}}) {
    SCOPED_TRACE(launch.describe() + ", seed " + std::to_string(seed));
    EXPECT_TRUE(same_bits(driver_saxpy::run_driver_once(function, launch, 1.1f, inputs.x, inputs.y),
                          cpu_saxpy(1.1f, inputs)));
  }
}

TEST(GpuSaxpyDriver, CubinModuleAndPtxLibraryGiveIdenticalResults) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::Compiled cubin = compile_for(session.device, driver_saxpy::CodeKind::cubin);
  const driver_saxpy::Compiled ptx = compile_for(session.device, driver_saxpy::CodeKind::ptx);
  ASSERT_EQ(ptx.target.kind, driver_saxpy::CodeKind::ptx);
  const course::driver::Module module(cubin.image.data());
  const course::driver::Library library(ptx.image.data());
  const CUfunction from_cubin = module.function(driver_saxpy::kEntry);
  // Both ways to launch from a library: the CUkernel cast to CUfunction, and cuKernelGetFunction.
  const CUfunction kernel_handle = reinterpret_cast<CUfunction>(library.kernel(driver_saxpy::kEntry));
  const CUfunction from_ptx = library.function(driver_saxpy::kEntry);
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{1000003}}) {
    SCOPED_TRACE(trace(n, 1.1f, seed));
    const Inputs inputs = random_inputs(n, seed);
    const course::LaunchShape launch = lesson_launch(session, from_cubin, n);
    const std::vector<float> expected = driver_saxpy::run_driver_once(from_cubin, launch, 1.1f, inputs.x, inputs.y);
    EXPECT_TRUE(same_bits(driver_saxpy::run_driver_once(kernel_handle, launch, 1.1f, inputs.x, inputs.y), expected));
    EXPECT_TRUE(same_bits(driver_saxpy::run_driver_once(from_ptx, launch, 1.1f, inputs.x, inputs.y), expected));
    EXPECT_TRUE(same_bits(expected, cpu_saxpy(1.1f, inputs)));
  }
}

TEST(GpuSaxpyDriver, RuntimeAndDriverShareTheContextAndGiveIdenticalResults) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  EXPECT_TRUE(session.context.was_active()) << "the runtime (the GPU probe) created the primary context first";
  CUDA_CHECK(cudaSetDevice(0));
  EXPECT_EQ(course::driver::current_context(), session.context.get()) << "one primary context for both APIs";
  const driver_saxpy::Compiled cubin = compile_for(session.device, driver_saxpy::CodeKind::cubin);
  const course::driver::Module module(cubin.image.data());
  const CUfunction function = module.function(driver_saxpy::kEntry);
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{4099}, std::size_t{1000003}}) {
    SCOPED_TRACE(trace(n, 1.1f, seed));
    const Inputs inputs = random_inputs(n, seed);
    const course::LaunchShape launch = lesson_launch(session, function, n);
    const std::vector<float> driver_out = driver_saxpy::run_driver_once(function, launch, 1.1f, inputs.x, inputs.y);

    course::DeviceBuffer<float> x(n), y(n), out(n);
    x.copy_from_host(inputs.x);
    y.copy_from_host(inputs.y);
    out.poison();
    const course::LaunchShape runtime_launch =
        driver_saxpy::saxpy_launch(n, 256, 0, driver_saxpy::runtime_blocks_per_sm(256), session.device.sm_count());
    driver_saxpy::launch_runtime(runtime_launch, 1.1f, x.data(), y.data(), out.data(), n, nullptr);
    std::vector<float> runtime_out(n, kNaN);
    out.copy_to_host(runtime_out);
    EXPECT_TRUE(same_bits(runtime_out, driver_out));

    // And across the APIs: cudaMalloc'd memory in a driver launch.
    out.poison();
    driver_saxpy::launch_driver(function, launch, 1.1f, reinterpret_cast<CUdeviceptr>(x.data()),
                         reinterpret_cast<CUdeviceptr>(y.data()), reinterpret_cast<CUdeviceptr>(out.data()), n,
                         nullptr);
    std::vector<float> mixed_out(n, kNaN);
    out.copy_to_host(mixed_out);
    EXPECT_TRUE(same_bits(mixed_out, driver_out));
  }
}

TEST(GpuSaxpyDriver, FmadTrueGivesStdFmaBitForBit) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::Compiled fused = compile_for(session.device, driver_saxpy::CodeKind::cubin, with_fmad(true));
  const course::driver::Module module(fused.image.data());
  const CUfunction function = module.function(driver_saxpy::kEntry);
  const std::uint64_t seed = course::fresh_seed();
  const Inputs inputs = random_inputs(100003, seed);
  SCOPED_TRACE(trace(inputs.x.size(), 1.1f, seed));
  const std::vector<float> out = driver_saxpy::run_driver_once(function, lesson_launch(session, function, inputs.x.size()),
                                                        1.1f, inputs.x, inputs.y);
  std::vector<float> expected(out.size(), kNaN);
  driver_saxpy::saxpy_fused_serial(1.1f, inputs.x, inputs.y, expected);
  EXPECT_TRUE(same_bits(out, expected));
  EXPECT_FALSE(same_bits(out, cpu_saxpy(1.1f, inputs))) << "contraction changes some results when a * x rounds";
}

// The library row's call at every awkward size and both a's: bit-equal to one of the two
// roundings (unfused or std::fma), the same one at every element, and y is written everywhere.
TEST(GpuSaxpyLibrary, CublasSaxpyMatchesOneRoundingAtEverySize) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const course::CublasHandle handle;
  const std::uint64_t seed = course::fresh_seed();
  for (float a : kAValues) {
    for (std::size_t n : kSizes) {
      SCOPED_TRACE(trace(n, a, seed));
      const Inputs inputs = random_inputs(n, seed);
      course::DeviceBuffer<float> x(n, "x"), y(n, "y");
      x.copy_from_host(inputs.x);
      y.copy_from_host(inputs.y);
      driver_saxpy::cublas_saxpy_in_place(handle, a, x.data(), y.data(), n, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> out(n, kNaN), fused(n, kNaN);
      y.copy_to_host(out);
      driver_saxpy::saxpy_fused_serial(a, inputs.x, inputs.y, fused);
      EXPECT_TRUE(same_bits(out, cpu_saxpy(a, inputs)) || same_bits(out, fused));
    }
  }
}

TEST(GpuSaxpyDriver, LookupsFindTheKernelAndNothingElse) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::Compiled cubin = compile_for(session.device, driver_saxpy::CodeKind::cubin);
  const course::driver::Module module(cubin.image.data());
  EXPECT_EQ(module.function_names(), std::vector<std::string>{"saxpy"});
  EXPECT_TRUE(module.find_function("saxpy").has_value());
  EXPECT_FALSE(module.find_function("saxpy_typo").has_value());
  try {
    module.function("saxpy_typo");
    FAIL() << "found a kernel that does not exist";
  } catch (const course::ApiError& error) {
    EXPECT_EQ(error.code_name(), "CUDA_ERROR_NOT_FOUND") << error.what();
  }
  const course::driver::Library library(cubin.image.data());
  EXPECT_EQ(library.kernel_names(), std::vector<std::string>{"saxpy"});
  EXPECT_FALSE(library.find_kernel("saxpy_typo").has_value());
}

TEST(GpuSaxpyDriver, AUsersKernelRunsWithOneThreadPerElement) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::CompileTarget target = driver_saxpy::choose_target(session.device.compute_capability(), driver_saxpy::CodeKind::cubin,
                                                           course::nvrtc::supported_architectures());
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(
      driver_saxpy::read_kernel_file(std::string(SAXPY_TESTS_DIR) + "/user_saxpy.cu"), "user_saxpy.cu", target);
  const course::driver::Module module(compiled.image.data());
  const CUfunction function = module.function("my_saxpy");
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{65537}}) {
    SCOPED_TRACE(trace(n, 1.1f, seed));
    const Inputs inputs = random_inputs(n, seed);
    EXPECT_TRUE(same_bits(
        driver_saxpy::run_driver_once(function, driver_saxpy::one_thread_per_element(n, 256), 1.1f, inputs.x, inputs.y),
        cpu_saxpy(1.1f, inputs)));
  }
}

TEST(GpuSaxpyDriver, ACreatedContextIsSeparateFromThePrimaryOne) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  {
    const course::driver::CreatedContext created(session.device);
    EXPECT_NE(created.get(), session.context.get());
    EXPECT_EQ(course::driver::current_context(), created.get()) << "cuCtxCreate makes the new context current";
    // A module loaded here belongs to this context and runs here.
    const driver_saxpy::Compiled cubin = compile_for(session.device, driver_saxpy::CodeKind::cubin);
    const course::driver::Module module(cubin.image.data());
    const CUfunction function = module.function(driver_saxpy::kEntry);
    const Inputs inputs = random_inputs(4099, course::fresh_seed());
    EXPECT_TRUE(same_bits(driver_saxpy::run_driver_once(function, course::LaunchShape{8, 128}, 1.1f, inputs.x, inputs.y),
                          cpu_saxpy(1.1f, inputs)));
  }
  session.context.make_current();  // the created context is gone; the primary one is current again
  EXPECT_EQ(course::driver::current_context(), session.context.get());
}

// Every instance of the template in `file` (under exercises/) against the CPU, bit for bit.
void expect_every_instance_matches(const std::string& file) {
  const DriverSession session = open_driver();
  const std::string source = read_file(std::string(SAXPY_EXERCISES_DIR) + "/" + file);
  const driver_saxpy::CompileTarget target = driver_saxpy::choose_target(session.device.compute_capability(), driver_saxpy::CodeKind::cubin,
                                                           course::nvrtc::supported_architectures());
  const std::vector<std::string> instances = {"saxpy_ilp<1>", "saxpy_ilp<2>", "saxpy_ilp<4>", "saxpy_ilp<8>"};
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(source, file, target, with_names(instances));
  const course::driver::Module module(compiled.image.data());
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const CUfunction function = module.function(compiled.lowered_names[i]);
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1009}, std::size_t{100003}}) {
      SCOPED_TRACE(instances[i] + ", " + trace(n, 1.1f, seed));
      const Inputs inputs = random_inputs(n, seed);
      for (const course::LaunchShape launch : {course::LaunchShape{1, 32}, course::LaunchShape{13, 128}, course::LaunchShape{512, 256}}) {
        ASSERT_TRUE(same_bits(driver_saxpy::run_driver_once(function, launch, 1.1f, inputs.x, inputs.y),
                              cpu_saxpy(1.1f, inputs)));
      }
    }
  }
}

// Exercise 3 (make it fast, checked by ./scripts/check_exercise.sh 08 coalesce_saxpy through the
// lesson's own run): the starter and the solution are both right, at awkward sizes, on the
// lesson's launch for a --kernel-file (one thread per element) and on grids smaller than that.
TEST(GpuSaxpyFastExercise, StarterAndSolutionMatchTheCpu) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const driver_saxpy::CompileTarget target = driver_saxpy::choose_target(
      session.device.compute_capability(), driver_saxpy::CodeKind::cubin, course::nvrtc::supported_architectures());
  const std::uint64_t seed = course::fresh_seed();
  for (const auto& [file, entry] : {std::pair<std::string, std::string>{"coalesce_saxpy_starter.cu", "coalesce_starter"},
                                    std::pair<std::string, std::string>{"coalesce_saxpy_solution.cu", "coalesce_solution"}}) {
    const std::string source = read_file(std::string(SAXPY_EXERCISES_DIR) + "/" + file);
    const driver_saxpy::Compiled compiled = driver_saxpy::compile(source, file, target, with_names({}));
    const course::driver::Module module(compiled.image.data());
    const CUfunction function = module.function(entry);
    for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{1023}, std::size_t{(1u << 20) + 3}}) {
      SCOPED_TRACE(file + ", " + trace(n, 1.1f, seed));
      const Inputs inputs = random_inputs(n, seed);
      for (const course::LaunchShape launch : {driver_saxpy::one_thread_per_element(n, 256), course::LaunchShape{1, 32},
                                               course::LaunchShape{13, 96}}) {
        ASSERT_TRUE(same_bits(driver_saxpy::run_driver_once(function, launch, 1.1f, inputs.x, inputs.y),
                              cpu_saxpy(1.1f, inputs)));
      }
    }
  }
}

TEST(GpuSaxpyExercise, EveryTemplateInstanceMatchesTheCpu) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_every_instance_matches("saxpy_template_solution.cu");
}

// The student's check (./scripts/check_exercise.sh 08 saxpy_template): the starter, compiled at
// run time like the solution; DISABLED_ in the default run, where the shipped starter fails it.
TEST(GpuSaxpyExercise, DISABLED_StarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_every_instance_matches("saxpy_template_starter.cu");
}

TEST(GpuSaxpyExercise, TheStarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("08_driver_api_saxpy", "saxpy_template");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const std::string source = read_file(std::string(SAXPY_EXERCISES_DIR) + "/saxpy_template_starter.cu");
  const driver_saxpy::CompileTarget target = driver_saxpy::choose_target(
      session.device.compute_capability(), driver_saxpy::CodeKind::cubin, course::nvrtc::supported_architectures());
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(source, "saxpy_template_starter.cu", target,
                                                                with_names({"saxpy_ilp<2>"}));
  const course::driver::Module module(compiled.image.data());
  const Inputs inputs = random_inputs(1009, course::fresh_seed());
  const std::vector<float> out = driver_saxpy::run_driver_once(module.function(compiled.lowered_names[0]),
                                                               course::LaunchShape{4, 128}, 1.1f, inputs.x, inputs.y);
  const auto check = course::verify(out, driver_saxpy::saxpy_reference(1.1f, inputs.x, inputs.y),
                                    course::Tolerance::exact());
  EXPECT_FALSE(check.passed) << "the starter's empty body leaves the poisoned output: it must fail until written";
}

}  // namespace

// ---- GPU: the find-the-bug exercise, the launch's argument array (check_exercise.sh 08 launch_args) ----
#include "exercises/launch_args.hpp"

namespace {

using LaunchArgsFn = void (*)(CUfunction, float, CUdeviceptr, CUdeviceptr, CUdeviceptr, std::size_t, CUstream);

// Floats past n in the guarded run: more than the spare threads of the launcher's last block (255).
constexpr std::size_t kLaunchArgsGuard = 256;

// The exercise's kernel text, compiled by NVRTC as the lesson compiles its own (CUBIN for this GPU).
struct LaunchArgsKernel {
  course::driver::Module module;
  CUfunction function;
};

LaunchArgsKernel compile_launch_args(const DriverSession& session, const std::string& source,
                                     const std::string& name) {
  const driver_saxpy::CompileTarget target = driver_saxpy::choose_target(
      session.device.compute_capability(), driver_saxpy::CodeKind::cubin, course::nvrtc::supported_architectures());
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(source, name, target);
  course::driver::Module module(compiled.image.data());
  const CUfunction function = module.function(driver_saxpy::kEntry);
  return {std::move(module), function};
}

// One launch by `launch` on x and y (n floats of them, then `guard` more of 1.0f), out poisoned
// (NaN) before; returns all n + guard floats of out. With guard 0 the buffers are exactly n
// floats, so compute-sanitizer's memcheck sees any access past their ends.
std::vector<float> run_launch_args(LaunchArgsFn launch, CUfunction function, float a, const Inputs& inputs,
                                   std::size_t guard) {
  const std::size_t n = inputs.x.size();
  std::vector<float> x = inputs.x, y = inputs.y, out(n + guard);
  x.resize(n + guard, 1.0f);
  y.resize(n + guard, 1.0f);
  driver_saxpy::DriverBuffers buffers(n + guard);
  buffers.upload(x, y);
  buffers.poison_out();
  launch(function, a, buffers.x(), buffers.y(), buffers.out(), n, buffers.stream());
  buffers.download(out);
  return out;
}

// The first problem of `launch` at these sizes, or "": on buffers of exactly n floats, out must
// match the CPU bit for bit; on buffers kLaunchArgsGuard floats longer, out must also keep its
// poison past n (a thread at n or beyond wrote there).
std::string first_launch_args_problem(LaunchArgsFn launch, const std::string& source, const std::string& name,
                                      std::span<const std::size_t> sizes) {
  const DriverSession session = open_driver();
  const LaunchArgsKernel kernel = compile_launch_args(session, source, name);
  const std::uint64_t seed = course::fresh_seed();
  constexpr float a = 1.1f;
  for (const std::size_t n : sizes) {
    const Inputs inputs = random_inputs(n, seed);
    const std::vector<float> expected = cpu_saxpy(a, inputs);
    const std::string where = trace(n, a, seed) + ": ";
    const ::testing::AssertionResult exact = same_bits(run_launch_args(launch, kernel.function, a, inputs, 0), expected);
    if (!exact) return where + exact.message();
    std::vector<float> out = run_launch_args(launch, kernel.function, a, inputs, kLaunchArgsGuard);
    for (std::size_t i = n; i < out.size(); ++i) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &out[i], sizeof bits);
      if (bits != 0xFFFFFFFFu) {
        return where + "out[" + std::to_string(i) + "], past the end of the n elements, was written (" +
               std::to_string(out[i]) + "): a thread at i >= n got past the kernel's `if (i < n)`";
      }
    }
    out.resize(n);
    const ::testing::AssertionResult guarded = same_bits(out, expected);
    if (!guarded) return where + guarded.message();
  }
  return "";
}

// 1000 first: its spare threads (1000 to 1023) are the ones compute-sanitizer's report names.
const std::size_t kLaunchArgsSizes[] = {1000, 1, 31, 33, 1023, (std::size_t{1} << 20) + 3};

TEST(GpuSaxpyExercise, LaunchArgsSolutionMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::string problem = first_launch_args_problem(driver_saxpy::exercises::launch_args_solution,
                                                        driver_saxpy::exercises::launch_args_kernel_solution(),
                                                        "launch_args_solution.cpp", kLaunchArgsSizes);
  EXPECT_TRUE(problem.empty()) << problem;
}

// The student's check (./scripts/check_exercise.sh 08 launch_args runs it, then runs it under
// compute-sanitizer --tool memcheck); DISABLED_ in the default run, where the shipped starter fails.
TEST(GpuSaxpyExercise, DISABLED_LaunchArgsStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::string problem = first_launch_args_problem(driver_saxpy::exercises::launch_args_starter,
                                                        driver_saxpy::exercises::launch_args_kernel_starter(),
                                                        "launch_args_starter.cpp", kLaunchArgsSizes);
  EXPECT_TRUE(problem.empty()) << problem;
}

// The starter as shipped, once, its results not checked: 08_driver_api_saxpy.sanitizer.launch_args_starter
// runs this under memcheck and expects "Invalid __global__". At n = 1000 the starter's spare
// threads touch bytes 4000 to 4095 of each buffer: cuMemAlloc aligns every allocation to 256
// bytes, so no other one starts before byte 4096, and without the tool nothing else is touched
// and nothing faults.
TEST(GpuSaxpyExercise, LaunchArgsStarterAsShippedRuns) {
  COURSE_SKIP_IF_STARTER_EDITED("08_driver_api_saxpy", "launch_args");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  const LaunchArgsKernel kernel = compile_launch_args(
      session, driver_saxpy::exercises::launch_args_kernel_starter(), "launch_args_starter.cpp");
  const std::vector<float> out = run_launch_args(driver_saxpy::exercises::launch_args_starter, kernel.function, 1.1f,
                                                 random_inputs(1000, course::fresh_seed()), 0);
  EXPECT_EQ(out.size(), 1000u);
}

// No GPU needed: the solution's kernel text compiles (NVRTC) to one extern "C" entry, saxpy,
// whose fifth parameter, n, has 8 bytes.
TEST(LaunchArgsExercise, SolutionKernelCompilesToTheLessonsEntry) {
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(driver_saxpy::exercises::launch_args_kernel_solution(),
                                                                "launch_args_solution.cpp", target);
  EXPECT_EQ(driver_saxpy::ptx_entries(compiled.ptx), std::vector<std::string>{driver_saxpy::kEntry});
  EXPECT_NE(compiled.ptx.find(".param .u64 saxpy_param_4"), std::string::npos) << compiled.ptx;
}

// No GPU needed: the shipped starter's kernel text carries its own file and lines (its #line), so
// memcheck's report names launch_args_starter.cpp:23, the kernel's `if (i < n)` line, as the
// hints say.
TEST(LaunchArgsExercise, StarterKernelLinesAreTheFilesLines) {
  COURSE_SKIP_IF_STARTER_EDITED("08_driver_api_saxpy", "launch_args");
  const driver_saxpy::CompileTarget target{oldest_architecture(), driver_saxpy::CodeKind::ptx};
  const driver_saxpy::Compiled compiled = driver_saxpy::compile(driver_saxpy::exercises::launch_args_kernel_starter(),
                                                                "launch_args_starter.cpp", target);
  // .file 1 "<the working directory>/launch_args_starter.cpp"
  EXPECT_NE(compiled.ptx.find("launch_args_starter.cpp\""), std::string::npos) << compiled.ptx;
  EXPECT_NE(compiled.ptx.find(".loc\t1 23 "), std::string::npos) << compiled.ptx;
}

}  // namespace

// ---- GPU: the second kernel text, one pass ----------------------------------------------------------
// The one-pass kernel, NVRTC's CUBIN through the driver and nvcc's build through <<<>>>, at every
// awkward size and on views of x, y and out that start 0 to 3 floats into their buffers (alike:
// scalar head; different: every element scalar), bit for bit against the CPU; nothing written
// outside the view (the guard elements stay NaN).
TEST(GpuSaxpyOnePass, DriverAndRuntimeMatchTheCpuBitForBitAtAwkwardSizesAndMisalignedViews) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const DriverSession session = open_driver();
  CUDA_CHECK(cudaSetDevice(0));
  const driver_saxpy::CompileTarget target = driver_saxpy::choose_target(
      session.device.compute_capability(), driver_saxpy::CodeKind::cubin, course::nvrtc::supported_architectures());
  const driver_saxpy::Compiled cubin =
      driver_saxpy::compile(driver_saxpy::one_pass_source(), driver_saxpy::kOnePassSourceName, target);
  const course::driver::Module module(cubin.image.data());
  const CUfunction function = module.function(driver_saxpy::kOnePassEntry);
  const std::uint64_t seed = course::fresh_seed();
  struct Offsets {
    std::size_t x, y, out;
  };
  const Offsets offsets[] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {1, 0, 0}, {0, 3, 1}, {2, 1, 3}};
  const std::size_t sizes[] = {1, 2, 3, 4, 5, 7, 31, 33, 255, 257, 1023, 1025, 4099, (std::size_t{1} << 20) + 3};
  for (const std::size_t n : sizes) {
    const Inputs inputs = random_inputs(n, seed);
    for (const float a : kAValues) {
      const std::vector<float> expected = cpu_saxpy(a, inputs);
      for (const Offsets& o : offsets) {
        for (const int block : {256, 32, 1024}) {
          SCOPED_TRACE(trace(n, a, seed) + ", offsets x " + std::to_string(o.x) + " y " + std::to_string(o.y) +
                       " out " + std::to_string(o.out) + ", block " + std::to_string(block));
          course::DeviceBuffer<float> x(n + 4), y(n + 4), out(n + 8);
          x.copy_from_host(std::vector<float>(n + 4, kNaN));
          y.copy_from_host(std::vector<float>(n + 4, kNaN));
          CUDA_CHECK(cudaMemcpy(x.data() + o.x, inputs.x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
          CUDA_CHECK(cudaMemcpy(y.data() + o.y, inputs.y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
          for (const bool driver : {true, false}) {
            SCOPED_TRACE(driver ? "driver API (NVRTC)" : "runtime API (nvcc)");
            out.poison();
            if (driver) {
              driver_saxpy::launch_driver_one_pass(function, block, a, reinterpret_cast<CUdeviceptr>(x.data() + o.x),
                                                   reinterpret_cast<CUdeviceptr>(y.data() + o.y),
                                                   reinterpret_cast<CUdeviceptr>(out.data() + o.out), n, nullptr);
            } else {
              driver_saxpy::launch_runtime_one_pass(block, a, x.data() + o.x, y.data() + o.y, out.data() + o.out, n,
                                                    nullptr);
            }
            CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<float> all(n + 8, 0.0f);
            out.copy_to_host(all);
            const std::vector<float> view(all.begin() + static_cast<std::ptrdiff_t>(o.out),
                                          all.begin() + static_cast<std::ptrdiff_t>(o.out + n));
            ASSERT_TRUE(same_bits(view, expected));
            for (std::size_t i = 0; i < o.out; ++i) ASSERT_TRUE(std::isnan(all[i])) << "wrote before out, at " << i;
            for (std::size_t i = o.out + n; i < all.size(); ++i) ASSERT_TRUE(std::isnan(all[i])) << "wrote past out";
          }
        }
      }
    }
  }
}

// ---- The CPU exercise: which architecture (./scripts/check_exercise.sh 08 choose_target) --------
#include "exercises/choose_target.hpp"

namespace {

using ChooseFn = driver_saxpy::CompileTarget (*)(int, driver_saxpy::CodeKind, const std::vector<int>&);

// The first case `choose` gets wrong, or "": made-up NVRTC lists, GPUs known and unknown to them.
std::string first_choose_target_problem(ChooseFn choose) {
  using driver_saxpy::CodeKind;
  struct Case {
    std::vector<int> supported;
    int device;
    CodeKind kind;
    const char* want;  // nullptr: an error
    const char* why;
  };
  const std::vector<int> known = {75, 80, 86, 89, 90};
  const Case cases[] = {
      {known, 86, CodeKind::cubin, "sm_86", "a GPU NVRTC knows: its own architecture"},
      {known, 90, CodeKind::ptx, "compute_90", "a GPU NVRTC knows, PTX asked for"},
      {known, 0, CodeKind::cubin, "compute_75", "no GPU: PTX for the oldest, which runs on every newer GPU"},
      {known, 87, CodeKind::ptx, "compute_86", "8.7, unknown: PTX for the newest architecture not newer than it"},
      {known, 120, CodeKind::cubin, "compute_90", "12.0, newer than NVRTC: a CUBIN for 9.0 does not load on 12.0, PTX is JIT-compiled"},
      {known, 87, CodeKind::cubin, "compute_86", "8.7, unknown, CUBIN asked for: PTX for 8.6"},
      {{50, 60, 70}, 75, CodeKind::cubin, "compute_70", "an older NVRTC, a 7.5 GPU"},
      {known, 70, CodeKind::cubin, nullptr, "7.0, older than everything NVRTC knows: an error"},
  };
  const auto text = [](const std::vector<int>& list) {
    std::string s;
    for (const int a : list) {
      if (!s.empty()) s += ',';
      s += std::to_string(a);
    }
    return std::string("{").append(s).append("}");
  };
  for (const Case& c : cases) {
    std::string where = "GPU ";
    where.append(std::to_string(c.device)).append(", ").append(c.kind == CodeKind::cubin ? "CUBIN" : "PTX");
    where.append(" asked for, NVRTC knows ").append(text(c.supported)).append(": ");
    std::string got;
    try {
      got = choose(c.device, c.kind, c.supported).architecture();
    } catch (const std::exception& e) {
      got = std::string("an error (") + e.what() + ")";
      if (c.want == nullptr) continue;
    }
    if (c.want == nullptr) return where + got + ", want an error (" + c.why + ")";
    if (got != c.want) return where + got + ", want " + c.want + " (" + c.why + ")";
  }
  return "";
}

TEST(ChooseTargetExercise, SolutionMatches) {
  const std::string problem = first_choose_target_problem(driver_saxpy::exercises::choose_target_solution);
  EXPECT_TRUE(problem.empty()) << problem;
}

// The student's check: DISABLED_ in the default run, where the shipped starter fails it.
TEST(ChooseTargetExercise, DISABLED_StarterMatches) {
  const std::string problem = first_choose_target_problem(driver_saxpy::exercises::choose_target_starter);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(ChooseTargetExercise, StarterAsShippedFails) {
  COURSE_SKIP_IF_STARTER_EDITED("08_driver_api_saxpy", "choose_target");
  EXPECT_FALSE(first_choose_target_problem(driver_saxpy::exercises::choose_target_starter).empty())
      << "the starter passes as shipped: has it been solved?";
}

}  // namespace
