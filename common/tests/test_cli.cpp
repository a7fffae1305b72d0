// The shared command line: defaults, lesson flags, and one-line errors naming the bad flag.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/errors.hpp"
#include "course/threads.hpp"

namespace {

course::LessonCli make_cli() {
  return course::LessonCli("99_test", "a test lesson", {"-l,--length", "number of elements", 1000, 1 << 30});
}

const course::CommonOptions& parse(course::LessonCli& cli, std::vector<std::string> args) {
  args.insert(args.begin(), "99_test");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return cli.parse(static_cast<int>(argv.size()), argv.data());
}

// The parse must fail with a UsageError whose one-line message contains `expected`.
void expect_usage_error(std::vector<std::string> args, const std::string& expected) {
  auto cli = make_cli();
  try {
    parse(cli, args);
    ADD_FAILURE() << "no error for: " << ::testing::PrintToString(args);
  } catch (const course::UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(expected), std::string::npos) << "message: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  }
}

TEST(Cli, Defaults) {
  auto cli = make_cli();
  unsetenv("COURSE_REQUIRE_GPU");
  const course::CommonOptions options = parse(cli, {});  // a copy: the argument list is a temporary
  EXPECT_EQ(options.size, 1000);
  EXPECT_EQ(options.reps, 20);
  EXPECT_EQ(options.warmup, 3);
  EXPECT_TRUE(options.flush_l2);
  EXPECT_FALSE(options.skip_cpu);
  EXPECT_FALSE(options.require_gpu);
  EXPECT_EQ(options.seed, 42u);
  EXPECT_EQ(cli.size_name(), "length");
}

TEST(Cli, ShortAndLongSizeFlagsAndSharedFlags) {
  auto cli = make_cli();
  EXPECT_EQ(parse(cli, {"-l", "17"}).size, 17);
  auto cli_alias = make_cli();
  EXPECT_EQ(parse(cli_alias, {"--size", "19"}).size, 19) << "--size is every lesson's alias";
  auto cli2 = make_cli();
  const course::CommonOptions options = parse(cli2, {"--length", "1234567", "--reps", "5", "--warmup", "0", "--no-flush-l2",
                                     "--seed", "9", "--skip-cpu", "--threads", "2"});
  EXPECT_EQ(options.size, 1234567);
  EXPECT_EQ(options.reps, 5);
  EXPECT_EQ(options.warmup, 0);
  EXPECT_FALSE(options.flush_l2);
  EXPECT_EQ(options.seed, 9u);
  EXPECT_TRUE(options.skip_cpu);
  EXPECT_EQ(options.cpu_threads(), 2);
  EXPECT_EQ(cli2.command_line().rfind("99_test --length 1234567", 0), 0u);
}

TEST(Cli, LessonFlagsJoinTheSharedOnes) {
  auto cli = make_cli();
  int block = 256;
  cli.app().add_option("--block", block, "threads per block")->check(CLI::Range(32, 1024));
  parse(cli, {"--block", "128"});
  EXPECT_EQ(block, 128);
  auto cli2 = make_cli();
  cli2.app().add_option("--block", block, "threads per block")->check(CLI::Range(32, 1024));
  EXPECT_THROW(parse(cli2, {"--block", "2048"}), course::UsageError);
}

TEST(Cli, BadValuesNameTheFlag) {
  expect_usage_error({"--length", "0"}, "--length");
  expect_usage_error({"--length", "-5"}, "--length");
  expect_usage_error({"--length", "abc"}, "--length");
  expect_usage_error({"-l", "2000000000"}, "--length");
  expect_usage_error({"--length"}, "--length");
  expect_usage_error({"--reps", "0"}, "--reps");
  expect_usage_error({"--warmup", "-1"}, "--warmup");
  expect_usage_error({"--threads", "-1"}, "--threads");
  expect_usage_error({"--device", "x"}, "--device");
  expect_usage_error({"--seed", "-3"}, "--seed");
  expect_usage_error({"--bogus-flag"}, "--bogus-flag");
  expect_usage_error({"--skip-cpu", "--skip-gpu"}, "nothing to run");
  expect_usage_error({"--json", "/no/such/folder/out.json"}, "--json");
}

TEST(Cli, IntegerFlagsTakeDecimalWholeNumbers) {
  // Not "not in range" (and no 309-digit bound): the value is not a number at all.
  expect_usage_error({"--seed", "abc"}, "--seed: 'abc' is not a whole number");
  expect_usage_error({"--length", "abc"}, "--length: 'abc' is not a whole number");
  expect_usage_error({"--length", "1e3"}, "--length: '1e3' is not a whole number");
  expect_usage_error({"--reps", "2.5"}, "--reps: '2.5' is not a whole number");
  // Hexadecimal is refused, not read as 16: sizes are written in decimal everywhere.
  expect_usage_error({"--length", "0x10"}, "--length: '0x10' is not a whole number (decimal digits only)");
  // A seed above 2^64-1 is refused, not clamped.
  expect_usage_error({"--seed", "18446744073709551616"}, "--seed: 18446744073709551616 is above the largest value");
  auto cli = make_cli();
  EXPECT_EQ(parse(cli, {"--seed", "18446744073709551615"}).seed, 18446744073709551615u);
  // Messages stay short.
  auto cli2 = make_cli();
  try {
    parse(cli2, {"--seed", "abc"});
    ADD_FAILURE() << "--seed abc accepted";
  } catch (const course::UsageError& error) {
    EXPECT_LT(std::string(error.what()).size(), 100u) << error.what();
  }
}

TEST(Cli, UnknownFlagIsNamedWithTheSizeFlag) {
  // A user of another lesson's flag (-n) learns that it is unknown and what the size flag is.
  expect_usage_error({"-n", "1000"}, "unknown flag -n (the size flag here is -l,--length,--size)");
  expect_usage_error({"1000"}, "unexpected argument '1000'");
}

TEST(Cli, JsonPathIsCheckedBeforeAnyWork) {
  expect_usage_error({"--json", ""}, "--json: the value is empty");
  expect_usage_error({"--json", "/tmp"}, "--json: /tmp is a folder");
  expect_usage_error({"--json", "/proc/course-no-such-file.json"}, "--json: cannot create a file in /proc");
  expect_usage_error({"--json", "/dev/full"}, "--json: /dev/full is a character device");
  // A writable path passes, and the check leaves no file behind.
  const std::string path = ::testing::TempDir() + "course_cli_json_probe.json";
  std::remove(path.c_str());
  auto cli = make_cli();
  EXPECT_EQ(parse(cli, {"--json", path}).json_path, path);
  EXPECT_FALSE(std::ifstream(path).good()) << "the probe left " << path;
}

TEST(Cli, AFlagIsNotSwallowedAsAValue) {
  // "--json --skip-gpu --size 100" wrote a file named --skip-gpu and ran the GPU part.
  expect_usage_error({"--json", "--skip-gpu", "--size", "100"}, "--json: '--skip-gpu' is a flag, not a value");
  expect_usage_error({"--reps", "--skip-gpu"}, "--reps: '--skip-gpu' is a flag, not a value");
  expect_usage_error({"--length", "--reps", "3"}, "--length: '--reps' is a flag");
  auto cli = make_cli();
  double x_min = -2;
  std::string name = "x";
  cli.app().add_option("--x-min", x_min, "a lesson's number");
  cli.app().add_option("--entry", name, "a lesson's name");
  EXPECT_THROW(parse(cli, {"--entry", "--x-min"}), course::UsageError);
  auto cli2 = make_cli();
  cli2.app().add_option("--x-min", x_min, "a lesson's number");
  EXPECT_EQ(parse(cli2, {"--x-min", "-1.5"}).size, 1000) << "a negative number is a value";
  EXPECT_EQ(x_min, -1.5);
}

TEST(Cli, EmptyValuesAreRefused) {
  expect_usage_error({"--reps", ""}, "--reps: the value is empty");
  expect_usage_error({"--length="}, "--length: needs a value");
  expect_usage_error({"--length"}, "--length: needs a value");
  auto cli = make_cli();
  double x_min = -2;
  cli.app().add_option("--x-min", x_min, "a lesson's number");
  try {
    parse(cli, {"--x-min", ""});  // was read as 0
    ADD_FAILURE() << "--x-min '' accepted as " << x_min;
  } catch (const course::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--x-min: the value is empty"), std::string::npos) << error.what();
  }
}

TEST(Cli, ThreadsBeyondTheMachineAreRefused) {
  const std::string too_many = std::to_string(course::max_cpu_threads() + 1);
  expect_usage_error({"--threads", too_many}, "--threads " + too_many + ": more CPU threads than this machine runs");
}

TEST(Cli, ToolsParseByTheSameRules) {
  CLI::App app("a tool", "tool");
  int size = 1;
  std::string out;
  app.add_option("--size", size)->check(CLI::Range(1, 100));
  app.add_option("--out", out);
  auto parse_tool = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "tool");
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    course::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_THROW(parse_tool({"--size", "1e3"}), course::UsageError);
  EXPECT_THROW(parse_tool({"--size", "5abc"}), course::UsageError);
  EXPECT_THROW(parse_tool({"--size", "4294967297"}), course::UsageError);
  EXPECT_THROW(parse_tool({"--out", "--size"}), course::UsageError);
  EXPECT_THROW(parse_tool({"--help"}), course::HelpRequested);
  parse_tool({"--size", "42"});
  EXPECT_EQ(size, 42);
}

TEST(Cli, FlushL2FlagsAndTheirHelp) {
  auto cli = make_cli();
  EXPECT_FALSE(parse(cli, {"--no-flush-l2"}).flush_l2);
  auto cli2 = make_cli();
  EXPECT_TRUE(parse(cli2, {"--flush-l2"}).flush_l2);
  expect_usage_error({"--flush-l2", "--no-flush-l2"}, "choose one");
  auto cli3 = make_cli();
  try {
    parse(cli3, {"--help"});
  } catch (const course::HelpRequested& help) {
    EXPECT_EQ(std::string(help.what()).find("{false}"), std::string::npos) << help.what();
  }
}

TEST(Cli, HelpListsTheFlags) {
  auto cli = make_cli();
  try {
    parse(cli, {"--help"});
    FAIL() << "--help did not ask for help";
  } catch (const course::HelpRequested& help) {
    const std::string text = help.what();
    for (const char* flag : {"--length", "--reps", "--skip-gpu", "--json", "--no-flush-l2", "Exit codes"}) {
      EXPECT_NE(text.find(flag), std::string::npos) << flag;
    }
  }
}

TEST(Cli, RequiredGpuFromFlagOrEnvironment) {
  auto cli = make_cli();
  EXPECT_TRUE(parse(cli, {"--require-gpu"}).require_gpu);
  setenv("COURSE_REQUIRE_GPU", "1", 1);
  auto cli2 = make_cli();
  EXPECT_TRUE(parse(cli2, {}).require_gpu);
  unsetenv("COURSE_REQUIRE_GPU");
}

}  // namespace
