#!/usr/bin/env bash
# Call 4: step 25 with its two output rows in a loop (half the code; direct_rowloop): the 1024^2
# Gaussian sweep twice beside steps 23 and 25, 4096^2 at K = 15, 19, 23; the registry's GPU
# tests; compute-sanitizer; Nsight Compute's fetch stalls at K = 15 and 19.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c4.tgz c4); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
P="--kernel direct_register_lean --kernel direct_uniform --kernel direct_rowloop"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
for k in 15 19 23; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '06_fft_convolve\..*(GpuKernels|GpuMethods)' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 600 601; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_rowloop > $R/san06_${t}_$w.log 2>&1; step san06_${t}_$w $?
done
done
pack
M="--metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"
for k in 15 19; do
for kn in direct_uniform direct_rowloop; do
timeout 60 ncu $M -k regex:"direct_(uniform|rowloop)_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu --reps 1 --warmup 0 --kernel $kn > $R/ncu/ncu_${kn}_k$k.txt 2>&1; step ncu_${kn}_$k $?
done
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
