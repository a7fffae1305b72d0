#!/usr/bin/env bash
# Call 4 (session 11): Nsight Compute stall reasons at 4096^3: cuBLAS's SGEMM against stream_k and kernel 11.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R; REAL_OUT=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; ncu --version | tail -1; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 04_shared_matmul > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
ncu --query-metrics --chip gh100 > $R/query.txt 2>&1
M=$(grep -oE "smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active" $R/query.txt | sort -u | sed 's/$/.ratio/' | paste -sd, -)
M="$M,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum"
echo "$M" | tr ',' '\n' > $R/metrics.txt
B=build/release/bin/04_shared_matmul
timeout 120 ncu --metrics "$M" --launch-skip 3 --launch-count 1 --kernel-name regex:'xmma|sgemm' $B -n 4096 --skip-cpu --kernel stream_k --reps 1 --warmup 3 > $R/stalls_cublas_4096.txt 2>&1; step cublas $?
for k in stream_k split_k cp_async; do
  timeout 120 ncu --metrics "$M" --launch-count 1 --kernel-name regex:"${k}|wide_thread" $B -n 4096 --skip-cpu --kernel $k --reps 1 --warmup 0 > $R/stalls_${k}_4096.txt 2>&1; step $k $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $REAL_OUT/c4.tgz c4
