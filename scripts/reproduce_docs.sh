#!/usr/bin/env bash
# Reproduces, on a GPU machine and in one session, every run the course pages quote: each lesson's
# runs with the command lines the pages show, the size sweeps, the course-wide table, Nsight
# Compute on lesson 04, every figure of docs/images, and a description of the machine. Nothing
# here edits docs/: compare <out> with docs/data/ and take the numbers from it.
#
# Usage: scripts/reproduce_docs.sh [--out DIR] [--part LIST] [--lessons LIST] [--skip LIST]
#                                  [--deadline S] [--bin DIR]
#   --out DIR       where everything goes (default: docs-runs/<date>)
#   --part LIST     parts, comma-separated (e.g. runs,sweeps,course), run in this order:
#                   tests   COURSE_REQUIRE_GPU=1 ctest --preset gpu: <out>/tests.log, every test with
#                           the documented commands at the pages' full sizes (label docs-full)
#                   course  every lesson at its default size, as scripts/run_course.sh runs it, and
#                           course_summary: <out>/course/ (the table of docs/contributing.md, as
#                           text in summary.txt and as JSON in summary.json)
#                   runs    course_device_info and the lesson runs the pages quote:
#                           <out>/runs/<name>.txt and .json; a run of a lesson's defaults is
#                           copied from course/ when that part ran it in this session
#                   sweeps  the size sweeps of lessons 01 and 02: <out>/sweep_<lesson>/ (a point
#                           that runs/ made with the same command is copied, not run again)
#                   ncu     Nsight Compute on lesson 04's cp_async and stream_k at 4096^3:
#                           <out>/ncu/ (left out, with a line, where ncu is not on PATH)
#                   plots   every figure of docs/images, drawn from <out>: <out>/plots/<name>.png
#                   all     every part above (the default)
#   --lessons LIST  only these lessons' steps, e.g. 01,02,03 (to split the work over two calls)
#   --skip LIST     steps left out by name or pattern, e.g. 08_block*,04_tune (listed at the end)
#   --deadline S    a step that would start S or more seconds after the start is skipped and
#                   listed, for a machine lent for a fixed time (plots are drawn whatever the time)
#   --bin DIR       the binaries of a build already made (default: configure and build the release
#                   preset, which on a GPU machine compiles for its GPU only)
# Every step prints its seconds; <out>/timings.tsv lists them (step, seconds, exit status, command)
# and <out>/machine.txt describes the machine (GPU, driver, CUDA, CPU, compilers, date, source).
# How long, on an H100 with a 16-core host (estimated from the runs of 2026-11-22 and 23, not yet
# measured as a whole): build about 100 s, course 66 s, runs 560 s, sweeps 17 s, ncu about 60 s,
# plots 10 s. Lessons 01, 02, 03 and 06 take most of it; split with --lessons, trim with --skip.
# On a machine without a package manager, make the course's Debian packages visible through
# CMAKE_PREFIX_PATH (and LD_LIBRARY_PATH) and set COURSE_NO_INSTALL=1: nothing is then installed
# (scripts/setup.sh), and a missing optional package leaves only its part out.
# Exit status: 0 every step ran and verified; 1 a step failed, was skipped for the deadline or
# its program was not built; 2 bad command line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

all_parts=(tests course runs sweeps ncu plots)
out="$course_root/docs-runs/$(date +%Y-%m-%d)"
part_list=all
lesson_list=""
skip_list=""
deadline=""
bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) course_value "$@"; out="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    --part) course_value "$@"; part_list="$2"; shift 2 ;;
    --lessons) course_value "$@"; lesson_list="$2"; shift 2 ;;
    --skip) course_value "$@"; skip_list="$2"; shift 2 ;;
    --deadline) course_value "$@"; deadline="$2"; shift 2 ;;
    --bin) course_value "$@"; bin="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) course_say "reproduce_docs.sh: unknown argument '$1' (see --help)"; exit 2 ;;
  esac
done

# Everything is checked before anything is built or run.
declare -A want_part=()
IFS=, read -ra items <<<"$part_list"
for item in "${items[@]}"; do
  case "$item" in
    all) for part in "${all_parts[@]}"; do want_part[$part]=1; done ;;
    tests|course|runs|sweeps|ncu|plots) want_part[$item]=1 ;;
    *) course_say "reproduce_docs.sh: --part $part_list: choose from tests, course, runs, sweeps, ncu, plots or all (comma-separated)"; exit 2 ;;
  esac
done
declare -A want_lesson=()
if [ -n "$lesson_list" ]; then
  IFS=, read -ra items <<<"$lesson_list"
  for item in "${items[@]}"; do
    if ! [[ "$item" =~ ^[0-9][0-9]$ ]] || ! compgen -G "$course_root/${item}_*/CMakeLists.txt" >/dev/null; then
      course_say "reproduce_docs.sh: --lessons $lesson_list: '$item' is not a lesson (give numbers such as 01,02)"
      exit 2
    fi
    want_lesson[$item]=1
  done
fi
IFS=, read -ra skip_patterns <<<"$skip_list"
if [ -n "$deadline" ] && ! [[ "$deadline" =~ ^[1-9][0-9]{0,5}$ ]]; then
  course_say "reproduce_docs.sh: --deadline $deadline: give whole seconds, 1 or more"
  exit 2
fi
if [ -n "$bin" ] && [ ! -d "$bin" ]; then
  course_say "reproduce_docs.sh: --bin $bin: no such folder"
  exit 2
fi
if ! mkdir -p "$out" 2>/dev/null || [ ! -w "$out" ]; then
  course_say "reproduce_docs.sh: --out $out: not a folder where files can be written"
  exit 2
fi
wants() { [ -n "${want_part[$1]:-}" ]; }
lesson_wanted() { [ -z "$lesson_list" ] || [ -n "${want_lesson[$1]:-}" ]; }

# Time, in microseconds, from bash's clock (its decimal point follows the locale).
now_us() { local t="${EPOCHREALTIME/[.,]/}"; echo "$((10#$t))"; }
seconds_since() { local us=$(($(now_us) - $1)); printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000)); }
started_us=$(now_us)
status=0
failed=()
skipped=()
timings="$out/timings.tsv"
[ -s "$timings" ] || printf 'step\tseconds\texit\tcommand\n' >"$timings"
work_folder="$(mktemp -d)"
trap 'rm -rf "$work_folder"' EXIT
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$timings"; }

# Runs one step: its name, the file its output goes to, then the command. Prints the command,
# then ok or FAILED with the exit status and the seconds it took (last_rc and last_seconds keep
# them). A step named in --skip, or one that would start after the deadline, does not run
# (always=1 before the call: the deadline does not apply).
last_rc=0
last_seconds=0
step() {
  local name="$1" log="$2" pattern shown
  shift 2
  shown="$*"
  [ -z "$bin" ] || shown="${shown//"$bin"\//}"
  shown="${shown//"$out"\//<out>/}"
  shown="${shown//"$course_root"\//}"
  last_rc=skipped
  last_seconds=0
  for pattern in "${skip_patterns[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a pattern
    if [ -n "$pattern" ] && [[ "$name" == $pattern ]]; then
      echo "== $name: skipped (--skip $pattern)"
      skipped+=("$name (--skip)")
      record "$name" - skipped "$shown"
      return 0
    fi
  done
  if [ -n "$deadline" ] && [ -z "${always:-}" ] && (($(now_us) - started_us >= deadline * 1000000)); then
    echo "== $name: skipped (the deadline of $deadline s has passed)"
    skipped+=("$name (deadline)")
    record "$name" - deadline "$shown"
    status=1
    return 0
  fi
  echo "== $name: $shown"
  local t0
  t0=$(now_us)
  last_rc=0
  "$@" >"$log" 2>&1 || last_rc=$?
  last_seconds=$(seconds_since "$t0")
  if [ "$last_rc" -eq 0 ]; then
    echo "   ok, $last_seconds s"
  else
    echo "   FAILED (exit $last_rc, $last_seconds s; output in ${log#"$out"/})"
    failed+=("$name")
    status=1
  fi
  record "$name" "$last_seconds" "$last_rc" "$shown"
}

# A lesson's program that this build lacks (left out for a missing package) is a failure here:
# the reference run needs every lesson.
have() {
  [ -x "$bin/$1" ] && return 0
  echo "== $1: not built (see build/release/left-out.txt): its steps are missing"
  failed+=("$1 (not built)")
  status=1
  return 1
}

# One lesson run: <out>/runs/<name>.txt and .json. runs_made remembers those that wrote their JSON.
declare -A runs_made=()
lesson_run() {
  local name="$1" program="$2"
  shift 2
  step "$name" "$out/runs/$name.txt" "$bin/$program" "$@" --json "$out/runs/$name.json"
  [ "$last_rc" != skipped ] && [ -s "$out/runs/$name.json" ] && runs_made[$name]=1
  return 0
}

# The run of a lesson at its defaults: the course part's run of this session where there is one
# (the same command: copied), else a run of its own.
declare -A course_made=()
default_run() {
  local name="$1" lesson="$2"
  # Made by --part course of this run, or of an earlier run into the same --out (a reference run
  # split over several calls on one machine).
  if [ -n "${course_made[$lesson]:-}" ] || { ! wants course && [ -s "$out/course/$lesson.json" ]; }; then
    cp "$out/course/$lesson.json" "$out/runs/$name.json"
    cp "$out/course/$lesson.log" "$out/runs/$name.txt"
    echo "== $name: course/$lesson of this session (the same command), copied"
    record "$name" 0 copied "course/$lesson"
    runs_made[$name]=1
  else
    lesson_run "$name" "$lesson"
  fi
}

# The program's output, then a line with its exit status (the pages quote both).
with_exit_line() {
  local label="$1" rc=0
  shift
  "$@" || rc=$?
  echo "$label $rc"
}

# What the machine is: the pages name the GPU, driver, CUDA, host CPU and date of every run.
describe_machine() {
  local tool
  echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S')"
  echo "command: $0 --out $out --part $part_list${lesson_list:+ --lessons $lesson_list}${skip_list:+ --skip $skip_list}${deadline:+ --deadline $deadline}"
  if git -C "$course_root" rev-parse HEAD >/dev/null 2>&1; then
    local changes=""
    [ -z "$(git -C "$course_root" status --porcelain 2>/dev/null)" ] || changes=", with local changes"
    echo "source: commit $(git -C "$course_root" rev-parse HEAD)$changes"
  else
    echo "source: not a git checkout"
  fi
  echo; echo "== os"; grep PRETTY_NAME /etc/os-release 2>/dev/null || true; uname -srm
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo; echo "== nvidia-smi"; nvidia-smi 2>&1 || true
    echo; echo "== nvidia-smi --query-gpu"
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.memory,power.limit,persistence_mode,compute_mode,mig.mode.current \
      --format=csv 2>&1 || true
  else
    echo; echo "== nvidia-smi: not found"
  fi
  echo; echo "== driver"; cat /proc/driver/nvidia/version 2>/dev/null || echo "(no NVIDIA driver loaded)"
  echo; echo "== nvcc --version"; nvcc --version 2>&1 || echo "(nvcc: not found)"
  echo; echo "== compilers and tools"
  for tool in gcc g++ cmake; do "$tool" --version 2>/dev/null | head -n 1 || echo "$tool: not found"; done
  for tool in ncu compute-sanitizer; do
    if command -v "$tool" >/dev/null 2>&1; then echo "$tool: $("$tool" --version 2>&1 | tail -n 1)"; else echo "$tool: not found"; fi
  done
  echo; echo "== lscpu"; lscpu 2>&1 || true
  echo; echo "== memory"; free -g 2>&1 || true
  echo; echo "== environment"
  env | grep -E '^(CMAKE_PREFIX_PATH|LD_LIBRARY_PATH|COURSE_|OMP_|OPENBLAS_|CUDA_|CUDAARCHS)' | sort || true
}

# --- the build -------------------------------------------------------------------------------
needs_programs=0
for part in tests course runs sweeps ncu; do wants "$part" && needs_programs=1; done
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
if [ "$needs_programs" -eq 1 ] && [ -z "$bin" ]; then
  build_started=$(now_us)
  course_build release
  echo "   build: $(seconds_since "$build_started") s"
  record build "$(seconds_since "$build_started")" 0 "configure and build the release preset"
  bin="$course_root/build/release/bin"
fi
mkdir -p "$out/runs"
if [ "$needs_programs" -eq 1 ]; then
  describe_machine >"$out/machine.txt" 2>&1
  if have course_device_info; then
    always=1 step device_info "$out/runs/device_info.txt" "$bin/course_device_info"
    cat "$out/runs/device_info.txt"
  fi
fi

# --- tests -----------------------------------------------------------------------------------
if wants tests; then
  step tests "$out/tests.log" env COURSE_REQUIRE_GPU=1 ctest --preset gpu -j "$(nproc)" -E '^docs\.commands\..*\.quick$'
  grep -E "tests passed|Label|^ *(cpu|gpu|smoke|sanitizer) *=|Skipped|Failed|Not Run" "$out/tests.log" || true
fi

# --- course: every lesson at its default size, and the summary table ---------------------------
if wants course; then
  mkdir -p "$out/course"
  echo "== $(date -u '+%Y-%m-%d %H:%M:%S') UTC" >>"$out/course/run_course.txt"
  missing=()
  for dir in "$course_root"/[0-9][0-9]_*/; do
    lesson="$(basename "$dir")"
    lesson_wanted "${lesson:0:2}" || continue
    have "$lesson" || { missing+=(--missing "$lesson=not built"); continue; }
    rm -f "$out/course/$lesson.json"
    step "course/$lesson" "$out/course/$lesson.log" "$bin/$lesson" --json "$out/course/$lesson.json"
    [ "$last_rc" = skipped ] && continue
    echo "== $lesson exit $last_rc, $last_seconds s" >>"$out/course/run_course.txt"
    if [ -s "$out/course/$lesson.json" ]; then
      course_made[$lesson]=1
    else
      missing+=(--missing "$lesson=exit $last_rc: $(tail -n 1 "$out/course/$lesson.log")")
    fi
  done
  shopt -s nullglob
  jsons=("$out/course"/[0-9][0-9]_*.json)  # the lessons' own, not summary.json
  shopt -u nullglob
  if have course_summary && [ $((${#jsons[@]} + ${#missing[@]})) -gt 0 ]; then
    # summary.json: the table's lines as JSON (the CPU rows each column comes from, the cells as
    # printed), which scripts/check_doc_figures.py holds a quoted course table against.
    always=1 step course_summary "$out/course/summary.txt" "$bin/course_summary" --json "$out/course/summary.json" \
      "${jsons[@]}" "${missing[@]}"
    cat "$out/course/summary.txt"
  fi
fi

# --- runs: every run the pages quote, lesson by lesson -----------------------------------------
# Names follow docs/data; the page and section each serves are in the comment above it.
# The kernels in a lesson's machine code that use the SM's bulk copy unit (UBLKCP, both ways:
# global to shared and back), with the count of such instructions: the library's transform and
# the lesson's bulk-copy step, read from the SASS rather than assumed.
list_ublkcp() {
  cuobjdump -sass "$1" | awk '/Function :/ { f = $3 } /UBLKCP/ { n[f]++ } END { for (k in n) print n[k], k }' |
    sort -k2 | cu++filt
}
ublkcp_functions() {
  command -v cuobjdump >/dev/null 2>&1 || { echo "== $1 ublkcp: left out (cuobjdump is not on PATH)"; return 0; }
  step "${1:0:2}_ublkcp" "$out/runs/${1:0:2}_ublkcp.txt" list_ublkcp "$bin/$1"
}

runs_01() {
  have 01_vector_exp || return 0
  # 01 section 1: the stand-alone first program.
  if have 01_vector_exp_first_contact; then
    step 01_first_contact "$out/runs/01_first_contact.txt" "$bin/01_vector_exp_first_contact"
  fi
  default_run 01_default 01_vector_exp                     # 01 sections 12, 13
  lesson_run 01_warm_l2 01_vector_exp --no-flush-l2 --skip-cpu  # 01 section 14 (L2 left warm)
  lesson_run 01_2e26 01_vector_exp -l 67108864             # 01 sections 5, 6, 10, 14; sweep point
  lesson_run 01_2e26_gpu 01_vector_exp -l 67108864 --skip-cpu  # 01 section 10; workshop section 1
  # 01 section 10, the bulk-copy table: step 5 with one float4 per thread at 2^26.
  lesson_run 01_2e26_ilp1 01_vector_exp -l 67108864 --skip-cpu --kernel one_pass --kernel bulk_copy --ilp 1
  lesson_run 01_2e28 01_vector_exp -l 268435456            # 01 sections 10, 13, 14; sweep point
  local k t
  for k in 1 2 8; do                                        # 01 sections 10 and 14, exercise 3
    lesson_run "01_2e28_ilp$k" 01_vector_exp -l 268435456 --ilp "$k" --skip-cpu
  done
  for t in 128 512; do                                      # 01 section 10, the bulk-copy table
    lesson_run "01_2e28_b$t" 01_vector_exp -l 268435456 --skip-cpu --kernel one_pass --kernel bulk_copy --block "$t"
  done
  for t in 512 2048; do                                     # 01 section 10: bulk_copy's tile (default 1024)
    lesson_run "01_2e28_tile$t" 01_vector_exp -l 268435456 --skip-cpu --kernel bulk_copy --tile "$t"
  done
  ublkcp_functions 01_vector_exp                            # 01 section 10: which kernels use the copy unit
  for k in 10000000 67108864; do                           # 01 section 14: the CPU rows, 11 repetitions
    lesson_run "01_cpu_$k" 01_vector_exp -l "$k" --skip-gpu --cpu-reps 11
  done
}

runs_02() {
  have 02_elementwise_add || return 0
  default_run 02_default 02_elementwise_add                # 02 sections 7, 13, 14
  lesson_run 02_2e26_sweep 02_elementwise_add -l 67108864 --sweep launch  # 02 sections 13, 15
  lesson_run 02_2e26 02_elementwise_add -l 67108864 --skip-cpu    # 02 section 11; workshop
  lesson_run 02_2e26_ilp1 02_elementwise_add -l 67108864 --skip-cpu --kernel add_one_pass --kernel add_bulk_copy --ilp 1
  lesson_run 02_2e28 02_elementwise_add -l 268435456      # 02 sections 6, 11, 14; sweep point
  local flags name                                          # 02 section 11: add_bulk_copy's settings
  for flags in "--ilp 1" "--ilp 4" "--block 512"; do
    name="02_2e28_${flags#--}"
    name="${name/ /}"
    name="${name/block/b}"
    # shellcheck disable=SC2086 # two words: the flag and its value
    lesson_run "$name" 02_elementwise_add -l 268435456 --skip-cpu --kernel add_one_pass --kernel add_bulk_copy $flags
  done
  for t in 512 1024; do                                     # 02 section 11: add_bulk_copy's tile (default 768)
    lesson_run "02_2e28_tile$t" 02_elementwise_add -l 268435456 --skip-cpu --kernel add_bulk_copy --tile "$t"
  done
  ublkcp_functions 02_elementwise_add                       # 02 section 11: which kernels use the copy unit
  # 02 section 3: the add without its bounds check, run plainly and under compute-sanitizer.
  if command -v nvcc >/dev/null 2>&1; then
    step 02_unchecked_build "$out/runs/unchecked_build.txt" \
      nvcc -arch=native -o "$work_folder/add_unchecked" "$course_root/docs/snippets/add_unchecked.cu"
    if [ -x "$work_folder/add_unchecked" ]; then
      step 02_unchecked_plain "$out/runs/unchecked_plain.txt" with_exit_line "exit status" "$work_folder/add_unchecked"
      if command -v compute-sanitizer >/dev/null 2>&1; then
        step 02_unchecked_sanitizer "$out/runs/unchecked_sanitizer.txt" \
          with_exit_line "sanitizer exit" compute-sanitizer "$work_folder/add_unchecked"
      else
        echo "== 02_unchecked_sanitizer: left out (compute-sanitizer is not on PATH)"
      fi
    fi
  fi
}

runs_03() {
  have 03_streams || return 0
  default_run 03_default 03_streams                        # 03 real output, copy baseline, timeline
  lesson_run 03_compute_bound 03_streams --intensity 2000  # 03 deep dive and its timeline
  lesson_run 03_streams1 03_streams --streams 1            # workshop agenda (its run time)
}

runs_04() {
  have 04_shared_matmul || return 0
  default_run 04_4096 04_shared_matmul                     # 04 sections 1, 6, 9, 11, 13
  lesson_run 04_1600 04_shared_matmul -n 1600 --skip-cpu   # 04 sections 5, 6, 11, 13; workshop
  lesson_run 04_4096x4096x1024 04_shared_matmul --m 4096 --n 4096 --k 1024 --skip-cpu  # 04 section 11
  # 04 section 13: GFLOP/s against size (256 to 8192, 1600 included).
  lesson_run 04_sweep 04_shared_matmul -n 1024 --skip-cpu --sweep size --kernel cp_async --kernel stream_k
  if have matmul_tune; then step 04_tune "$out/runs/04_tune.txt" "$bin/matmul_tune"; fi  # 04 sections 11, 12
}

runs_05() {
  have 05_mandelbrot || return 0
  default_run 05_default 05_mandelbrot                     # 05 section 4 (the classic view), section 7
  lesson_run 05_classic_image 05_mandelbrot --image "$out/runs/05_classic.png" --gray  # 05 section 11
  # 05 sections 4, 8, 10: the benchmark and its block-shape sweep.
  lesson_run 05_perf 05_mandelbrot --width 4096 --height 4096 --iters 1000 --skip-serial --sweep blocks
  lesson_run 05_speedup 05_mandelbrot --width 2048 --height 2048 --iters 1000 --cpu-reps 1  # 05 section 8
  lesson_run 05_deep 05_mandelbrot --centre -0.743643887037151 0.131825904205330 --zoom 2e8 --iters 8000 \
    --precision double --skip-serial --image "$out/runs/05_deep.png" --gray  # 05 sections 8, 11
  if command -v cuobjdump >/dev/null 2>&1; then             # 05 sections 6, 7, 9: the kernels' SASS
    step 05_sass "$out/runs/05_mandelbrot.sass.txt" cuobjdump -sass "$bin/05_mandelbrot"
  fi
}

runs_06() {
  have 06_fft_convolve || return 0
  default_run 06_default 06_fft_convolve
  # 06 section 6 and its picture; 06 section 2, the naive FFT's wrap.
  lesson_run 06_pictures 06_fft_convolve --cpu-reps 11 --out-dir "$out/runs/06_pictures"
  lesson_run 06_wrap 06_fft_convolve --filter box --filter-size 31 --out-dir "$out/runs/06_wrap"
  lesson_run 06_4096 06_fft_convolve -n 4096               # 06 sections 6, 9, 11, 13, 14, 17
  lesson_run 06_crossover 06_fft_convolve -n 1024 --sweep filter-size --skip-cpu  # 06 sections 9, 14; workshop
  # 06: the crossover at the benchmark size, overlap-save (step 17) among the FFT rows; its own figure.
  lesson_run 06_crossover_4096 06_fft_convolve -n 4096 --sweep filter-size --skip-cpu
  # 06 section 14: the crossover plot, direct against FFT on one CPU thread (GPU points too).
  lesson_run 06_crossover_cpu 06_fft_convolve -n 1024 --sweep filter-size --threads 1 --cpu-reps 5
}

runs_07() {
  have 07_black_scholes || return 0
  default_run 07_default 07_black_scholes                  # 07 sections 3, 6, 7
  lesson_run 07_classic 07_black_scholes --classic          # 07 section 1 (the classic's run)
  # the workshop agenda's command (its run time)
  lesson_run 07_float_1e6 07_black_scholes -n 1000000 --precision float --kernel shared_exp --kernel fast_math
  # 07 sections 9 and 10: each kernel's worst option in units of u kappa, the cancellation table.
  if have 07_black_scholes_tests; then
    step 07_accuracy_tests "$out/runs/07_accuracy_tests.txt" \
      env COURSE_REQUIRE_GPU=1 "$bin/07_black_scholes_tests" --gtest_filter='*WorstOption*:*Cancellation*'
  fi
}

runs_08() {
  have 08_driver_api_saxpy || return 0
  default_run 08_default 08_driver_api_saxpy               # 08 sections 7, 12, 13
  # 08 sections 7, 12, 14: the runs the earlier GPU's table holds, on this one.
  lesson_run 08_a1.1 08_driver_api_saxpy -a 1.1 --skip-cpu
  step 08_cache_disabled "$out/runs/08_cache_disabled.txt" \
    env CUDA_CACHE_DISABLE=1 "$bin/08_driver_api_saxpy" --skip-cpu --json "$out/runs/08_cache_disabled.json"
  local t
  for t in 128 512 1024; do lesson_run "08_block$t" 08_driver_api_saxpy --skip-cpu --block "$t"; done
  lesson_run 08_2e26 08_driver_api_saxpy -l 67108864 --skip-cpu   # 08 section 13 (cublasSaxpy); workshop
  lesson_run 08_2e28 08_driver_api_saxpy -l 268435456 --skip-cpu  # 08 sections 7, 13
}

if wants runs; then
  for lesson in 01 02 03 04 05 06 07 08; do
    if lesson_wanted "$lesson"; then "runs_$lesson"; fi
  done
fi

# --- sweeps: lessons 01 and 02 at 4,096 to 2^28 elements, one run per size ---------------------
if wants sweeps; then
  for lesson in 01_vector_exp 02_elementwise_add; do
    lesson_wanted "${lesson:0:2}" || continue
    have "$lesson" || continue
    folder="$out/sweep_$lesson"
    mkdir -p "$folder"
    sizes="4096 16384 65536 262144 1048576 4194304 16777216"
    # A size that runs/ measured with this very command (-l N is --size N) is copied.
    for pair in 67108864:2e26 268435456:2e28; do
      size="${pair%%:*}"
      if [ -n "${runs_made[${lesson:0:2}_${pair#*:}]:-}" ]; then
        cp "$out/runs/${lesson:0:2}_${pair#*:}.json" "$folder/${lesson}_$size.json"
        cp "$out/runs/${lesson:0:2}_${pair#*:}.txt" "$folder/${lesson}_$size.log"
        echo "== sweep_$lesson, $size: runs/${lesson:0:2}_${pair#*:} of this session (the same command), copied"
      else
        sizes="$sizes $size"
      fi
    done
    step "sweep_$lesson" "$folder/sweep.txt" "$course_root/scripts/sweep.sh" --lesson "$lesson" --sizes "$sizes" \
      --out "$folder" --bin "$bin" --no-plot
  done
fi

# --- ncu: what limits lesson 04's two fastest kernels ------------------------------------------
if wants ncu && lesson_wanted 04; then
  if ! command -v ncu >/dev/null 2>&1; then
    echo "== ncu: left out (ncu, Nsight Compute, is not on PATH)"
    record ncu - "left out" "ncu is not on PATH"
  elif have 04_shared_matmul; then
    mkdir -p "$out/ncu"
    for kernel in cp_async stream_k; do
      # One launch each (the first, the verified one), every section, ncu's default locked clocks.
      step "ncu_$kernel" "$out/ncu/ncu_$kernel.log" ncu --set full -k "regex:${kernel}_kernel" -c 1 -f \
        -o "$out/ncu/ncu_$kernel" "$bin/04_shared_matmul" -n 4096 --skip-cpu --kernel "$kernel" --reps 1 --warmup 0
      if [ -s "$out/ncu/ncu_$kernel.ncu-rep" ]; then
        always=1 step "ncu_${kernel}_details" "$out/ncu/ncu_$kernel.txt" \
          ncu --import "$out/ncu/ncu_$kernel.ncu-rep" --page details
      fi
    done
  fi
fi

# --- plots: every figure of docs/images, under the same name --------------------------------------
# plot_from FOLDER SOURCES...: plot.py on the sources that exist, into plots/FOLDER.
plot_from() {
  local folder="$1" source existing=()
  shift
  for source in "$@"; do [ -e "$source" ] && existing+=("$source"); done
  [ "${#existing[@]}" -gt 0 ] || return 0
  always=1 step "plots/$folder" "$out/plots/$folder.txt" "$python" "$course_root/scripts/plot.py" "${existing[@]}" \
    --out "$out/plots/$folder"
}
# figure NAME FROM: the figure docs/images/NAME is FROM (a file plot_from drew), copied as NAME.
figure() { [ -f "$out/plots/$2" ] && cp "$out/plots/$2" "$out/plots/$1"; return 0; }
if wants plots; then
  python="$(course_plot_python)"
  if [ -z "$python" ]; then
    echo "== plots: no Python with matplotlib (install python3-matplotlib)"
    failed+=(plots)
    status=1
  else
    mkdir -p "$out/plots"
    r="$out/runs"
    plot_from from_runs "$r/01_2e28.json" "$r/02_2e28.json" "$r/02_2e26_sweep.json" "$r/03_default.json" \
      "$r/04_sweep.json" "$r/05_perf.json" "$r/06_pictures.json" "$r/06_wrap.json" "$r/06_crossover_cpu.json"
    plot_from from_03_compute_bound "$r/03_compute_bound.json"
    plot_from from_06_4096 "$r/06_crossover_4096.json"
    plot_from from_sweeps "$out/sweep_01_vector_exp" "$out/sweep_02_elementwise_add"
    for name in 01_vector_exp_times 02_elementwise_add_times 02_elementwise_add_launch_sweep 03_streams_times \
                03_streams_timeline 04_shared_matmul_size_sweep 05_mandelbrot_blocks_sweep \
                06_fft_convolve_side_by_side 06_fft_convolve_naive_wrap_box_31 06_fft_convolve_crossover; do
      figure "$name.png" "from_runs/$name.png"
    done
    figure 03_streams_timeline_intensity2000.png from_03_compute_bound/03_streams_timeline.png
    figure 06_fft_convolve_crossover_4096.png from_06_4096/06_fft_convolve_crossover.png
    figure 01_vector_exp_throughput.png from_sweeps/01_vector_exp_throughput.png
    figure 02_elementwise_add_throughput.png from_sweeps/02_elementwise_add_throughput.png
    for picture in classic:05_mandelbrot_classic deep:05_mandelbrot_deep_zoom; do
      if [ -f "$r/05_${picture%%:*}.png" ]; then
        always=1 step "plots/${picture#*:}" "$out/plots/${picture#*:}.txt" "$python" \
          "$course_root/05_mandelbrot/draw_counts.py" "$r/05_${picture%%:*}.png" --out "$out/plots/${picture#*:}.png"
      fi
    done
    drawn=()
    not_drawn=()
    for image in "$course_root"/docs/images/*.png; do
      if [ -f "$out/plots/$(basename "$image")" ]; then drawn+=("$(basename "$image")"); else not_drawn+=("$(basename "$image")"); fi
    done
    echo "== figures of docs/images drawn in plots/: ${#drawn[@]} of $((${#drawn[@]} + ${#not_drawn[@]}))"
    [ "${#not_drawn[@]}" -eq 0 ] || echo "   not drawn (their runs are not in $out): ${not_drawn[*]}"
  fi
fi

echo "== $(seconds_since "$started_us") s in all; every step's seconds in ${timings#"$course_root"/}"
[ "${#failed[@]}" -eq 0 ] || echo "== failed: ${failed[*]}"
[ "${#skipped[@]}" -eq 0 ] || echo "== skipped: ${skipped[*]}"
echo "== results in $out"
exit "$status"
