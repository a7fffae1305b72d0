#!/usr/bin/env bash
# Call 4: step 28 with 512 threads on a 128 x 64 tile (candidate 29_direct_cand_tall512.cu) beside
# steps 23, 27 and 28: the 1024^2 sweep three times, 4096^2 at K = 7, 15, 19, 23; tests; sanitizers.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 29_direct_cand_tall512.cu"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c4.tgz c4); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
P="--kernel direct_register_lean --kernel direct_uniform_rows --kernel direct_tall --kernel direct_cand_tall512"
for x in a b c; do
timeout 100 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
for k in 7 15 19 23; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 120 ctest --test-dir build/release -j8 --output-on-failure -R 'GpuTall512Candidate|Registry/GpuKernels.*direct_cand_tall512|ConstantMemoryFilters' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 19 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_tall512 > $R/san06_${t}.log 2>&1; step san06_$t $?
pack
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
grep -hE "^ +(3|9|15|19|23) +GPU" $R/runs/r06_direct1024_*.txt; grep -h "GPU direct" $R/runs/r06_4096_k*.txt | grep -v "verif\|note\|passed"
