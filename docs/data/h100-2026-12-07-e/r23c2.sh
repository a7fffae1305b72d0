#!/usr/bin/env bash
# Call 2: both candidates of call 1 again (tall_pairs.diff, strips.diff): Nsight Compute on
# step 28 against direct_cand_tall_pairs (1024^2 K = 15; 4096^2 K = 15 and 19: pipes, shared
# wavefronts, issue, stalls) and on step 22's passes against separable_cand_strips_b3 at K = 63
# (4096^2); the 4096^2 direct sweep of step 28 and the candidate; 4096^2 K = 15 once more.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs $R/ncu
D=docs/data/h100-2026-12-07-d
for p in $D/tall_pairs.diff $D/strips.diff; do
  git apply "$p" 2>/dev/null || patch -p1 -s < "$p" || { echo "patch $p failed"; exit 1; }
done
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + tall_pairs.diff + strips.diff"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
M="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum"
for n in 1024 4096; do for k in 15 19; do
  [ $n = 1024 ] && [ $k = 19 ] && continue
  for v in direct_tall direct_cand_tall_pairs; do
    timeout 100 ncu $M -k regex:"direct_tall" -c 1 $B/06_fft_convolve -n $n --filter gaussian --filter-size $k --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_${n}_k$k.txt 2>&1; step ncu_${v}_${n}_k$k $?
  done
done; done
pack
for v in separable_lean separable_cand_strips_b3; do
  timeout 100 ncu $M -k regex:"pass_(lean|strips)_kernel" -c 2 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_4096_k63.txt 2>&1; step ncu_${v}_k63 $?
done
pack
P="--kernel direct_tall --kernel direct_cand_tall_pairs"
timeout 90 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size 15 --skip-cpu $P --json $R/runs/r06_4096_k15.json > $R/runs/r06_4096_k15.txt 2>&1; step r06_4096_k15 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
for f in $R/ncu/*.txt; do echo "== $f"; grep -E "^  [a-z_]+kernel|sm__pipe_fma_cycles|issue_active.avg.pct|wavefronts_mem_shared.avg|lsu_wavefronts.avg|pipe_lsu.avg|stalled_(long|short|mio|lg|wait|barrier|math|not_sel|dispatch|no_inst)[a-z_]*per_issue|Duration|Registers Per|Achieved Occ" $f | head -40; done
grep -hE "^ +(3|5|7|9|11|15|19|23) +GPU" $R/runs/r06_direct4096.txt
grep -h "GPU direct" $R/runs/r06_4096_k15.txt | grep -v "\[\|note"
