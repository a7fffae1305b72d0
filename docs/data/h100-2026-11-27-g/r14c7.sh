#!/usr/bin/env bash
# Call 7: the tree as committed (step 24 with its flags 256 bytes apart):
# lesson 06 built with its tests; the runs the page quotes; ncu stall reasons of steps 19 and 24;
# the lesson's GPU and sanitizer suites with COURSE_REQUIRE_GPU=1. Under /tmp/c7, tarred.
source build/devtools/setup.sh
R=/tmp/c7; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c7.tgz c7); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
for x in a b c; do
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu --json $R/runs/r06_box1024.json > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
D="--kernel direct_tiled --kernel direct_register_2d --kernel direct_register_lean --kernel fft_r2c --kernel fft_fused"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
timeout 200 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu --kernel direct_register_2d --kernel direct_register_lean --kernel fft_r2c --kernel fft_fused --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
timeout 120 $B/06_fft_convolve -n 1024 --filter box --sweep filter-size --skip-cpu --json $R/runs/r06_boxsweep1024.json > $R/runs/r06_boxsweep1024.txt 2>&1; step r06_boxsweep1024 $?
pack
M="--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum"
for k in sat_lookback_fenced; do
timeout 100 ncu $M -k $k -c 1 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel $k > $R/ncu/ncu_stalls_$k.txt 2>&1; step ncu_$k $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 420 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.' -L 'gpu|sanitizer' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
timeout 150 $B/06_fft_convolve -n 4096 --filter box --sweep filter-size --skip-cpu --kernel direct_tiled --kernel fft_r2c --kernel fft_fused --kernel sat_bands --kernel sat_lookback --kernel sat_lookback_fenced --json $R/runs/r06_boxsweep4096.json > $R/runs/r06_boxsweep4096.txt 2>&1; step r06_boxsweep4096 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
