// Lesson 08, run-time compilation: choosing the target, NVRTC's options, a user's kernel file.
//
// Teaches: NVRTC compiles for one architecture per call. A real one (sm_90) gives CUBIN,
// machine code that loads at once but runs only on that architecture (and, for sm_XY, on later
// minor versions of the same major). A virtual one (compute_90) gives PTX only, which the
// driver JIT-compiles for the GPU it is loaded on, including GPUs newer than this NVRTC.
// The architecture comes from the GPU that is present, never from a constant.
#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "course/errors.hpp"
#include "course/files.hpp"
#include "course/format.hpp"
#include "course/nvrtc.hpp"
#include "course/timing.hpp"
#include "saxpy.hpp"

namespace driver_saxpy {

std::string CompileTarget::architecture() const {
  return (kind == CodeKind::cubin ? "sm_" : "compute_") + std::to_string(arch);
}

CompileTarget choose_target(int device_arch, CodeKind kind, const std::vector<int>& supported) {
  if (supported.empty()) throw course::Error("NVRTC reports no supported architectures");
  if (device_arch == 0) return {supported.front(), CodeKind::ptx};
  if (std::find(supported.begin(), supported.end(), device_arch) != supported.end()) return {device_arch, kind};
  // Not known to this NVRTC. Newer: PTX for the newest it knows, JIT-compiled by the driver.
  const auto older = std::find_if(supported.rbegin(), supported.rend(), [&](int arch) { return arch < device_arch; });
  if (older == supported.rend()) {
    throw course::ResourceError("this NVRTC cannot compile for compute capability " + std::to_string(device_arch / 10) +
                                "." + std::to_string(device_arch % 10) + ": it knows " +
                                std::to_string(supported.front()) + " and newer");
  }
  return {*older, CodeKind::ptx};
}

std::vector<std::string> nvrtc_options(const CompileTarget& target, const CompileOptions& options) {
  std::vector<std::string> result = {
      "--gpu-architecture=" + target.architecture(),
      options.fmad ? "--fmad=true" : "--fmad=false",  // false: a * x + y stays a multiply and an add
      "--generate-line-info",                          // source lines for compute-sanitizer; no cost in speed
      "-DSAXPY_ILP=" + std::to_string(kIlp),           // the same value nvcc gets (saxpy_runtime.cu)
  };
  for (const std::string& define : options.defines) result.push_back("-D" + define);
  return result;
}

Compiled compile(std::string_view source, const std::string& name, const CompileTarget& target,
                 const CompileOptions& options) {
  Compiled compiled;
  compiled.target = target;
  compiled.options = nvrtc_options(target, options);
  course::nvrtc::Program program(source, name);
  for (const std::string& expression : options.name_expressions) program.add_name_expression(expression);

  const course::HostTimer timer;
  compiled.log = program.compile(compiled.options);
  compiled.compile_ms = timer.elapsed_ms();

  compiled.ptx = program.ptx();
  if (target.kind == CodeKind::cubin) {
    compiled.image = program.cubin();
  } else {
    compiled.image.assign(compiled.ptx.begin(), compiled.ptx.end());
    compiled.image.push_back('\0');  // the driver reads PTX as a NUL-terminated string
  }
  for (const std::string& expression : options.name_expressions) {
    compiled.lowered_names.push_back(program.lowered_name(expression));
  }
  return compiled;
}

std::vector<std::string> ptx_entries(std::string_view ptx) {
  // A kernel in PTX: ".visible .entry saxpy(" (or a mangled name for a C++ kernel).
  std::vector<std::string> names;
  constexpr std::string_view kDirective = ".entry";
  for (std::size_t at = ptx.find(kDirective); at != std::string_view::npos; at = ptx.find(kDirective, at + 1)) {
    std::size_t begin = at + kDirective.size();
    if (begin >= ptx.size() || (ptx[begin] != ' ' && ptx[begin] != '\t')) continue;  // ".entry_x" is not it
    while (begin < ptx.size() && (ptx[begin] == ' ' || ptx[begin] == '\t')) ++begin;
    std::size_t end = begin;
    while (end < ptx.size() && ptx[end] != '(' && ptx[end] != ' ' && ptx[end] != '\n' && ptx[end] != '\t') ++end;
    if (end > begin) names.emplace_back(ptx.substr(begin, end - begin));
  }
  return names;
}

void require_entry(std::string_view ptx, const std::string& entry, const std::string& file) {
  const std::vector<std::string> names = ptx_entries(ptx);
  if (std::find(names.begin(), names.end(), entry) != names.end()) return;
  std::string listed;
  for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
  throw course::UsageError("--entry: " + file + " has no kernel named '" + entry + "' (its kernels: " +
                           (listed.empty() ? std::string("none") : listed) +
                           "; a C++ kernel's name is mangled: declare it extern \"C\")");
}

std::string read_kernel_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw course::UsageError("--kernel-file: " + path + " does not exist");
  if (fs::is_directory(status)) throw course::UsageError("--kernel-file: " + path + " is a directory, not a file");
  std::string source;
  try {
    // Only a regular file, and only so much of it: a FIFO would block the read, /dev/zero never ends.
    source = course::read_file(path, kMaxKernelFileBytes);
  } catch (const course::Error& failure) {
    throw course::UsageError(std::string("--kernel-file: ") + failure.what());
  }
  if (source.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw course::UsageError("--kernel-file: " + path + " is empty: it holds no kernel source");
  }
  // Source is text: a NUL would end it early for NVRTC, other control bytes would reach the
  // terminal in the compiler's log. A binary file is refused, naming where.
  for (std::size_t i = 0; i < source.size(); ++i) {
    const auto byte = static_cast<unsigned char>(source[i]);
    if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r' && byte != '\f' && byte != '\v') || byte == 0x7f) {
      throw course::UsageError("--kernel-file: " + path + " is not text (a control byte " + std::to_string(byte) +
                               " at offset " + std::to_string(i) + "): give CUDA source");
    }
  }
  return source;
}

// ---- Launch shapes ----------------------------------------------------------------------------
course::LaunchShape saxpy_launch(std::size_t n, int block_size, int grid_size, int blocks_per_sm, int sm_count) {
  if (block_size < 1) throw std::invalid_argument("saxpy_launch: block_size must be at least 1");
  const auto block = static_cast<std::size_t>(block_size);
  if (grid_size > 0) return {grid_size, block_size};
  const std::size_t per_thread = 4 * static_cast<std::size_t>(kIlp);
  const std::size_t threads = (n + per_thread - 1) / per_thread;
  const std::size_t needed = std::max<std::size_t>(1, (threads + block - 1) / block);
  const std::size_t resident = static_cast<std::size_t>(std::max(1, blocks_per_sm)) *
                               static_cast<std::size_t>(std::max(1, sm_count));
  return {static_cast<long long>(std::min(needed, kWaves * resident)), block_size};
}

course::LaunchShape one_thread_per_element(std::size_t n, int block_size) {
  const auto block = static_cast<std::size_t>(block_size);
  const std::size_t blocks = std::max<std::size_t>(1, (n + block - 1) / block);
  if (blocks > 2147483647u) {
    throw course::UsageError("--block " + std::to_string(block_size) + ": one thread per element needs " +
                             std::to_string(blocks) + " blocks, more than a grid may have; use a larger --block");
  }
  return {static_cast<long long>(blocks), block_size};
}

OnePassSplit one_pass_split(std::uintptr_t x, std::uintptr_t y, std::uintptr_t out, std::size_t n, int block_size) {
  if (block_size < 1) throw std::invalid_argument("one_pass_split: block_size must be at least 1");
  const auto block = static_cast<std::size_t>(block_size);
  const std::size_t groups_per_block = static_cast<std::size_t>(kOnePassVectors) * block;
  const std::uintptr_t offset = x % 16;
  OnePassSplit split;
  if (y % 16 == offset && out % 16 == offset && offset % 4 == 0 && block_size >= 4) {
    split.head = std::min<std::size_t>(n, (16 - offset) % 16 / 4);
    split.vectors = (n - split.head) / 4;
    const std::size_t blocks = std::max<std::size_t>(1, (split.vectors + groups_per_block - 1) / groups_per_block);
    split.launch = {static_cast<long long>(blocks), block_size};  // at most 2^34 / 8 blocks: within the limit
  } else {
    split.head = n;
    const std::size_t blocks = std::max<std::size_t>(1, (n + block - 1) / block);
    split.launch = {static_cast<long long>(std::min<std::size_t>(blocks, 2147483647u)), block_size};
  }
  return split;
}

void require_aligned(std::uintptr_t x, std::uintptr_t y, std::uintptr_t out) {
  if ((x | y | out) % 16 != 0) {
    throw std::invalid_argument("saxpy: x, y and out must be 16-byte aligned for the kernel's float4 accesses");
  }
}

}  // namespace driver_saxpy
