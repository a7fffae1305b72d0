// The top of every lesson binary: run the lesson, map what went wrong to an exit code.
//
//   int main(int argc, char** argv) {
//     return course::run_lesson(argc, argv, [](int argc, char** argv) { ...; return report.exit_code(); });
//   }
//
// Exit codes (errors.hpp): 0 verified, 1 verification failed, 2 bad command line,
// 3 runtime error (CUDA error, out of memory, GPU required but absent). Errors are printed as
// one line on stderr: "<lesson>: error: <what>".
#pragma once

#include <functional>

namespace course {

int run_lesson(int argc, char** argv, const std::function<int(int, char**)>& body);

}  // namespace course
