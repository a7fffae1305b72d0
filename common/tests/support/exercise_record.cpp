// The exercise table (scripts/exercises.txt) and the SHA-256 that tells a shipped starter from an
// edited one. SHA-256 as specified in FIPS 180-4, written out here: the course has no crypto library.
#include "exercise_record.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace course::testing {
namespace {

const std::filesystem::path kProjectDir = COURSE_PROJECT_DIR;
const std::filesystem::path kTable = kProjectDir / "scripts" / "exercises.txt";

constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// One 64-byte block into the running state.
void compress(std::array<std::uint32_t, 8>& state, const unsigned char* block) {
  std::array<std::uint32_t, 64> w{};
  for (int i = 0; i < 16; ++i) {
    w[i] = std::uint32_t{block[4 * i]} << 24 | std::uint32_t{block[4 * i + 1]} << 16 |
           std::uint32_t{block[4 * i + 2]} << 8 | std::uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = state;
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 = h + (std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                             kRoundConstants[i] + w[i];
    const std::uint32_t t2 = (std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const std::array<std::uint32_t, 8> added = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state[i] += added[i];
}

std::string sha256(std::vector<unsigned char> bytes) {
  const std::uint64_t bit_length = static_cast<std::uint64_t>(bytes.size()) * 8;
  bytes.push_back(0x80);  // padding: a one bit, zeros up to 56 mod 64, the length in bits (big-endian)
  while (bytes.size() % 64 != 56) bytes.push_back(0);
  for (int shift = 56; shift >= 0; shift -= 8) bytes.push_back(static_cast<unsigned char>(bit_length >> shift));
  std::array<std::uint32_t, 8> state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  for (std::size_t offset = 0; offset < bytes.size(); offset += 64) compress(state, bytes.data() + offset);
  std::ostringstream hex;
  for (const std::uint32_t word : state) hex << std::hex << std::setw(8) << std::setfill('0') << word;
  return hex.str();
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// "06_fft_convolve" -> "06": the short form the script's documented command uses.
std::string lesson_number(const std::string& lesson) { return lesson.substr(0, lesson.find('_')); }

}  // namespace

std::string sha256_of_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path.string());
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw std::runtime_error("cannot read " + path.string());
  return sha256(bytes);
}

ExerciseRecord exercise_record(const std::string& lesson, const std::string& name) {
  std::ifstream table(kTable);
  if (!table) throw std::runtime_error("cannot read the exercise table " + kTable.string());
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    ExerciseRecord record;
    std::string starter;
    if (!(fields >> record.lesson >> record.name >> record.needs >> starter >> record.check_test >> record.solution_check >>
          record.sha256)) {
      throw std::runtime_error(kTable.string() + ": a line with fewer than 7 fields: '" + line + "'");
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
    if (sha256_of_file(record.starter) == record.sha256) return {StarterState::Kind::shipped, ""};
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
