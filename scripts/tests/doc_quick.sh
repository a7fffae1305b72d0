#!/usr/bin/env bash
# The quick mode of the documented commands (check_scripts.sh doc_commands --quick): stands in
# for a lesson binary and runs it with the command's own arguments, made small: each size flag's
# value capped, a size given where the command gives none, at most 3 timed GPU runs, 1 warm-up,
# 1 timed CPU run, 4 CPU threads where the command names a count, and the first 3 values of
# every --sweep (COURSE_SWEEP_MAX_POINTS, read by the lessons' harness). Every flag and every other value stays as the page wrote it, so
# the command is still checked (it parses, runs, verifies, writes its files); only its sizes and
# repetitions shrink. Lesson 04's matmul_tune (every kernel variant, 4096^3 by default) gets
# --size 512 and 3 reps. Usage: doc_quick.sh REAL_BINARY [ARGUMENTS...]
set -uo pipefail
real="$1"
shift
name="$(basename "$real")"
case "$name" in
  01_*|02_*|03_*|08_*) size_flags=" -l --length --size " cap=1048576 ;;
  04_*) size_flags=" -n --size --m --n --k " cap=512 ;;
  05_*) size_flags=" --size --width --height " cap=320 ;;
  06_*) size_flags=" -n --size --width --height " cap=256 ;;
  07_*) size_flags=" -n --options --size " cap=100000 ;;
  matmul_tune) size_flags=" --size " cap=512 ;;  # lesson 04's tuning tool: --size and --reps only
  *) exec "$real" "$@" ;;
esac
declare -A caps=([--reps]=3 [--warmup]=1 [--cpu-reps]=1 [--threads]=4)
repeat_flags="--reps --warmup --cpu-reps"
[ "$name" = matmul_tune ] && repeat_flags="--reps"
# Many of these run at once under ctest -j: OpenMP threads that spin while they wait would take
# the cores from each other (FFTW's threaded plans slowed 80-fold so), so they sleep instead.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# A sweep's later values are its largest sizes (04's double-precision references up to 8192^3,
# 06's K up to 63): the first 3 still run, verify and fill the sweep's table and plot.
export COURSE_SWEEP_MAX_POINTS="${COURSE_SWEEP_MAX_POINTS:-3}"
for flag in $size_flags; do caps[$flag]=$cap; done
args=() sized=0 image=0
declare -A seen=()
while [ $# -gt 0 ]; do
  arg="$1"
  shift
  case "$arg" in -h|--help) exec "$real" "${args[@]}" "$arg" "$@" ;; esac
  flag="${arg%%=*}"
  [ "$flag" = --image ] && [[ "$name" == 06_* ]] && image=1
  [ "$flag" = --classic ] && [[ "$name" == 07_* ]] && image=1  # a fixed run that takes no size
  if [ -n "${caps[$flag]:-}" ]; then
    if [ "$flag" != "$arg" ]; then value="${arg#*=}"; else value="${1-}"; [ $# -gt 0 ] && shift; fi
    if [[ "$value" =~ ^[0-9]+$ ]] && [ "${#value}" -lt 19 ] && [ "$value" -gt "${caps[$flag]}" ]; then
      # An odd size stays odd (the pages choose awkward sizes on purpose).
      odd=0
      [[ "$size_flags" == *" $flag "* ]] && odd=$((value % 2))
      value=$((caps[$flag] + odd))
    fi
    args+=("$flag" "$value")
    seen[$flag]=1
    [[ "$size_flags" == *" $flag "* ]] && sized=1
  else
    args+=("$arg")
  fi
done
# A lesson 06 run on a picture (--image) has the picture's size, 07's --classic its own; every
# other run gets one.
if [ "$sized" -eq 0 ] && [ "$image" -eq 0 ]; then args+=(--size "$cap"); fi
for flag in $repeat_flags; do
  [ -n "${seen[$flag]:-}" ] || args+=("$flag" "${caps[$flag]}")
done
exec "$real" "${args[@]}"
