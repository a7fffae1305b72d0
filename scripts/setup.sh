# Shared by the course's scripts (sourced, not run): find the CUDA Toolkit, install what is
# missing, configure a CMake preset.
#
# Missing Debian packages are installed with apt-get when running as root; otherwise the exact
# `apt-get install` line is printed and the script stops. The list of packages comes from the
# CMake configuration itself (cmake/CourseDependencies.cmake), so there is one source of truth.
# COURSE_NO_INSTALL=1 never installs anything, root or not: for a machine without a package
# manager whose packages are found through CMAKE_PREFIX_PATH (a missing required package then
# stops the script with its name; a missing optional one leaves its part out, as for a user).

course_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
course_caller_dir="$PWD"  # relative paths given by the user are resolved against this
course_apt_updated=0
cd "$course_root"  # presets are found in the current folder

course_script="$(basename "$0")"
course_say() { printf '%s\n' "$*" >&2; }

# Called as `course_value "$@"` where $1 is a flag that takes a value: a flag given last, or
# with an empty value, is a one-line error and exit 2 (not bash's "$2: unbound variable").
course_value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then
    course_say "$course_script: $1 needs a value (see --help)"
    exit 2
  fi
  # "--out --no-plot": the next flag is not the value (a file or folder named -x is written ./-x).
  if [[ "$2" == -* ]]; then
    course_say "$course_script: $1 needs a value, not the flag '$2' (see --help)"
    exit 2
  fi
}

# Whether missing packages may be installed here: as root, unless COURSE_NO_INSTALL=1.
course_may_install() {
  [ "$(id -u)" -eq 0 ] && [ "${COURSE_NO_INSTALL:-0}" != 1 ]
}

# Installs Debian packages, or says how to and stops. apt's own output goes to build/apt.log:
# one line here per step, the log's end only if a step fails.
course_install_packages() {
  [ $# -gt 0 ] || return 0
  if ! course_may_install; then
    course_say "Missing Debian packages: $*"
    if [ "${COURSE_NO_INSTALL:-0}" = 1 ]; then
      course_say "COURSE_NO_INSTALL=1: nothing is installed. Install them (or point CMAKE_PREFIX_PATH at them), then run this again:"
    else
      course_say "Install them, then run this again:"
    fi
    course_say "  sudo apt-get install -y $*"
    exit 1
  fi
  local log="$course_root/build/apt.log"
  mkdir -p "$course_root/build"
  if [ "$course_apt_updated" -eq 0 ]; then
    echo "== apt-get update (output in build/apt.log)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >>"$log" 2>&1 ||
      { tail -n 20 "$log" >&2; course_say "apt-get update failed (end of build/apt.log above)"; exit 1; }
    course_apt_updated=1
  fi
  echo "== apt-get install $* (output in build/apt.log)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; course_say "apt-get install $* failed (end of build/apt.log above)"; exit 1; }
}

# The tools needed before CMake can even run, and the CUDA compiler.
course_ensure_base_tools() {
  local missing=()
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  command -v make >/dev/null 2>&1 || missing+=(make)
  course_install_packages "${missing[@]}"

  local version
  version="$(cmake --version | head -n 1 | awk '{print $3}')"
  if [ "$(printf '%s\n3.25\n' "$version" | sort -V | head -n 1)" != "3.25" ]; then
    course_say "CMake $version is too old: the course needs 3.25 or newer (Debian 12 ships 3.25)."
    exit 1
  fi

  if ! command -v nvcc >/dev/null 2>&1; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
      export PATH="/usr/local/cuda/bin:$PATH"
    else
      course_say "The CUDA Toolkit was not found (no nvcc on PATH or in /usr/local/cuda/bin)."
      course_say "Install NVIDIA's CUDA Toolkit 12.x or 13.x into /usr/local/cuda, then run this again."
      exit 1
    fi
  fi
}

# The Debian packages a configure found missing, required and optional, on one line.
course_missing_packages() {
  local folder="$1"
  # Either list may be absent (nothing missing): that is no error under the scripts' `set -e`.
  { cat "$folder/missing-debian-packages.txt" "$folder/missing-optional-debian-packages.txt" 2>/dev/null || true; } |
    tr ' ' '\n' | awk 'NF && !seen[$0]++' | paste -sd ' ' -
}

# Runs CMake's configure for a preset into build/configure-<preset>.log; its missing-package
# lists are removed first, so a configure that stops early leaves no stale list behind.
course_run_configure() {
  local preset="$1"
  shift
  rm -f "$course_root/build/$preset/missing-debian-packages.txt" \
        "$course_root/build/$preset/missing-optional-debian-packages.txt"
  cmake --preset "$preset" "$@" >"$course_root/build/configure-$preset.log" 2>&1
}

# Configures a preset. Missing Debian packages, required and optional alike, are installed in
# one go when running as root, then the preset is configured again; so whichever script runs
# first builds every lesson. Not root, or COURSE_NO_INSTALL=1: a missing required package stops
# here with one apt-get line naming every missing package; with only optional ones missing, the
# same line is printed and the build goes on without what needs them (scripts/test_course.sh
# lists it at the end).
# With CI=true, CMake itself treats a missing optional package as required.
course_configure() {
  local preset="$1"
  shift
  local configured=1 missing
  course_run_configure "$preset" "$@" || configured=0
  missing="$(course_missing_packages "$course_root/build/$preset")"
  if [ -n "$missing" ] && course_may_install; then
    # shellcheck disable=SC2086 # one package per word
    course_install_packages $missing
    configured=1
    course_run_configure "$preset" "$@" || configured=0
  elif [ -n "$missing" ] && [ "$configured" -eq 0 ]; then
    # shellcheck disable=SC2086 # one package per word
    course_install_packages $missing  # no installing here: prints the apt-get line and stops
  elif [ -n "$missing" ]; then
    course_say "Some lessons or tests are left out of this build: they need Debian packages that are missing."
    course_say "Install them, then run this again:"
    course_say "  sudo apt-get install -y $missing"
  fi
  if [ "$configured" -eq 0 ]; then
    cat "$course_root/build/configure-$preset.log" >&2
    course_say "CMake configuration failed (log above)."
    exit 1
  fi
}

# After the tests: what this build left out and why (build/<preset>/left-out.txt, written by
# the configure), so a missing lesson is never a silent absence.
course_report_left_out() {
  local preset="$1"
  local file="$course_root/build/$preset/left-out.txt"
  [ -s "$file" ] || return 0
  echo "== left out of this build (install the Debian packages named, then run this again):"
  sed 's/^/   /' "$file"
}

course_prepare_build_dir() {
  mkdir -p "$course_root/build"
  export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
}

# Reads a Makefile build's output and prints one line per target built ("[ 45%] Built target X"),
# and, while a large target compiles, the file being compiled at most every 15 seconds: a build
# of minutes shows progress without its hundreds of lines.
course_build_progress() {
  local line last=$SECONDS
  while IFS= read -r line; do
    if [[ "$line" =~ ^\[\ *[0-9]+%\]\ Built\ target ]]; then
      echo "   $line"
      last=$SECONDS
    elif [[ "$line" =~ ^\[\ *[0-9]+%\]\ Building ]] && ((SECONDS - last >= 15)); then
      echo "   $line"
      last=$SECONDS
    fi
  done
}

# Builds a configured preset: progress lines here, the whole output in build/build-<preset>.log,
# shown only if the build fails.
course_run_build() {
  local preset="$1"
  local log="$course_root/build/build-$preset.log"
  echo "== build (preset $preset, $CMAKE_BUILD_PARALLEL_LEVEL jobs; output in build/build-$preset.log)"
  if ! cmake --build --preset "$preset" 2>&1 | tee "$log" | course_build_progress; then
    cat "$log" >&2
    course_say "build failed (build/build-$preset.log above)"
    exit 1
  fi
}

# Everything a script needs before it runs lessons: tools, dependencies, a configured and
# built preset.
course_build() {
  local preset="$1"
  course_prepare_build_dir
  course_ensure_base_tools
  echo "== configure (preset $preset; output in build/configure-$preset.log)"
  course_configure "$preset"
  course_run_build "$preset"
}

# Prints a Python interpreter that has matplotlib (the first python3 on PATH may be a private
# one without it), or nothing.
course_plot_python() {
  local candidate
  for candidate in "$(command -v python3 || true)" /usr/bin/python3; do
    if [ -n "$candidate" ] && "$candidate" -c "import matplotlib" 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
}
