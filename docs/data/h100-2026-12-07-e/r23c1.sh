#!/usr/bin/env bash
# Call 1: two candidates not yet run, applied as patches to the tree: tall_pairs.diff (step 25's
# two neighbouring output rows per thread on step 28's 128 x 32 tile, issue 34 item 1) and
# strips.diff (step 22 with its scratch image in strips of 128 columns, so the column pass steps
# row to row by a constant; issue 34 item 3). Direct: the 1024^2 sweep twice, 4096^2 at K = 15
# and 19. Separable: the 4096^2 sweep, K = 55 and 63 twice more, SASS opcode counts of the column
# pass at K = 63. Tests, racecheck/memcheck. Most telling first; files packed after every stage.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/sass
D=docs/data/h100-2026-12-07-d
for p in $D/tall_pairs.diff $D/strips.diff; do
  git apply "$p" 2>/dev/null || patch -p1 -s < "$p" || { echo "patch $p failed"; exit 1; }
done
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + tall_pairs.diff + strips.diff"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
(cmake --build build/release -j6 --target 06_fft_convolve_tests > $R/build_tests.log 2>&1; echo $? > $R/build_tests.rc) &
P="--kernel direct_register_lean --kernel direct_uniform --kernel direct_tall --kernel direct_cand_tall_pairs"
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_a.json > $R/runs/r06_direct1024_a.txt 2>&1; step r06_direct1024_a $?
pack
S="--kernel separable_lean --kernel separable_cand_strips --kernel separable_cand_strips_b3 --kernel separable_cand_strips_b4"
timeout 90 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $S --json $R/runs/r06_sep4096_a.json > $R/runs/r06_sep4096_a.txt 2>&1; step r06_sep4096_a $?
pack
for k in 15 19; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
for k in 55 63; do for x in b c; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $S --json $R/runs/r06_sep4096_k${k}_$x.json > $R/runs/r06_sep4096_k${k}_$x.txt 2>&1; step r06_sep4096_k${k}_$x $?
done; done
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_b.json > $R/runs/r06_direct1024_b.txt 2>&1; step r06_direct1024_b $?
pack
# SASS opcode counts of the column and row passes at K = 63: step 22 against the strips
O=build/release/06_fft_convolve/CMakeFiles/06_fft_convolve_lib.dir/kernels
for f in 22_separable_lean 30_separable_cand_strips; do
  cuobjdump -sass $O/$f.cu.o > $R/sass/$f.sass 2>&1
  python3 - "$R/sass/$f.sass" >> $R/sass/counts.txt <<'PY'
import re, sys, collections
name = None; counts = {}
for line in open(sys.argv[1]):
    m = re.search(r'Function : (\S+)', line)
    if m:
        name = m.group(1) if re.search(r'(column|row)_pass\w*Li63ELi8E', m.group(1)) else None
        if name: counts[name] = collections.Counter()
        continue
    m = re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)', line)
    if name and m: counts[name][m.group(2)] += 1
for n, c in counts.items():
    print(f"== {sys.argv[1].rsplit('/',1)[-1]} {n}: {sum(c.values())} instructions; " + ", ".join(f"{k} {v}" for k, v in c.most_common(14)))
PY
done
step sass 0
pack
wait
step "build tests (warnings $(grep -c warning $R/build_tests.log))" $(cat $R/build_tests.rc)
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R "GpuTallPairsCandidate|GpuStripsCandidate|Registry/GpuKernels.*(cand_tall_pairs|cand_strips)" > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_tall_pairs --kernel separable_cand_strips > $R/san06_${t}_k15.log 2>&1; step san06_${t}_k15 $?
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel separable_cand_strips_b4 > $R/san06_${t}_k63.log 2>&1; step san06_${t}_k63 $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt $R/sass/counts.txt
grep -hE "^ +(15|19) +GPU" $R/runs/r06_direct1024_*.txt
grep -hE "^ +(15|31|47|55|63) +GPU" $R/runs/r06_sep4096_a.txt
grep -h "GPU sep" $R/runs/r06_sep4096_k*.txt
