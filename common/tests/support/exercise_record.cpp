// The exercise table (scripts/exercises.txt), and whether a starter is still the file the course
// ships. The hashing is CMake's (common/CMakeLists.txt compares each starter's SHA-256 with its
// record at configure time, and editing a starter re-runs that step): the list of edited starters
// arrives here as COURSE_EDITED_STARTERS.
#include "exercise_record.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace course::testing {
namespace {

const std::filesystem::path kProjectDir = COURSE_PROJECT_DIR;
const std::filesystem::path kTable = kProjectDir / "scripts" / "exercises.txt";

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// "06_fft_convolve" -> "06": the short form the script's documented command uses.
std::string lesson_number(const std::string& lesson) { return lesson.substr(0, lesson.find('_')); }

}  // namespace

ExerciseRecord exercise_record(const std::string& lesson, const std::string& name) {
  std::ifstream table(kTable);
  if (!table) throw std::runtime_error("cannot read the exercise table " + kTable.string());
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    ExerciseRecord record;
    std::string starter;
    // lesson name kind needs starter check solution_check sha256, then (fast rows) target ceiling run...
    if (!(fields >> record.lesson >> record.name >> record.kind >> record.needs >> starter >> record.check_test >>
          record.solution_check >> record.sha256)) {
      throw std::runtime_error(kTable.string() + ": a line with fewer than 8 fields: '" + line + "'");
    }
    if (record.lesson == lesson && record.name == name) {
      record.starter = kProjectDir / lesson / starter;
      return record;
    }
  }
  throw std::runtime_error(kTable.string() + " has no exercise '" + name + "' of lesson " + lesson);
}

StarterState starter_state(const std::string& lesson, const std::string& name) {
  try {
    const ExerciseRecord record = exercise_record(lesson, name);
    if (!std::filesystem::is_regular_file(record.starter)) {
      return {StarterState::Kind::error, "cannot read " + record.starter.string()};
    }
    const bool edited = std::string(COURSE_EDITED_STARTERS).find("," + lesson + "/" + name + ",") != std::string::npos;
    if (!edited) return {StarterState::Kind::shipped, ""};
    const std::string command = "./scripts/check_exercise.sh " + lesson_number(lesson) + " " + name;
    if (running_in_ci()) {
      return {StarterState::Kind::error, "CI=true and " + record.starter.string() +
                                             " differs from the starter as shipped (its SHA-256 in scripts/exercises.txt): "
                                             "restore it, or record its new hash"};
    }
    return {StarterState::Kind::edited, "starter edited: check it with " + command};
  } catch (const std::exception& error) {
    return {StarterState::Kind::error, error.what()};
  }
}

}  // namespace course::testing
