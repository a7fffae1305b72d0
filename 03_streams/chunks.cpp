// Lesson 03: splitting the work into chunks, and the best time a pipeline of chunks can reach.
//
// Teaches: to overlap copies with compute, the array is cut into chunks, so that while chunk i
// is in the kernel, chunk i + 1 is being copied in and chunk i - 1 copied out. How long that
// takes at best follows from the time of each stage, with a little scheduling arithmetic.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "course/errors.hpp"
#include "course/format.hpp"
#include "streams.hpp"

namespace streams {

void check_chunking(std::size_t length, int chunks, int streams) {
  if (chunks < 1 || static_cast<std::size_t>(chunks) > length) {
    throw course::UsageError("--chunks: " + std::to_string(chunks) + " chunks for " + std::to_string(length) +
                             " elements (--length): at most one chunk per element");
  }
  if (streams > chunks) {
    throw course::UsageError("--streams: " + std::to_string(streams) + " streams for " + std::to_string(chunks) +
                             " chunks (--chunks): a stream without a chunk has nothing to do");
  }
}

std::string chunked_row_name(char variant, std::size_t chunks, std::size_t streams) {
  auto plural = [](std::size_t count, const char* word) {
    return course::format_count(count) + " " + word + (count == 1 ? "" : "s");
  };
  return std::string("GPU (") + variant + ") pinned, " + plural(chunks, "chunk") + " over " + plural(streams, "stream");
}

std::string describe_chunks(std::span<const Chunk> chunks, std::size_t streams) {
  const std::size_t first = chunks.front().count, last = chunks.back().count;
  return "chunks of " + course::format_count(first) + (first == last ? "" : " and " + course::format_count(last)) +
         " elements, chunk i on stream i % " + std::to_string(streams);
}

std::vector<Chunk> split_chunks(std::size_t n, std::size_t chunks) {
  if (chunks == 0 || chunks > n) {
    throw std::invalid_argument("split_chunks: " + std::to_string(chunks) + " chunks for " + std::to_string(n) +
                                " elements (need 1 <= chunks <= elements)");
  }
  // n = q * chunks + r: every chunk gets q elements and the first r get one more, so no two
  // chunks differ by more than one element and the last chunk is never a short leftover.
  // [docs:chunk_split]
  const std::size_t q = n / chunks, r = n % chunks;
  std::vector<Chunk> result(chunks);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < chunks; ++i) {
    result[i] = {offset, q + (i < r ? 1 : 0)};
    offset += result[i].count;
  }
  return result;
  // [docs:end chunk_split]
}

std::optional<std::size_t> chunk_count_with_remainder(std::size_t n, std::size_t chunks) {
  // Ends quickly: if every c in (chunks, c_max] divided n, their least common multiple would
  // divide n too, and that grows so fast that a few dozen consecutive divisors exceed any n.
  for (std::size_t c = chunks + 1; c <= n; ++c) {
    if (n % c != 0) return c;
  }
  return std::nullopt;
}

// The ideal pipeline: C equal chunks through three stages in order (copy in h, kernel k, copy
// out d), each stage on its own engine (the host-to-device copy engine, the SMs, the
// device-to-host copy engine), each engine doing one chunk at a time. This is a 3-machine flow
// shop with identical jobs, and its shortest schedule is:
//
//   time = h + k + d + (C - 1) * max(h, k, d)
//
// [docs:ideal_why]
// Why: let m = max(h, k, d), the slowest stage (the bottleneck). It must process all C chunks,
// one after another, which takes C * m. Before it can start on the first chunk, that chunk must
// pass the stages in front of it; after it finishes the last chunk, that chunk must pass the
// stages behind it. Those are the other two stages once each: (h + k + d) - m. In total
// (h + k + d) - m + C * m = h + k + d + (C - 1) * m, and the schedule that starts every stage as
// soon as its engine and its chunk are ready reaches it (the faster stages never make the
// bottleneck wait). Example with h = 2, k = 1, d = 2 and C = 4:
//
//   copy in   0000111122223333                 (one character = half a time unit;
//   kernel        00  11  22  33                the digit is the chunk)
//   copy out        0000111122223333          time = 2 + 1 + 2 + 3 * 2 = 11
// [docs:end ideal_why]
//
// Compare with C * (h + k + d) = 20 when nothing overlaps: as C grows the pipeline approaches
// C * m, the bottleneck alone, but each chunk adds per-operation overhead, and small chunks copy
// slower, so more chunks is not always faster. Assumed: enough streams that stream order never
// holds a chunk back (chunk i + S waits for chunk i on the same stream), copies in both
// directions at once each as fast as alone (the PCIe link is full duplex), and one kernel at a
// time. Kernels of different streams can share the GPU, though, and when a chunk's kernel
// leaves SMs idle (its last wave, a small chunk) a measured pipeline can beat this "ideal".
// [docs:ideal_pipeline_ms]
double ideal_pipeline_ms(double h, double k, double d, std::size_t chunks) {
  if (chunks == 0) throw std::invalid_argument("ideal_pipeline_ms: no chunks");
  if (h < 0 || k < 0 || d < 0) throw std::invalid_argument("ideal_pipeline_ms: negative stage time");
  return h + k + d + static_cast<double>(chunks - 1) * std::max({h, k, d});
}
// [docs:end ideal_pipeline_ms]

double sequential_pipeline_ms(double h, double k, double d, std::size_t chunks) {
  if (h < 0 || k < 0 || d < 0) throw std::invalid_argument("sequential_pipeline_ms: negative stage time");
  return static_cast<double>(chunks) * (h + k + d);
}

}  // namespace streams
