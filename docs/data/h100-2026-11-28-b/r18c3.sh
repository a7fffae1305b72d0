#!/usr/bin/env bash
# Call 3: Nsight Compute on the table builds at 4096^2 (box 9): step 26, step 28 (32 rows, three
# an SM) and its 16-row candidate (four an SM): throughput, memory, warp states, occupancy.
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c3.tgz c3); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
for k in sat_lookback_sentinel sat_lookback_staged sat_lookback_staged16; do
timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_active.avg,gpu__time_duration.sum,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio \
  -k regex:"^sat_lookback_s" -c 1 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel $k > $R/ncu/ncu_$k.txt 2>&1; step ncu_$k $?
done
pack
T="--kernel sat_lookback_sentinel --kernel sat_lookback_staged --kernel sat_lookback_staged16"
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096.json > $R/runs/r06_box4096.txt 2>&1; step r06_box4096 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
