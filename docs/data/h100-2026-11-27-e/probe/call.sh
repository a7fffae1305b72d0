#!/usr/bin/env bash
# Call 4 (session 12): a single lesson's build (05 and its tests only) now builds the GPU probe,
# so its compute-sanitizer tests run (in call 2 they failed to start). Results tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R
{ nvidia-smi -L; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
rm -rf build/release
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 05_mandelbrot 05_mandelbrot_tests > $R/build.log 2>&1
rc=$?; step "build of 05 only (warnings $(grep -c warning $R/build.log))" $rc
ls build/release/bin > $R/bin.txt
COURSE_REQUIRE_GPU=1 timeout 300 ctest --test-dir build/release -j8 -R '^05_mandelbrot\.' -L 'gpu|sanitizer' -E 'docs\.commands' > $R/ctest05.log 2>&1; step ctest05 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest05.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $OUT/c4.tgz c4
