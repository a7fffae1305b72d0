#!/usr/bin/env bash
# Call 8: Nsight Compute on step 23 (direct_register_lean) and step 20 at K = 15 and 19 on
# 1024 x 1024 (speed of light, scheduler, stall reasons, shared-memory wavefronts), for the goal
# still open there. Under /tmp/c8, tarred.
source build/devtools/setup.sh
R=/tmp/c8; rm -rf $R; mkdir -p $R/ncu
{ nvidia-smi -L; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c8.tgz c8); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
M="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max"
for k in 15 19; do
timeout 100 ncu $M -k regex:"direct_register_lean_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu --reps 1 --warmup 0 --kernel direct_register_lean > $R/ncu/ncu_lean_k$k.txt 2>&1; step ncu_k$k $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
