#!/usr/bin/env bash
# Call 1: step 28 beside the candidates of 29_direct_counted_rows.cu + 30_direct_cand_dynamic.cu (row pairs fixed or taken from
# a shared counter; 256 threads on 128 x 32, 512 threads on 128 x 64): stamps (per SM, block,
# sub-partition) at K = 15 and 19 on 1024^2; the 1024^2 sweep three times; 4096^2 at K = 15, 19,
# 23, 5; tests; sanitizers. Most telling first: a stage's files are packed as soon as it ends.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 29_direct_counted_rows.cu + 30_direct_cand_dynamic.cu"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
# the tests build on the side while the runs go
(cmake --build build/release -j6 --target 06_fft_convolve_tests > $R/build_tests.log 2>&1; echo $? > $R/build_tests.rc) &
for k in 15 19; do for v in fixed dyn fixed512 dyn512; do
timeout 60 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu --kernel direct_cand_${v}_stamps > $R/runs/s06_${v}_1024_k$k.txt 2>&1; step stamps_${v}_k$k $?
done; done
grep -h -A20 "stamps (" $R/runs/s06_*.txt >> $R/steps.txt
pack
P="--kernel direct_register_lean --kernel direct_tall --kernel direct_counted_rows --kernel direct_cand_fixed --kernel direct_cand_fixed512 --kernel direct_cand_dyn512"
timeout 100 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_a.json > $R/runs/r06_direct1024_a.txt 2>&1; step r06_direct1024_a $?
pack
for k in 15 19 23 5; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
wait
step "build tests (warnings $(grep -c warning $R/build_tests.log))" $(cat $R/build_tests.rc)
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 --output-on-failure -R "GpuCountedRows|GpuDynamicCandidates|Registry/GpuKernels.*(cand_d|counted)|ConstantMemoryFilters|GpuBlocked\\.|DirectCountedRows" > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_counted_rows --kernel direct_cand_dyn512 > $R/san06_${t}.log 2>&1; step san06_${t} $?
done
pack
for x in b c; do
timeout 100 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt | grep -v "^  SM "
grep -hE "^ +(3|9|15|19|23) +GPU" $R/runs/r06_direct1024_*.txt; grep -h "GPU direct" $R/runs/r06_4096_k*.txt | grep -v "verif\|note\|passed"
