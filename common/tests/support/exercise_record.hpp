// Shared by the lessons' exercise tests: is a starter still the file the course ships?
//
// Each exercise is a line of scripts/exercises.txt, with the SHA-256 of its starter as shipped.
// A test that checks "the starter, as shipped, fails" asserts that only while the file is
// unchanged: once a student edits it, the test skips and names the command that checks the
// edit (scripts/check_exercise.sh). Under CI=true an edited starter fails instead, so a shipped
// starter can never drift from its record unnoticed.
//
//   TEST(GpuExercise, TiledStarterAsShippedFails) {
//     COURSE_SKIP_IF_STARTER_EDITED("04_shared_matmul", "tiled");
//     ...
//   }
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace course::testing {

// One row of scripts/exercises.txt.
struct ExerciseRecord {
  std::string lesson, name, kind, needs, check_test, solution_check, sha256;  // kind: write, bug or fast
  std::filesystem::path starter;  // absolute
};

// The row of `lesson` (its folder name) and exercise `name`; throws std::runtime_error when the
// table is missing or has no such row.
ExerciseRecord exercise_record(const std::string& lesson, const std::string& name);

struct StarterState {
  enum class Kind { shipped, edited, error } kind = Kind::error;
  std::string message;  // why it skips or fails (empty when shipped)
};

// Whether the starter still has the SHA-256 of its record (as of the last configure, which an
// edit of the starter re-runs). Edited under CI=true is an error.
StarterState starter_state(const std::string& lesson, const std::string& name);

}  // namespace course::testing

#define COURSE_SKIP_IF_STARTER_EDITED(lesson, name)                                              \
  do {                                                                                           \
    const ::course::testing::StarterState course_starter_ = ::course::testing::starter_state(lesson, name); \
    if (course_starter_.kind == ::course::testing::StarterState::Kind::error) FAIL() << course_starter_.message; \
    if (course_starter_.kind == ::course::testing::StarterState::Kind::edited) GTEST_SKIP() << course_starter_.message; \
  } while (0)
