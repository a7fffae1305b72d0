#!/usr/bin/env bash
# Call 2: the streamed candidates (tile rows waited for by mbarriers: step 23's taps, and taps from
# constant memory with rows unrolled up to K = 19) beside step 23 and the call 1 candidates:
# 1024^2 sweeps twice, 4096^2 sweep; GPU tests of the candidates; compute-sanitizer (racecheck,
# memcheck, synccheck) on the streamed ones, 16-byte and 4-byte copies. Under /tmp/c2, tarred.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
D="--kernel direct_register_lean --kernel direct_const_rolled --kernel direct_const_unrolled --kernel direct_const_streamed --kernel direct_lean_streamed"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
timeout 150 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '06_fft_convolve\..*(direct_const|direct_lean_|Registry).*' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 600 601; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_const_streamed --kernel direct_lean_streamed > $R/san06_${t}_$w.log 2>&1; step san06_${t}_$w $?
done
done
M="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max"
for v in direct_const_streamed direct_lean_streamed; do
timeout 60 ncu $M -k regex:"direct_register_const_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_k15.txt 2>&1; step ncu_$v $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
