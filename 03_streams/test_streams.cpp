// Tests of lesson 03: chunk splitting, the ideal pipeline formula, the CPU transform against its
// definition, and on a GPU every kernel of the registry and every variant (a) to (d) against the
// CPU result, bit for bit, the timeline's events, the exercise, and checks that fail when they
// should. Suites named Gpu* need
// a GPU (label gpu); the others run anywhere (cpu).
//
// Compiled with -ffp-contract=off (CMakeLists.txt), like transform_cpu.cpp: the closed forms
// below are two roundings per step, exactly as written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "course/verify.hpp"
#include "exercise_record.hpp"
#include "gpu_test.hpp"
#include "exercises/exercises.hpp"
#include "pipeline_report.hpp"
#include "streams.hpp"
#include "tests/late_transform.hpp"

namespace {

using streams::Chunk;
using streams::Stage;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Sizes that break sloppy code: 1, primes, around the CPU block (32) and the GPU block (256).
const std::size_t kSizes[] = {1, 2, 3, 5, 7, 31, 32, 33, 255, 256, 257, 1000, 4099, 65537, 1000003};

std::vector<float> random_input(std::size_t n, std::uint64_t seed) {
  std::vector<float> x(n);
  course::fill_normal(x, seed, 0.0f, 10.0f);
  return x;
}

// The definition of f, one element at a time: what the vectorized CPU code must equal.
float f_definition(float v, int intensity) {
  for (int k = 0; k < intensity; ++k) v = v * streams::kA + streams::kB;
  return v;
}

std::vector<float> cpu_result(const std::vector<float>& x, int intensity) {
  std::vector<float> y(x.size(), kNaN);
  streams::transform_serial(x, y, intensity);
  return y;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// ---- Chunks ---------------------------------------------------------------------------------

TEST(StreamsChunks, CoverEveryElementOnceInOrderAndBalanced) {
  const std::pair<std::size_t, std::size_t> cases[] = {{1, 1},   {10, 3},       {10, 10},      {16, 4},
                                                       {7, 1},   {1000003, 7},  {1 << 24, 16}, {1 << 24, 17},
                                                       {5, 5},   {65537, 1000}, {100, 99}};
  for (const auto& [n, count] : cases) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", chunks = " + std::to_string(count));
    const std::vector<Chunk> chunks = streams::split_chunks(n, count);
    ASSERT_EQ(chunks.size(), count);
    std::size_t next = 0;
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(chunks[i].offset, next) << "chunk " << i << " is not contiguous with the one before";
      // Balanced: n / count each, and the first n % count chunks one more.
      EXPECT_EQ(chunks[i].count, n / count + (i < n % count ? 1 : 0)) << "chunk " << i;
      next = chunks[i].offset + chunks[i].count;
    }
    EXPECT_EQ(next, n) << "the chunks do not end at n";
    const auto [shortest, longest] = std::minmax_element(
        chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) { return a.count < b.count; });
    EXPECT_LE(longest->count - shortest->count, 1u);
    EXPECT_GE(shortest->count, 1u);
  }
}

TEST(StreamsChunks, DivisibleAndNot) {
  for (const Chunk& chunk : streams::split_chunks(16, 4)) EXPECT_EQ(chunk.count, 4u);
  const std::vector<Chunk> uneven = streams::split_chunks(10, 4);  // 3 3 2 2
  const Chunk expected[] = {{0, 3}, {3, 3}, {6, 2}, {8, 2}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(uneven[i].offset, expected[i].offset);
    EXPECT_EQ(uneven[i].count, expected[i].count);
  }
}

TEST(StreamsChunks, OneChunkPerElementAndOneChunkForAll) {
  const std::vector<Chunk> singles = streams::split_chunks(5, 5);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(singles[i].offset, i);
    EXPECT_EQ(singles[i].count, 1u);
  }
  const std::vector<Chunk> whole = streams::split_chunks(1000003, 1);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].offset, 0u);
  EXPECT_EQ(whole[0].count, 1000003u);
}

TEST(StreamsChunks, BadInputsAreRejected) {
  EXPECT_THROW(streams::split_chunks(10, 0), std::invalid_argument);
  EXPECT_THROW(streams::split_chunks(10, 11), std::invalid_argument);
  EXPECT_THROW(streams::split_chunks(0, 1), std::invalid_argument);
  EXPECT_THROW(streams::split_chunks(0, 0), std::invalid_argument);
}

TEST(StreamsChunks, SmallestCountAboveThatLeavesARemainder) {
  EXPECT_EQ(streams::chunk_count_with_remainder(1 << 24, 16), 17u);
  EXPECT_EQ(streams::chunk_count_with_remainder(12, 1), 5u);  // 2, 3 and 4 divide 12
  EXPECT_EQ(streams::chunk_count_with_remainder(6, 2), 4u);   // 3 divides 6
  EXPECT_EQ(streams::chunk_count_with_remainder(1000003, 7), 8u);
  EXPECT_EQ(streams::chunk_count_with_remainder(10, 9), std::nullopt);  // only 10, which divides 10
  EXPECT_EQ(streams::chunk_count_with_remainder(5, 5), std::nullopt);
  EXPECT_EQ(streams::chunk_count_with_remainder(1, 1), std::nullopt);
  EXPECT_EQ(streams::chunk_count_with_remainder(2, 1), std::nullopt);   // 2 divides 2
  EXPECT_EQ(streams::chunk_count_with_remainder(3, 1), 2u);
}

// ---- The ideal pipeline ---------------------------------------------------------------------

TEST(StreamsIdealPipeline, HandComputedCases) {
  EXPECT_DOUBLE_EQ(streams::ideal_pipeline_ms(1, 1, 1, 1), 3.0);  // one chunk: nothing to overlap
  EXPECT_DOUBLE_EQ(streams::ideal_pipeline_ms(2, 1, 2, 4), 11.0);  // the picture in chunks.cpp
  EXPECT_DOUBLE_EQ(streams::ideal_pipeline_ms(1, 2, 3, 4), 15.0);  // 6 + 3 x 3: copy-out bound
  EXPECT_DOUBLE_EQ(streams::ideal_pipeline_ms(0, 4, 0, 3), 12.0);  // kernel only: 3 x 4
  EXPECT_DOUBLE_EQ(streams::ideal_pipeline_ms(0.5, 0.25, 0.5, 16), 8.75);  // 1.25 + 15 x 0.5
  EXPECT_DOUBLE_EQ(streams::sequential_pipeline_ms(2, 1, 2, 4), 20.0);
  EXPECT_DOUBLE_EQ(streams::sequential_pipeline_ms(1, 1, 1, 1), streams::ideal_pipeline_ms(1, 1, 1, 1));
}

TEST(StreamsIdealPipeline, BetweenTheBottleneckAndNoOverlapAtAll) {
  const double stages[][3] = {{0.3, 0.1, 0.3}, {0.1, 2.0, 0.1}, {1, 1, 1}, {0.01, 0.02, 0.5}};
  for (const auto& s : stages) {
    for (std::size_t chunks : {1u, 2u, 16u, 1000u}) {
      const double ideal = streams::ideal_pipeline_ms(s[0], s[1], s[2], chunks);
      EXPECT_LE(ideal, streams::sequential_pipeline_ms(s[0], s[1], s[2], chunks) + 1e-12);
      EXPECT_GE(ideal, static_cast<double>(chunks) * std::max({s[0], s[1], s[2]}) - 1e-12);
    }
  }
}

TEST(StreamsIdealPipeline, BadInputsAreRejected) {
  EXPECT_THROW(streams::ideal_pipeline_ms(1, 1, 1, 0), std::invalid_argument);
  EXPECT_THROW(streams::ideal_pipeline_ms(-1, 1, 1, 2), std::invalid_argument);
  EXPECT_THROW(streams::sequential_pipeline_ms(1, 1, -0.5, 2), std::invalid_argument);
}

// ---- CPU transform --------------------------------------------------------------------------

TEST(StreamsCpu, ZeroStepsIsTheIdentity) {
  const auto x = random_input(1000003, course::fresh_seed());
  EXPECT_TRUE(same_bits(cpu_result(x, 0), x));
}

TEST(StreamsCpu, ClosedFormsForOneAndTwoSteps) {
  const std::uint64_t seed = course::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  const auto x = random_input(4099, seed);
  const auto one = cpu_result(x, 1);
  const auto two = cpu_result(x, 2);
  std::size_t differs_from_fma = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float a = streams::kA, b = streams::kB;
    ASSERT_EQ(one[i], x[i] * a + b) << "i = " << i;                // one step: round(round(x * a) + b)
    ASSERT_EQ(two[i], (x[i] * a + b) * a + b) << "i = " << i;      // two steps
    if (one[i] != std::fma(x[i], a, b)) ++differs_from_fma;        // one rounding instead of two
  }
  // The fused form rounds once, so on random inputs it differs in the last bit somewhere: if it
  // never did, the code (or the compiler) would be fusing.
  EXPECT_GT(differs_from_fma, 0u);
  // Known values: from 0, one step gives exactly b; the second step is then b * a + b.
  EXPECT_EQ(cpu_result({0.0f}, 1)[0], 0.5f);
  EXPECT_EQ(cpu_result({0.0f}, 2)[0], 0.5f * streams::kA + 0.5f);
}

TEST(StreamsCpu, SerialMatchesTheDefinitionAtAwkwardSizes) {
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kSizes) {
    for (int intensity : {0, 1, 2, 7, 100}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", intensity = " + std::to_string(intensity) +
                   ", seed = " + std::to_string(seed));
      const auto x = random_input(n, seed);
      const auto y = cpu_result(x, intensity);
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = f_definition(x[i], intensity);
      EXPECT_TRUE(same_bits(y, expected));
    }
  }
}

TEST(StreamsCpu, ParallelEqualsSerialExactly) {
  const std::uint64_t seed = course::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000003}}) {
    const auto x = random_input(n, seed);
    std::vector<float> parallel(n, kNaN);
    streams::transform_parallel(x, parallel, 37);
    EXPECT_TRUE(same_bits(cpu_result(x, 37), parallel))
        << "the same operations on the same inputs must give the same bits, whatever the thread count";
  }
}

TEST(StreamsCpu, StaysFiniteAtTheHighestIntensity) {
  const std::vector<float> x = {-1e30f, -1.0f, 0.0f, 1.0f, 1e30f};
  for (float y : cpu_result(x, streams::kMaxIntensity)) {
    EXPECT_TRUE(std::isfinite(y));
    EXPECT_NEAR(y, 500.0f, 1.0f) << "every value ends near the fixed point b / (1 - a)";
  }
}

TEST(StreamsCpu, AWrongOrMissingElementFailsExactVerification) {
  const auto x = random_input(5000, course::fresh_seed());
  const auto y = cpu_result(x, 10);
  EXPECT_TRUE(course::verify(y, y, course::Tolerance::exact()).passed);
  auto wrong = y;
  wrong[4321] = std::nextafter(wrong[4321], 1e30f);  // one ulp off
  auto check = course::verify(wrong, y, course::Tolerance::exact());
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.worst_index, 4321u);
  auto missing = y;
  missing[17] = kNaN;
  EXPECT_FALSE(course::verify(missing, y, course::Tolerance::exact()).passed);
}

// ---- Timeline JSON (what 03_streams/plot_timeline.py reads) ---------------------------------------------

TEST(StreamsTimeline, JsonHasTheShapeThePlotScriptReads) {
  streams::Timeline timeline;
  timeline.title = "2 chunks over 2 streams, intensity 100";
  timeline.events = {{0, 0, Stage::h2d, 0.0, 0.0, 0.3},    {0, 0, Stage::kernel, 0.3, 0.3, 0.4},
                     {0, 0, Stage::d2h, 0.4, 0.4, 0.7},    {1, 1, Stage::h2d, 0.1, 0.3, 0.6},
                     {1, 1, Stage::kernel, 0.6, 0.6, 0.7}, {1, 1, Stage::d2h, 0.7, 0.7, 1.0}};
  const nlohmann::json json = streams::timeline_json(timeline);
  ASSERT_EQ(json.size(), 2u) << json.dump();
  EXPECT_EQ(json.at("title"), timeline.title);
  ASSERT_TRUE(json.at("events").is_array());
  ASSERT_EQ(json.at("events").size(), 6u);
  const nlohmann::json& event = json.at("events")[4];
  EXPECT_EQ(event.size(), 5u) << event.dump();
  EXPECT_EQ(event.at("stream"), 1);
  EXPECT_EQ(event.at("chunk"), 1);
  EXPECT_EQ(event.at("stage"), "kernel");
  EXPECT_DOUBLE_EQ(event.at("start_ms").get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(event.at("end_ms").get<double>(), 0.7);
  EXPECT_STREQ(streams::stage_name(Stage::h2d), "h2d");
  EXPECT_STREQ(streams::stage_name(Stage::d2h), "d2h");
}

TEST(StreamsTimeline, CopiesStartWhenTheirEngineIsFree) {
  // Measured on an H200, 4 streams: each copy in was reached early in its stream, then waited
  // for the engine, which took chunk 3 before chunk 2.
  using E = streams::TimelineEvent;
  std::vector<E> events = {{0, 0, Stage::h2d, 0.006, 0.006, 0.091},    {0, 0, Stage::kernel, 0.093, 0.093, 0.112},
                           {0, 0, Stage::d2h, 0.120, 0.120, 0.225},    {1, 1, Stage::h2d, 0.040, 0.040, 0.178},
                           {1, 1, Stage::kernel, 0.182, 0.182, 0.212}, {1, 1, Stage::d2h, 0.222, 0.222, 0.334},
                           {2, 2, Stage::h2d, 0.055, 0.055, 0.356},    {3, 3, Stage::h2d, 0.079, 0.079, 0.268}};
  streams::infer_copy_starts(events);
  EXPECT_DOUBLE_EQ(events[0].start_ms, 0.006);  // the engine was free: it started when reached
  EXPECT_DOUBLE_EQ(events[3].start_ms, 0.091);  // after chunk 0's copy in
  EXPECT_DOUBLE_EQ(events[7].start_ms, 0.178);  // chunk 3 after chunk 1's
  EXPECT_DOUBLE_EQ(events[6].start_ms, 0.268);  // chunk 2 last, after chunk 3's
  EXPECT_DOUBLE_EQ(events[2].start_ms, 0.120);  // the other direction has its own engine
  EXPECT_DOUBLE_EQ(events[5].start_ms, 0.225);  // after chunk 0's copy out
  EXPECT_DOUBLE_EQ(events[1].start_ms, 0.093);  // kernels are left as reached
  EXPECT_DOUBLE_EQ(events[4].start_ms, 0.182);
}

TEST(StreamsPipeline, BadArgumentsAreRejectedBeforeTheGpuIsTouched) {
  // Empty arrays allocate nothing, so this needs no GPU.
  streams::DeviceArrays device(0);
  streams::PinnedArrays host(0);
  const streams::Transform transform{1};
  EXPECT_THROW(streams::run_pipelined(host, device, transform, {}, {}), std::invalid_argument);  // no streams
  EXPECT_THROW(streams::exercises::run_three_queues_solution(host, device, transform, {}, {}), std::invalid_argument);
  EXPECT_THROW(streams::run_copies_only(host, device, {}, {}), std::invalid_argument);  // no streams
}

TEST(StreamsRegistry, NamesAreUniqueAndSelectable) {
  const auto names = course::kernel_names(streams::kernels());
  ASSERT_GE(names.size(), 1u);
  EXPECT_EQ(names.front(), "transform");
  EXPECT_EQ(streams::Transform{}.launch, streams::kernel("transform").launch) << "the variants' default kernel";
  for (const std::string& name : names) {
    EXPECT_EQ(streams::kernel(name).name, name);
    EXPECT_EQ(course::select_kernels(streams::kernels(), {name}).size(), 1u);
  }
  std::size_t on_request = 0;  // the "make it fast" exercise's kernels (exercises/registry.inc): only by name
  for (const auto& entry : streams::kernels()) on_request += entry.traits.on_request ? 1 : 0;
  EXPECT_GE(on_request, 2u) << "the exercise's starter and solution";
  EXPECT_EQ(course::select_kernels(streams::kernels(), {"all"}).size(), names.size() - on_request);
  EXPECT_EQ(course::select_kernels(streams::kernels(), {}).size(), names.size() - on_request) << "the default run";
  EXPECT_THROW(course::select_kernels(streams::kernels(), {"no_such_kernel"}), course::UsageError);
  EXPECT_THROW(streams::kernel("no_such_kernel"), std::out_of_range);
}

// ---- GPU ------------------------------------------------------------------------------------

// Runs `kernel` alone on x (output poisoned first) and returns y. max_blocks > 0 caps the grid
// (the default: as many blocks as fit on the GPU).
std::vector<float> run_kernel(const std::string& kernel, const std::vector<float>& x, int intensity,
                              int max_blocks = 0) {
  course::DeviceBuffer<float> d_x(x.size()), d_y(x.size());
  d_x.copy_from_host(x);
  d_y.poison();
  const streams::Transform transform{intensity, streams::kernel(kernel).launch, max_blocks};
  transform.launch(d_x.data(), d_y.data(), x.size(), transform, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> y(x.size());
  d_y.copy_to_host(y);
  return y;
}

void expect_exact(std::span<const float> y, const std::vector<float>& reference, const std::string& what) {
  const course::VerifyResult check = course::verify(y, reference, course::Tolerance::exact());
  EXPECT_TRUE(check.passed) << what << ": " << check.summary();
}

// Every kernel in kernels/registry.inc, without naming any: a new kernel is tested as it is added.
class GpuStreamsKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuStreamsKernels, MatchCpuExactlyAtAwkwardSizes) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  for (std::size_t n : kSizes) {
    for (int intensity : {0, 1, 2, 100}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", intensity = " + std::to_string(intensity) +
                   ", seed = " + std::to_string(seed));
      const auto x = random_input(n, seed);
      expect_exact(run_kernel(GetParam(), x, intensity), cpu_result(x, intensity), GetParam());
    }
  }
}

TEST_P(GpuStreamsKernels, TinyGridLoopsOverEverything) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  // One or two blocks of 256 threads for 100,003 elements: each thread loops ~200-400 times.
  const auto x = random_input(100003, course::fresh_seed());
  const auto expected = cpu_result(x, 5);
  expect_exact(run_kernel(GetParam(), x, 5, 1), expected, "1 block");
  expect_exact(run_kernel(GetParam(), x, 5, 2), expected, "2 blocks");
}

// Everything a variant needs: input, CPU result, device and pinned arrays, streams.
struct GpuSetup {
  GpuSetup(std::size_t n, std::size_t stream_count, int steps, std::uint64_t seed,
           const std::string& kernel = "transform")
      : transform{steps, streams::kernel(kernel).launch},
        x(random_input(n, seed)),
        reference(cpu_result(x, steps)),
        device(n),
        host(n),
        queues(stream_count) {
    std::copy(x.begin(), x.end(), host.x.data());
  }
  // NaN in every output, on both sides: an element no variant writes fails verification.
  void poison_outputs() {
    std::fill(host.y.data(), host.y.data() + host.y.size(), kNaN);
    device.y.poison();
  }

  streams::Transform transform;
  std::vector<float> x, reference;
  streams::DeviceArrays device;
  streams::PinnedArrays host;
  std::vector<course::Stream> queues;  // (named so as not to hide namespace streams)
};

struct PipelineCase {
  std::size_t n, chunks, streams;
};
const PipelineCase kCases[] = {{1000003, 7, 3}, {5, 5, 5},     {1, 1, 1},      {4099, 16, 4},
                               {257, 2, 1},     {65537, 64, 8}, {1 << 20, 16, 4}};

// The variants (a) to (d), with each kernel of the registry launched for every chunk.
TEST_P(GpuStreamsKernels, EveryVariantMatchesCpuExactly) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  for (const PipelineCase& c : kCases) {
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", " + std::to_string(c.chunks) + " chunks, " +
                 std::to_string(c.streams) + " streams, seed = " + std::to_string(seed));
    GpuSetup setup(c.n, c.streams, 13, seed, GetParam());

    std::vector<float> pageable_y(c.n, kNaN);
    setup.device.y.poison();
    streams::run_pageable(setup.x, pageable_y, setup.device, setup.transform);
    expect_exact(pageable_y, setup.reference, "(a) pageable");

    setup.poison_outputs();
    streams::run_one_stream(setup.host, setup.device, setup.transform, setup.queues[0].get());
    expect_exact(setup.host.y.span(), setup.reference, "(b) one stream");

    setup.poison_outputs();
    streams::run_pipelined(setup.host, setup.device, setup.transform, streams::split_chunks(c.n, c.chunks),
                           setup.queues);
    expect_exact(setup.host.y.span(), setup.reference, "(c) pipelined");

    if (const auto unequal = streams::chunk_count_with_remainder(c.n, c.chunks)) {
      setup.poison_outputs();
      streams::run_pipelined(setup.host, setup.device, setup.transform, streams::split_chunks(c.n, *unequal),
                             setup.queues);
      expect_exact(setup.host.y.span(), setup.reference, "(d) " + std::to_string(*unequal) + " unequal chunks");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuStreamsKernels, ::testing::ValuesIn(course::kernel_names(streams::kernels())),
                         course::testing::ParamName());

// The copy-engine baseline: the chunks of (c) with cudaMemcpyAsync only bring x back bit for bit;
// a chunk left out stays poisoned, so the check that guards the row can fail.
TEST(GpuStreamsVariants, CopiesOnlyBringXBackBitForBit) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  for (const PipelineCase& c : kCases) {
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", " + std::to_string(c.chunks) + " chunks, " +
                 std::to_string(c.streams) + " streams, seed = " + std::to_string(seed));
    GpuSetup setup(c.n, c.streams, 0, seed);
    setup.poison_outputs();
    streams::run_copies_only(setup.host, setup.device, streams::split_chunks(c.n, c.chunks), setup.queues);
    expect_exact(setup.host.y.span(), setup.x, "copies only");
  }
  GpuSetup setup(100003, 3, 0, seed);
  std::vector<Chunk> chunks = streams::split_chunks(100003, 7);
  const Chunk skipped = chunks[2];
  chunks.erase(chunks.begin() + 2);
  setup.poison_outputs();
  streams::run_copies_only(setup.host, setup.device, chunks, setup.queues);
  const auto check = course::verify(setup.host.y.span(), setup.x, course::Tolerance::exact());
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, skipped.count);
}

TEST(GpuStreamsVariants, RepeatedRunsOnTheSameStreamsStayCorrect) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  GpuSetup setup(100003, 4, 50, course::fresh_seed());
  const auto chunks = streams::split_chunks(100003, 16);
  for (int run = 0; run < 5; ++run) {
    setup.poison_outputs();
    streams::run_pipelined(setup.host, setup.device, setup.transform, chunks, setup.queues);
    expect_exact(setup.host.y.span(), setup.reference, "run " + std::to_string(run));
  }
}

TEST(GpuStreamsVariants, BadChunksAreRejected) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  GpuSetup setup(100, 2, 1, course::fresh_seed());
  const Chunk outside[] = {{90, 11}};
  const Chunk empty[] = {{0, 0}};
  EXPECT_THROW(streams::run_pipelined(setup.host, setup.device, setup.transform, outside, setup.queues),
               std::invalid_argument);
  EXPECT_THROW(streams::run_pipelined(setup.host, setup.device, setup.transform, empty, setup.queues),
               std::invalid_argument);
  EXPECT_THROW(streams::record_timeline(setup.host, setup.device, setup.transform, outside, setup.queues),
               std::invalid_argument);
}

TEST(GpuStreamsPipeline, StageTimesArePositive) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  GpuSetup setup(1 << 20, 1, 100, course::fresh_seed());
  const auto chunks = streams::split_chunks(1 << 20, 8);
  const streams::StageTimes stage =
      streams::measure_stages(setup.host, setup.device, setup.transform, chunks, setup.queues[0].get(), {1, 3});
  EXPECT_GT(stage.h2d_ms, 0.0);
  EXPECT_GT(stage.kernel_ms, 0.0);
  EXPECT_GT(stage.d2h_ms, 0.0);
  // The stage runs also compute y: it must be right as well.
  expect_exact(setup.host.y.span(), setup.reference, "measure_stages");
}

TEST(GpuStreamsTimeline, ThreeOrderedEventsPerChunk) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::uint64_t seed = course::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  GpuSetup setup(1000003, 3, 13, seed);
  const auto chunks = streams::split_chunks(1000003, 7);
  setup.poison_outputs();
  const streams::Timeline timeline =
      streams::record_timeline(setup.host, setup.device, setup.transform, chunks, setup.queues);
  expect_exact(setup.host.y.span(), setup.reference, "timeline run");

  EXPECT_EQ(timeline.title, "7 chunks over 3 streams, intensity 13");
  ASSERT_EQ(timeline.events.size(), 3 * chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    SCOPED_TRACE("chunk " + std::to_string(i));
    const streams::TimelineEvent* e = &timeline.events[3 * i];
    for (int s = 0; s < 3; ++s) {
      EXPECT_EQ(e[s].chunk, i);
      EXPECT_EQ(e[s].stream, static_cast<int>(i % 3));
      EXPECT_EQ(e[s].stage, streams::kStages[s]);
      EXPECT_GE(e[s].reached_ms, 0.0);
      EXPECT_GE(e[s].start_ms, e[s].reached_ms);
      EXPECT_GE(e[s].end_ms, e[s].start_ms);
      EXPECT_LE(e[s].end_ms, timeline.span_ms);
    }
    // The stages of one chunk in order: in, kernel, out.
    EXPECT_GE(e[1].start_ms, e[0].end_ms);
    EXPECT_GE(e[2].start_ms, e[1].end_ms);
  }
  // One copy at a time in each direction, as infer_copy_starts assumes.
  for (Stage direction : {Stage::h2d, Stage::d2h}) {
    std::vector<streams::TimelineEvent> copies;
    for (const auto& event : timeline.events) {
      if (event.stage == direction) copies.push_back(event);
    }
    std::sort(copies.begin(), copies.end(), [](const auto& a, const auto& b) { return a.end_ms < b.end_ms; });
    for (std::size_t j = 1; j < copies.size(); ++j) EXPECT_GE(copies[j].start_ms, copies[j - 1].end_ms);
  }
  const nlohmann::json json = streams::timeline_json(timeline);
  EXPECT_EQ(json.at("events").size(), 21u);
}

TEST(GpuStreamsVerification, AChunkLeftUnwrittenFails) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  GpuSetup setup(100003, 3, 13, course::fresh_seed());
  std::vector<Chunk> chunks = streams::split_chunks(100003, 7);
  const Chunk skipped = chunks[3];
  chunks.erase(chunks.begin() + 3);  // the deliberate bug: chunk 3 is never issued
  setup.poison_outputs();
  streams::run_pipelined(setup.host, setup.device, setup.transform, chunks, setup.queues);
  const auto check = course::verify(setup.host.y.span(), setup.reference, course::Tolerance::exact());
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.nan_count, skipped.count);
  EXPECT_EQ(check.mismatches, skipped.count);
  EXPECT_EQ(check.worst_index, skipped.offset);
}

TEST(GpuStreamsVerification, OneWrongElementFails) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  GpuSetup setup(100003, 3, 13, course::fresh_seed());
  setup.poison_outputs();
  streams::run_pipelined(setup.host, setup.device, setup.transform, streams::split_chunks(100003, 7),
                         setup.queues);
  expect_exact(setup.host.y.span(), setup.reference, "before the change");
  setup.host.y[54321] = std::nextafter(setup.host.y[54321], 1e30f);
  const auto check = course::verify(setup.host.y.span(), setup.reference, course::Tolerance::exact());
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.worst_index, 54321u);
}

// ---- Exercises: the solution is checked; the starter, as shipped, must fail ----------------

using ThreeQueues = void (*)(streams::PinnedArrays&, streams::DeviceArrays&, const streams::Transform&,
                             std::span<const Chunk>, std::span<const course::Stream>);

void expect_three_queues_match_cpu_exactly(ThreeQueues run_three_queues) {
  const std::uint64_t seed = course::fresh_seed();
  for (const PipelineCase& c : kCases) {
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", " + std::to_string(c.chunks) + " chunks, seed = " +
                 std::to_string(seed));
    GpuSetup setup(c.n, 3, 13, seed);
    for (int run = 0; run < 2; ++run) {  // the same queues and arrays again: nothing left over
      setup.poison_outputs();
      run_three_queues(setup.host, setup.device, setup.transform, streams::split_chunks(c.n, c.chunks), setup.queues);
      expect_exact(setup.host.y.span(), setup.reference, "three queues, run " + std::to_string(run));
      if (::testing::Test::HasFailure()) return;  // the first failed case is the one to read
    }
  }
  GpuSetup four(100, 4, 1, seed);
  EXPECT_THROW(run_three_queues(four.host, four.device, four.transform, streams::split_chunks(100, 4), four.queues),
               std::invalid_argument)
      << "one queue per engine: exactly 3";
}

TEST(GpuExercise, ThreeQueuesSolutionMatchesCpuExactly) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_three_queues_match_cpu_exactly(streams::exercises::run_three_queues_solution);
}

// The student's check (./scripts/check_exercise.sh 03 three_queues): DISABLED_ in the default
// run, where the shipped starter fails it.
TEST(GpuExercise, DISABLED_ThreeQueuesStarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_three_queues_match_cpu_exactly(streams::exercises::run_three_queues_starter);
}

TEST(GpuExercise, ThreeQueuesStarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("03_streams", "three_queues");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::size_t n = 100003;
  GpuSetup setup(n, 3, 13, course::fresh_seed());
  setup.poison_outputs();
  streams::exercises::run_three_queues_starter(setup.host, setup.device, setup.transform,
                                               streams::split_chunks(n, 7), setup.queues);
  const auto check = course::verify(setup.host.y.span(), setup.reference, course::Tolerance::exact());
  EXPECT_FALSE(check.passed) << "the starter copies x in and nothing back: y should stay poisoned";
  EXPECT_EQ(check.nan_count, n);
}

// ---- Exercise 4: stream order (find the bug, on a GPU) ----------------------------------------

// Which chunks of y differ from the reference (to the bit), and what they hold; "" when none does.
// The check's FAIL line: "7 of 7 chunks came back wrong (0, 1, ...): 1000003 elements, all NaN
// (...)". NaN is what y held on the GPU before the run (GpuSetup::poison_outputs).
std::string wrong_chunks(std::span<const float> y, std::span<const float> reference, std::span<const Chunk> chunks) {
  std::vector<std::size_t> wrong;
  std::size_t elements = 0, nan = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    std::size_t bad = 0;
    for (std::size_t i = chunks[c].offset; i < chunks[c].offset + chunks[c].count; ++i) {
      if (std::memcmp(&y[i], &reference[i], sizeof(float)) == 0) continue;
      ++bad;
      if (std::isnan(y[i])) ++nan;
    }
    if (bad > 0) wrong.push_back(c);
    elements += bad;
  }
  if (wrong.empty()) return "";
  std::string list;
  for (std::size_t k = 0; k < wrong.size() && k < 8; ++k) list += (k ? ", " : "") + std::to_string(wrong[k]);
  if (wrong.size() > 8) list += ", ...";
  return std::to_string(wrong.size()) + " of " + std::to_string(chunks.size()) + " chunks came back wrong (" + list +
         "): " + std::to_string(elements) + " elements, " +
         (nan == elements ? std::string("all") : std::to_string(nan) + " of them") +
         " NaN (y on the GPU held NaN before the run: no kernel had written those elements when they were copied back)";
}

TEST(StreamOrderReport, NamesTheWrongChunksAndWhatTheyHold) {
  const Chunk chunks[] = {{0, 3}, {3, 3}, {6, 2}};
  const std::vector<float> reference = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> y = reference;
  EXPECT_EQ(wrong_chunks(y, reference, chunks), "");
  y[3] = kNaN;
  y[4] = kNaN;
  y[7] = 9;
  EXPECT_EQ(wrong_chunks(y, reference, chunks),
            "2 of 3 chunks came back wrong (1, 2): 3 elements, 2 of them NaN (y on the GPU held NaN before the run: "
            "no kernel had written those elements when they were copied back)");
  y[7] = kNaN;
  EXPECT_NE(wrong_chunks(y, reference, chunks).find("3 elements, all NaN"), std::string::npos);
  // To the bit: -0 is not +0.
  const std::vector<float> zeros(8, 0.0f);
  std::vector<float> signed_zero = zeros;
  signed_zero[0] = -0.0f;
  EXPECT_NE(wrong_chunks(signed_zero, zeros, chunks).find("1 of 3 chunks came back wrong (0)"), std::string::npos);
}

using TwoStreams = ThreeQueues;  // the same signature as the three-queue exercise

// The first launch of a kernel in a process loads its code (CUDA loads modules lazily), and the
// load waits for the work already on the GPU: in a fresh process that would hold chunk 0's copy
// out until its kernel is done, by accident, and hide the starter's bug for that chunk. One run
// of the pipeline on one element first, so every hand-over the check sees is the code's own.
void load_the_kernels_first() {
  GpuSetup warm(1, 2, 13, 1);
  warm.transform.launch = streams::testing::launch_late_transform;
  streams::exercises::run_stream_order_solution(warm.host, warm.device, warm.transform, streams::split_chunks(1, 1),
                                               warm.queues);
}

// The check runs the lesson's transform late (tests/late_transform.hpp): it writes nothing for
// milliseconds after its stage starts, so a copy out that does not wait for it fails every run.
// GpuExclusive: while it runs, no other test's copies share the copy engines with it.
void expect_two_streams_match_cpu_exactly(TwoStreams run_two_streams) {
  load_the_kernels_first();
  const std::uint64_t seed = course::fresh_seed();
  const std::pair<std::size_t, std::size_t> cases[] = {{1000003, 7}, {1, 1},       {5, 5},      {257, 2},
                                                       {4099, 16},   {65537, 64}, {1 << 20, 16}};
  for (const auto& [n, chunk_count] : cases) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(chunk_count) + " chunks, seed = " +
                 std::to_string(seed));
    GpuSetup setup(n, 2, 13, seed);
    setup.transform.launch = streams::testing::launch_late_transform;
    const std::vector<Chunk> chunks = streams::split_chunks(n, chunk_count);
    for (int run = 0; run < 2; ++run) {  // the same streams and arrays again: nothing left over
      setup.poison_outputs();
      run_two_streams(setup.host, setup.device, setup.transform, chunks, setup.queues);
      const std::string problem = wrong_chunks(setup.host.y.span(), setup.reference, chunks);
      EXPECT_TRUE(problem.empty()) << (run == 0 ? "" : "second run on the same streams: ") << problem;
      if (::testing::Test::HasFailure()) return;  // the first failed case is the one to read
    }
  }
  GpuSetup three(100, 3, 1, seed);
  EXPECT_THROW(run_two_streams(three.host, three.device, three.transform, streams::split_chunks(100, 4), three.queues),
               std::invalid_argument)
      << "a copy stream and a compute stream: exactly 2";
}

TEST(GpuExclusiveStreamOrder, SolutionMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_two_streams_match_cpu_exactly(streams::exercises::run_stream_order_solution);
}

// The student's check (./scripts/check_exercise.sh 03 stream_order): DISABLED_ in the default
// run, where the shipped starter fails it.
TEST(GpuExclusiveStreamOrder, DISABLED_StarterMatchesTheReference) {
  COURSE_REQUIRE_GPU_OR_SKIP();
  expect_two_streams_match_cpu_exactly(streams::exercises::run_stream_order_starter);
}

TEST(GpuExclusiveStreamOrder, StarterAsShippedFailsVerification) {
  COURSE_SKIP_IF_STARTER_EDITED("03_streams", "stream_order");
  COURSE_REQUIRE_GPU_OR_SKIP();
  const std::size_t n = 100003;
  const std::uint64_t seed = course::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  load_the_kernels_first();
  GpuSetup setup(n, 2, 13, seed);
  setup.transform.launch = streams::testing::launch_late_transform;
  const std::vector<Chunk> chunks = streams::split_chunks(n, 7);
  setup.poison_outputs();
  streams::exercises::run_stream_order_starter(setup.host, setup.device, setup.transform, chunks, setup.queues);
  const auto check = course::verify(setup.host.y.span(), setup.reference, course::Tolerance::exact());
  EXPECT_FALSE(check.passed) << "the starter's copies out do not wait for their kernels: y should stay poisoned";
  // Every chunk's copy out waits only for the kernel before its own, so it runs while its own
  // kernel spins: all of y comes back poisoned (chunk 0 too, once the kernels are loaded first).
  EXPECT_EQ(check.nan_count, n) << wrong_chunks(setup.host.y.span(), setup.reference, chunks);
}

}  // namespace

// ---- Exercise 2: balanced chunks (CPU) ------------------------------------------------------------

namespace {

using SplitChunksFn = std::vector<streams::Chunk> (*)(std::size_t, std::size_t);

// The first rule split(n, chunks) breaks, or "".
std::string chunks_problem(SplitChunksFn split, std::size_t n, std::size_t chunks) {
  const std::string where = "n = " + std::to_string(n) + ", " + std::to_string(chunks) + " chunks: ";
  std::vector<streams::Chunk> result;
  try {
    result = split(n, chunks);
  } catch (const std::invalid_argument&) {
    return where + "std::invalid_argument, for a valid request";
  }
  std::string sizes;
  for (std::size_t i = 0; i < result.size() && i < 8; ++i) sizes += (i ? ", " : "") + std::to_string(result[i].count);
  if (result.size() > 8) sizes += ", ...";
  if (result.size() != chunks) return where + std::to_string(result.size()) + " chunks (" + sizes + ")";
  std::size_t offset = 0, smallest = n, largest = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (result[i].offset != offset) {
      return where + "chunk " + std::to_string(i) + " starts at " + std::to_string(result[i].offset) + ", not at " +
             std::to_string(offset) + " where chunk " + std::to_string(i - 1) + " ended";
    }
    if (result[i].count == 0) return where + "chunk " + std::to_string(i) + " is empty (" + sizes + ")";
    offset += result[i].count;
    smallest = std::min(smallest, result[i].count);
    largest = std::max(largest, result[i].count);
  }
  if (offset != n) return where + "the chunks hold " + std::to_string(offset) + " elements (" + sizes + ")";
  if (largest - smallest > 1) {
    return where + "chunks of " + std::to_string(smallest) + " to " + std::to_string(largest) +
           " elements differ by more than one (" + sizes + ")";
  }
  return "";
}

std::string first_chunks_problem(SplitChunksFn split) {
  for (const auto& [n, chunks] : {std::pair<std::size_t, std::size_t>{0, 0}, {5, 0}, {5, 6}}) {
    bool threw = false;
    try {
      split(n, chunks);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    if (!threw) {
      return "n = " + std::to_string(n) + ", " + std::to_string(chunks) + " chunks: no std::invalid_argument";
    }
  }
  for (std::size_t n = 1; n <= 64; ++n) {
    for (std::size_t chunks = 1; chunks <= n; ++chunks) {
      std::string problem = chunks_problem(split, n, chunks);
      if (!problem.empty()) return problem;
    }
  }
  for (const auto& [n, chunks] : {std::pair<std::size_t, std::size_t>{(std::size_t{1} << 24) + 1, 17},
                                  {(std::size_t{1} << 24) - 1, 16}, {1000003, 1000}}) {
    std::string problem = chunks_problem(split, n, chunks);
    if (!problem.empty()) return problem;
  }
  return "";
}

TEST(BalancedChunksExercise, SolutionMatches) {
  const std::string problem = first_chunks_problem(streams::exercises::split_chunks_solution);
  EXPECT_TRUE(problem.empty()) << problem;
}

// The student's check (./scripts/check_exercise.sh 03 balanced_chunks): DISABLED_ in the default
// run, where the shipped starter fails it.
TEST(BalancedChunksExercise, DISABLED_StarterMatches) {
  const std::string problem = first_chunks_problem(streams::exercises::split_chunks_starter);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(BalancedChunksExercise, StarterAsShippedFails) {
  COURSE_SKIP_IF_STARTER_EDITED("03_streams", "balanced_chunks");
  EXPECT_FALSE(first_chunks_problem(streams::exercises::split_chunks_starter).empty())
      << "the starter passes as shipped: has it been solved?";
}

}  // namespace
