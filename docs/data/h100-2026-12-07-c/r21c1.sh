#!/usr/bin/env bash
# Call 1: the staged direct candidates (kernels/28_direct_cand_staged.cu) beside steps 23 and 27:
# the 1024^2 Gaussian sweep three times, 4096^2 at K = 7, 15, 19, 23; their tests; sanitizers.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 28_direct_cand_staged.cu"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
P="--kernel direct_register_lean --kernel direct_uniform_rows --kernel direct_cand_tall --kernel direct_cand_eager --kernel direct_cand_staged"
for x in a b c; do
timeout 100 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
pack
done
for k in 7 15 19 23; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
for k in 15 19; do for v in tall staged; do
timeout 60 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu --kernel direct_cand_${v}_stamps > $R/runs/s06_${v}_stamps_1024_k$k.txt 2>&1; step stamps_${v}_k$k $?
done; done
grep -h -A5 "stamps (" $R/runs/s06_*.txt >> $R/steps.txt
pack
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 --output-on-failure -R 'GpuStagedCandidates|Registry/GpuKernels.*direct_cand|ConstantMemoryFilters' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
timeout 90 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_tall --kernel direct_cand_eager --kernel direct_cand_staged > $R/san06_${t}.log 2>&1; step san06_$t $?
pack
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
grep -hE "^ +(15|19) +GPU" $R/runs/r06_direct1024_*.txt
