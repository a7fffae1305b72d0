#!/usr/bin/env bash
# Call 2: the candidate 29_direct_cand_tall_pairs.cu (step 25's two neighbouring rows per thread
# on step 28's 128 x 32 tile) beside steps 23, 25 and 28: the 1024^2 sweep twice, 4096^2 at
# K = 15 and 19; its tests; racecheck and memcheck.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 29_direct_cand_tall_pairs.cu"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
(cmake --build build/release -j8 --target 06_fft_convolve_tests > $R/build_tests.log 2>&1; echo $? > $R/build_tests.rc) &
P="--kernel direct_register_lean --kernel direct_uniform --kernel direct_tall --kernel direct_cand_tall_pairs"
for x in a b; do
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
for k in 15 19; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
wait
step "build tests (warnings $(grep -c warning $R/build_tests.log))" $(cat $R/build_tests.rc)
COURSE_REQUIRE_GPU=1 timeout 90 ctest --test-dir build/release -j8 --output-on-failure -R "GpuTallPairsCandidate|Registry/GpuKernels.*cand_tall_pairs" > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck; do
timeout 40 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_tall_pairs > $R/san06_${t}.log 2>&1; step san06_${t} $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
grep -hE "^ +(3|9|15|19) +GPU" $R/runs/r06_direct1024_*.txt; grep -h "GPU direct" $R/runs/r06_4096_k*.txt | grep -v "verif\|note\|passed"
