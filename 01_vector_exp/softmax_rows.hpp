// Lesson 01, part two in the program: --op sum, --op max and --op softmax (softmax_rows.cpp).
//
// The default, --op exp, is the lesson's core (main.cpp). The other operations replace its rows
// with their own, declared the same way: CPU rows held against a host copy, one row per kernel
// of the operation's registry (kernels/reduce_registry.inc, kernels/softmax_registry.inc), the
// library rows (CUB's is the "vs lib" column), all held against the device copy measured in the
// same run, counting the bytes each row must move: a sum or a max reads x (4 bytes per
// element); softmax reads x twice and writes y (online, 12 bytes) or reads it three times (16).
// Only main.cpp includes this header (it carries the harness); the tests use reduce.hpp.
#pragma once

#include <string>
#include <vector>

#include "course/harness.hpp"
#include "reduce.hpp"

namespace vector_exp {

// --op (exp, sum, max, softmax) and --kernel, whose names are those of every registry: which
// ones fit the operation is checked once --op is known (a kernel of another operation: exit 2).
void add_op_and_kernel_options(course::Lesson& lesson, std::vector<std::string>& selected, std::string& op);

// Declares, runs and reports the rows of --op sum, max or softmax; returns the exit code.
int run_reduction_part(course::Lesson& lesson, const std::string& op, const std::vector<std::string>& selected,
                       const LaunchConfig& launch);

}  // namespace vector_exp
