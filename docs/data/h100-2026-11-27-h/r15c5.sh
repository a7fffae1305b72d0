#!/usr/bin/env bash
# Call 5: a candidate of step 25 with blocks of 128 threads (tiles 256 x 8: twice the blocks, the
# same work per thread) beside steps 23 and 25: 1024^2 sweep twice, 4096^2 once. Under /tmp/c5.
source build/devtools/setup.sh
R=/tmp/c5; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c5.tgz c5); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
D="--kernel direct_register_lean --kernel direct_uniform --kernel direct_uniform_t128"
for x in a b; do
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
timeout 90 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
