#!/usr/bin/env bash
# Call 1: probes (the fixed part of a one-wave kernel on a cold L2; the 1 : 2 read/write bound),
# separable_lean's column pass with prefetch candidates at K = 31 ... 63 on 4096^2, SASS counts.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/sass
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 28_separable_cand.cu"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
nvcc -O3 -arch=sm_90 -std=c++17 build/devtools/probe.cu -o /tmp/probe && { timeout 60 /tmp/probe > $R/runs/probe_a.txt 2>&1; step probe_a $?; }
sed -i 's/EXPECT_EQ(methods, 8)/EXPECT_EQ(methods, 9)/' 06_fft_convolve/test_sat.cpp
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
S="--kernel separable_lean --kernel separable_cand_l1_4 --kernel separable_cand_l1_8 --kernel separable_cand_l1_16 --kernel separable_cand_l2_16"
for k in 63 55; do for x in a b; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $S --json $R/runs/r06_sep4096_k${k}_$x.json > $R/runs/r06_sep4096_k${k}_$x.txt 2>&1; step r06_sep4096_k${k}_$x $?
done; done
pack
T="--kernel sat_lookback_sentinel --kernel sat_cand_warpflags"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
for n in 2048 1024 8192; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box$n.json > $R/runs/r06_box$n.txt 2>&1; step r06_box$n $?
done
pack
L=$(ls build/release/06_fft_convolve/CMakeFiles/06_fft_convolve_lib.dir/kernels/2[28]_separable_*.o 2>/dev/null)
for o in $L; do cuobjdump -sass $o > $R/sass/$(basename $o).sass 2>&1; done
python3 - $R/sass > $R/sass/counts.txt 2>&1 <<'PY'
import sys, re, glob, collections
for f in sorted(glob.glob(sys.argv[1] + '/*.sass')):
    fn = None; counts = {}
    for line in open(f):
        m = re.search(r'Function : (\S+)', line)
        if m: fn = m.group(1); counts[fn] = collections.Counter(); continue
        m = re.search(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if m and fn: counts[fn][m.group(1).split('.')[0]] += 1
    for fn, c in counts.items():
        if 'ILi63E' in fn or 'ILi55E' in fn:
            print(f.split('/')[-1], fn[-60:], sum(c.values()), dict(c.most_common(12)))
PY
step sass $?
pack
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 --output-on-failure -R 'separable_cand|sat_cand|GpuSummedAreaTable' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/06_fft_convolve --width 601 --height 67 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel separable_cand_l1_8 --kernel separable_cand_l2_16 > $R/san06_memcheck.log 2>&1; step san06_memcheck $?
for t in racecheck memcheck synccheck; do for w in 601; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_cand_warpflags > $R/san06_warpflags_${t}_$w.log 2>&1; step san06_warpflags_${t}_$w $?
done; done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
