// Owning an NVRTC program: CUDA C++ source compiled at run time (RAII).
//
// Teaches: NVRTC is a compiler in a library. A program is created from source text, compiled
// with options (the target architecture, --fmad, -D...), and then gives back PTX (text, any newer
// GPU can JIT it) or CUBIN (machine code for one architecture). A failed compilation is not a
// crash: the compiler's messages are in the program's log, and CompileError carries them.
//
//   course::nvrtc::Program program(source, "saxpy.cu");
//   program.compile({"--gpu-architecture=sm_90", "--fmad=false"});   // throws CompileError
//   std::vector<char> cubin = program.cubin();
//
// Link course::nvrtc to use it (libnvrtc ships with the CUDA Toolkit; no driver needed).
#pragma once

#include <nvrtc.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/errors.hpp"

namespace course::nvrtc {

// A compilation that failed: what() is one line naming the program, the target and the first
// error; log() is the compiler's full output, to print for the user.
class CompileError : public Error {
 public:
  CompileError(const std::string& what, std::string log) : Error(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

class Program {
 public:
  // `name` is the file name the compiler uses in its messages ("saxpy.cu(12): error: ...").
  Program(std::string_view source, std::string name);
  ~Program();
  Program(Program&& other) noexcept
      : program_(std::exchange(other.program_, nullptr)), name_(std::move(other.name_)) {}
  Program& operator=(Program&& other) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Asks the compiler to keep an instance such as "saxpy_ilp<4>" and tell its mangled name
  // afterwards (lowered_name). Call before compile().
  void add_name_expression(const std::string& expression);

  // Compiles; returns the log (warnings, often empty). A failure throws CompileError.
  std::string compile(const std::vector<std::string>& options);

  std::string ptx() const;          // the PTX text (compiled for compute_XX or sm_XX)
  std::vector<char> cubin() const;  // the machine code (compiled for sm_XX only)
  std::string lowered_name(const std::string& expression) const;  // after compile()
  std::string log() const;

  nvrtcProgram get() const { return program_; }
  const std::string& name() const { return name_; }

 private:
  nvrtcProgram program_ = nullptr;
  std::string name_;
};

// NVRTC's version, e.g. "13.0".
std::string version();
// The architectures this NVRTC can compile for, as numbers (75, 80, ..., 90, ...), ascending.
std::vector<int> supported_architectures();

}  // namespace course::nvrtc
