#!/usr/bin/env bash
# Call 1: direct candidates (taps from constant memory, rolled / fully unrolled rows; step 23
# without its register cap) beside step 23 at 1024^2 (two sweeps) and 4096^2; SASS of the
# candidates; Nsight Compute on separable_lean at K = 55 and 63 (both passes) and on the
# candidates at K = 15 (1024^2). Under /tmp/c1, tarred.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
D="--kernel direct_register_lean --kernel direct_lean_cap2 --kernel direct_const_rolled --kernel direct_const_unrolled"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
timeout 150 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
pack
O=$(find build/release -name '25_direct_register_const.cu.o' | head -1)
cuobjdump -sass $O 2>&1 | gzip > $R/sass25.txt.gz; step sass $?
M="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max"
for k in 55 63; do
timeout 100 ncu $M -k regex:"pass_lean_kernel" -c 2 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu --reps 1 --warmup 0 --kernel separable_lean > $R/ncu/ncu_seplean_k$k.txt 2>&1; step ncu_sep_k$k $?
done
pack
for v in direct_const_rolled direct_const_unrolled direct_lean_cap2; do
timeout 60 ncu $M -k regex:"direct_register_const_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_k15.txt 2>&1; step ncu_$v $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
