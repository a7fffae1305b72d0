// Lesson 08's CPU exercise: which architecture NVRTC compiles for (section 5, "Which architecture").
// A starter (what you edit) and a solution (what the tests check); see choose_target_starter.cpp.
#pragma once

#include <vector>

#include "saxpy.hpp"

namespace driver_saxpy::exercises {

CompileTarget choose_target_starter(int device_arch, CodeKind kind, const std::vector<int>& supported);
CompileTarget choose_target_solution(int device_arch, CodeKind kind, const std::vector<int>& supported);

}  // namespace driver_saxpy::exercises
