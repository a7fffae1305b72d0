#!/usr/bin/env bash
# Call 9 (2026-11-27, evening): Nsight Compute on lesson 06's summed-area-table steps (sat_bands's
# three kernels, sat_lookback) at 4096 x 4096, for the table goal still open. Under /tmp/c9, tarred.
source build/devtools/setup.sh
R=/tmp/c9; rm -rf $R; mkdir -p $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c9.tgz c9); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,gpc__cycles_elapsed.max"
timeout 200 ncu $SEC -k regex:"band_column_sums|band_prefix|band_sweep|sat_lookback" -c 8 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_bands --kernel sat_lookback > $R/ncu/ncu_sat_4096.txt 2>&1; step ncu_sat_4096 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
