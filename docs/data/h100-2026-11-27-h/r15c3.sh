#!/usr/bin/env bash
# Call 3: the tree with step 25 (direct_uniform) and the copies of step 23 in async_copy.cuh:
# lesson 06's GPU and sanitizer suite with COURSE_REQUIRE_GPU=1; compute-sanitizer (racecheck,
# memcheck, synccheck) on steps 25 and 23 (16-byte and 4-byte copies); the direct sweeps at
# 1024^2 (twice) and 4096^2 with steps 20, 23, 25 and the FFT rows; the classic 5x5 and K = 31
# at 4096^2 (all rows); Nsight Compute on step 25 and step 23 at K = 15 (1024^2); step 25's SASS.
# Under /tmp/c3, tarred.
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c3.tgz c3); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
D="--kernel direct_register_2d --kernel direct_register_lean --kernel direct_uniform --kernel fft_r2c --kernel fft_fused"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
timeout 200 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
pack
timeout 100 $B/06_fft_convolve -n 4096 --skip-cpu --json $R/runs/r06_4096_k5.json > $R/runs/r06_4096_k5.txt 2>&1; step r06_4096_k5 $?
timeout 100 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size 31 --skip-cpu --json $R/runs/r06_4096_k31.json > $R/runs/r06_4096_k31.txt 2>&1; step r06_4096_k31 $?
pack
COURSE_REQUIRE_GPU=1 timeout 330 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 600 601; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter gaussian --filter-size 19 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_uniform --kernel direct_register_lean > $R/san06_${t}_$w.log 2>&1; step san06_${t}_$w $?
done
done
pack
M="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max"
timeout 60 ncu $M -k regex:"direct_uniform_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel direct_uniform > $R/ncu/ncu_uniform_k15.txt 2>&1; step ncu_uniform $?
timeout 60 ncu $M -k regex:"direct_register_lean_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel direct_register_lean > $R/ncu/ncu_lean_k15.txt 2>&1; step ncu_lean $?
O=$(find build/release -name '25_direct_uniform.cu.o' | head -1)
cuobjdump -sass $O 2>&1 | gzip > $R/sass25.txt.gz; step sass $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
