#!/usr/bin/env bash
# Call 3: direct_cand_tall_pairs held to 2 or 3 blocks an SM by its shared-memory request
# (tall_pairs_cap.diff), beside step 28 and the unheld candidate: the 1024^2 sweep twice, 4096^2
# at K = 15 and 19; Nsight Compute's blocks per SM and active cycles at 1024^2 K = 15; memcheck.
# Lean (little device time left): every row is verified by the lesson itself; no test build.
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs $R/ncu
for p in docs/data/h100-2026-12-07-d/tall_pairs.diff docs/data/h100-2026-12-07-e/tall_pairs_cap.diff; do
  git apply "$p" 2>/dev/null || patch -p1 -s < "$p" || { echo "patch $p failed"; exit 1; }
done
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + tall_pairs.diff + tall_pairs_cap.diff"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c3.tgz c3); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
P="--kernel direct_tall --kernel direct_cand_tall_pairs --kernel direct_cand_tall_pairs_2sm --kernel direct_cand_tall_pairs_3sm"
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_a.json > $R/runs/r06_direct1024_a.txt 2>&1; step r06_direct1024_a $?
pack
M="--metrics sm__ctas_launched.min,sm__ctas_launched.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum"
for v in direct_tall direct_cand_tall_pairs direct_cand_tall_pairs_2sm; do
  timeout 60 ncu $M -k regex:"direct_tall" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_1024_k15.txt 2>&1; step ncu_$v $?
done
pack
for k in 15 19; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_b.json > $R/runs/r06_direct1024_b.txt 2>&1; step r06_direct1024_b $?
pack
for t in memcheck; do
timeout 40 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_tall_pairs_2sm --kernel direct_cand_tall_pairs_3sm > $R/san06_$t.log 2>&1; step san06_$t $?
done
pack
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
for f in $R/ncu/*.txt; do echo "== $f"; grep -E "sm__|gpc__|smsp__|gpu__" $f | awk '{print $1, $NF}'; done
grep -hE "^ +(3|9|15|19) +GPU" $R/runs/r06_direct1024_*.txt
grep -h "GPU direct" $R/runs/r06_4096_k*.txt | grep -v "\[\|note"
