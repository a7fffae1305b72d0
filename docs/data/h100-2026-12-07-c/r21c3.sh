#!/usr/bin/env bash
# Call 3: step 28 (direct_tall) beside steps 23 and 27, and the at-most-two-blocks-an-SM
# candidates (29_direct_cand_staged.cu, and step 27 asking for 80 KiB): the 1024^2 sweep three
# times, 4096^2 at K = 3 ... 23; stamps with blocks per SM; tests; sanitizers.
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + step 28 + candidates"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c3.tgz c3); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
P="--kernel direct_register_lean --kernel direct_uniform_rows --kernel direct_tall --kernel direct_cand_rows_cap2 --kernel direct_cand_tall_cap2"
for x in a b c; do
timeout 100 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
for k in 3 5 7 9 11 15 19 23; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
for k in 15 19; do for v in tall tall_cap2; do
timeout 60 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu --kernel direct_cand_${v}_stamps > $R/runs/s06_${v}_stamps_1024_k$k.txt 2>&1; step stamps_${v}_k$k $?
done; done
grep -h -A12 "stamps (" $R/runs/s06_*.txt >> $R/steps.txt
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R 'GpuTallAtEvery|GpuStagedCandidates|Registry/GpuKernels|GpuBlocked\.|DirectTall|ConstantMemoryFilters' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do for k in 15 23; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size $k --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_tall --kernel direct_cand_tall_cap2 --kernel direct_cand_rows_cap2 > $R/san06_${t}_k$k.log 2>&1; step san06_${t}_k$k $?
pack
done; done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
grep -hE "^ +(3|9|15|19|23) +GPU" $R/runs/r06_direct1024_*.txt; grep -h "GPU direct" $R/runs/r06_4096_k*.txt | grep -v "verif\|note\|passed"
