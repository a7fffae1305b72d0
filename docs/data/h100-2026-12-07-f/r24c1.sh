#!/usr/bin/env bash
# Call 1: two candidates of lesson 06 on one build. (a) direct_cand_tall_pairs held to 2 or 3
# blocks an SM by its shared-memory request (tall_pairs_cap.diff, after tall_pairs.diff), beside
# step 28: the 1024^2 sweep twice, 4096^2 at K = 15 and 19, Nsight Compute's spread of blocks at
# 1024^2 K = 15. (b) separable_cand_even (even.diff): step 22 with its column pass in a grid the GPU
# holds at once, every warp the same rows: the 4096^2 sweep, K = 55 and 63 twice more, Nsight
# Compute of both passes at K = 63. Then the candidates' tests and compute-sanitizer.
# The tree sent is the commit in build/devtools/REV with the three patches applied in order.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + tall_pairs.diff + tall_pairs_cap.diff + even.diff"; git status --short; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
(cmake --build build/release -j6 --target 06_fft_convolve_tests > $R/build_tests.log 2>&1; echo $? > $R/build_tests.rc) &
P="--kernel direct_tall --kernel direct_cand_tall_pairs --kernel direct_cand_tall_pairs_2sm --kernel direct_cand_tall_pairs_3sm"
S="--kernel separable_lean --kernel separable_cand_even"
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_a.json > $R/runs/r06_direct1024_a.txt 2>&1; step r06_direct1024_a $?
timeout 90 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $S --json $R/runs/r06_sep4096_a.json > $R/runs/r06_sep4096_a.txt 2>&1; step r06_sep4096_a $?
pack
for k in 55 63; do for x in b c; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $S --json $R/runs/r06_sep4096_k${k}_$x.json > $R/runs/r06_sep4096_k${k}_$x.txt 2>&1; step r06_sep4096_k${k}_$x $?
done; done
for k in 15 19; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_b.json > $R/runs/r06_direct1024_b.txt 2>&1; step r06_direct1024_b $?
pack
M="--metrics sm__ctas_launched.min,sm__ctas_launched.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,gpu__time_duration.sum"
for v in direct_cand_tall_pairs direct_cand_tall_pairs_2sm direct_cand_tall_pairs_3sm; do
  timeout 60 ncu $M -k regex:"direct_tall" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_1024_k15.txt 2>&1; step ncu_$v $?
done
for v in separable_lean separable_cand_even; do
  timeout 60 ncu $M -k regex:"pass" -c 2 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_4096_k63.txt 2>&1; step ncu_$v $?
done
pack
wait
step "build tests (warnings $(grep -c warning $R/build_tests.log))" $(cat $R/build_tests.rc)
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R "GpuTallPairsCandidate|GpuEvenCandidate|Registry/GpuKernels.*(cand_tall_pairs|cand_even)" > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_tall_pairs_2sm --kernel direct_cand_tall_pairs_3sm --kernel separable_cand_even > $R/san06_${t}_k15.log 2>&1; step san06_${t}_k15 $?
done
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/06_fft_convolve --width 1000 --height 3000 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel separable_cand_even > $R/san06_memcheck_k63.log 2>&1; step san06_memcheck_k63 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
for f in $R/ncu/*.txt; do echo "== $f"; grep -E "^  [a-z]|sm__|gpc__|smsp__|gpu__|launch__" $f | awk '{print $1, $NF}'; done
grep -hE "^ +(3|9|15|19|23) +GPU" $R/runs/r06_direct1024_*.txt
grep -hE "^ +(31|47|55|63) +GPU" $R/runs/r06_sep4096_a.txt
grep -h "GPU direct\|GPU separable" $R/runs/r06_4096_k*.txt $R/runs/r06_sep4096_k*.txt | grep -v "\[\|note\|skipped"
