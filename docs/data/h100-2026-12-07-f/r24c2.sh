#!/usr/bin/env bash
# Call 2, three candidates on one build.
# (a) separable_cand_even (step 22's 64-row blocks in rounds in a grid the GPU holds at once, the
# rest spread over every warp) and separable_cand_even_runs (call 1's candidate: one run of rows a
# warp) against step 22: the 4096^2 sweep, K = 55 and 63 twice more; Nsight Compute of both passes
# at 4096^2 K = 63 with DRAM bytes, L2 hit rate and stalls; the SASS of step 22's K = 63 row pass;
# memcheck (the column pass uses no shared memory).
# (b) sat_cand_cluster (sat_cluster.diff): step 26 with the row carries passed through a thread
# block cluster's shared memory: the box filter at 4096^2 three times, 2048^2 and 8192^2 (the table
# alone timed in each); Nsight Compute of both builds at 4096^2; racecheck, memcheck, synccheck.
# (c) direct_cand_wave (wave.diff): step 28 on a 128 x 16 tile, four blocks an SM: the 1024^2
# sweep three times and 4096^2 at K = 15, 19 and 23 beside step 28; Nsight Compute of both at
# 1024^2 K = 15; racecheck and memcheck.
# Then the candidates' tests (the table tests take every sat_ row).
# It applies even.diff, sat_cluster.diff and wave.diff to the tree it is sent.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs $R/ncu
for p in docs/data/h100-2026-12-07-f/even.diff docs/data/h100-2026-12-07-f/sat_cluster.diff docs/data/h100-2026-12-07-f/wave.diff; do
  git apply "$p" 2>/dev/null || patch -p1 -s < "$p" || { echo "patch $p failed"; exit 1; }
done
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + even.diff + sat_cluster.diff + wave.diff"; git status --short; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
(cmake --build build/release -j6 --target 06_fft_convolve_tests > $R/build_tests.log 2>&1; echo $? > $R/build_tests.rc) &
W="--kernel direct_tall --kernel direct_cand_wave"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $W --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
for k in 15 19 23; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $W --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
S="--kernel separable_lean --kernel separable_cand_even --kernel separable_cand_even_runs"
S2="--kernel separable_lean --kernel separable_cand_even"
timeout 120 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $S --json $R/runs/r06_sep4096_a.json > $R/runs/r06_sep4096_a.txt 2>&1; step r06_sep4096_a $?
pack
# The SM clock and power while the K = 55 and 63 runs go (every 50 ms): the FMA ceiling's clock
# against the separable passes' own.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 50 > $R/runs/clocks_sep4096.csv 2>&1 &
SMI=$!
for k in 55 63; do for x in b c; do
timeout 40 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $S2 --json $R/runs/r06_sep4096_k${k}_$x.json > $R/runs/r06_sep4096_k${k}_$x.txt 2>&1; step r06_sep4096_k${k}_$x $?
done; done
kill $SMI 2>/dev/null
T="--kernel sat_lookback_sentinel --kernel sat_cand_cluster"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
for n in 2048 8192; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box$n.json > $R/runs/r06_box$n.txt 2>&1; step r06_box$n $?
done
pack
mkdir -p $R/sass
O=build/release/06_fft_convolve/CMakeFiles/06_fft_convolve_lib.dir/kernels
cuobjdump -sass $O/22_separable_lean.cu.o > /tmp/s22.sass 2>&1
cuobjdump -sass $O/31_separable_cand_even.cu.o > /tmp/s31.sass 2>&1
# The K = 63 row pass of step 22 and the K = 63 column pass of the candidate, whole.
awk '/Function : .*row_pass_lean_kernelILi63ELi8E/{p=1} p&&/Function : /&&!/row_pass_lean_kernelILi63ELi8E/{p=0} p' /tmp/s22.sass > $R/sass/row_pass_lean_k63.sass
awk '/Function : .*column_pass_even_kernelILi63ELb1E/{p=1} p&&/Function : /&&!/column_pass_even_kernelILi63ELb1E/{p=0} p' /tmp/s31.sass > $R/sass/column_pass_even_k63.sass
wc -l $R/sass/*.sass > $R/sass/lines.txt; step sass $?
M="--metrics sm__ctas_launched.min,sm__ctas_launched.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
for v in separable_lean separable_cand_even separable_cand_even_runs; do
  timeout 60 ncu $M -k regex:"pass" -c 2 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_4096_k63.txt 2>&1; step ncu_$v $?
done
for v in direct_tall direct_cand_wave; do
  timeout 60 ncu $M -k regex:"direct_" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_1024_k15.txt 2>&1; step ncu_$v $?
done
for v in sat_lookback_sentinel sat_cand_cluster; do
  timeout 60 ncu $M -k regex:"sat_" -c 1 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_4096.txt 2>&1; step ncu_$v $?
done
pack
wait
step "build tests (warnings $(grep -c warning $R/build_tests.log))" $(cat $R/build_tests.rc)
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R "GpuEvenCandidate|GpuWaveCandidate|DirectWaveCandidate|GpuSummedAreaTable|Registry/GpuKernels.*(cand_even|cand_cluster|cand_wave)" > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel separable_cand_even --kernel separable_cand_even_runs > $R/san06_memcheck_k15.log 2>&1; step san06_memcheck_k15 $?
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/06_fft_convolve --width 1000 --height 3003 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel separable_cand_even > $R/san06_memcheck_k63.log 2>&1; step san06_memcheck_k63 $?
pack
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_cand_wave > $R/san06_${t}_wave.log 2>&1; step san06_${t}_wave $?
done
pack
for t in racecheck memcheck synccheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 4100 --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel sat_cand_cluster > $R/san06_${t}_cluster.log 2>&1; step san06_${t}_cluster $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
for f in $R/ncu/*.txt; do echo "== $f"; grep -E "^  void|sm__|gpc__|smsp__|gpu__|launch__|dram__|lts__|l1tex__" $f | awk '{print $1, $NF}'; done
grep -hE "^ +(3|9|15|19|23) +GPU" $R/runs/r06_direct1024_*.txt
grep -h "GPU direct" $R/runs/r06_4096_k*.txt | grep -v "\[\|note\|skipped"
grep -hE "^ +[0-9]+ +GPU" $R/runs/r06_sep4096_a.txt
grep -h "GPU separable" $R/runs/r06_sep*_k*.txt | grep -v "\[\|note\|skipped"
grep -h "GPU sat" $R/runs/r06_box*.txt | grep -v "\[\|note\|skipped"
