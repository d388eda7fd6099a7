#!/usr/bin/env bash
# Installs what is missing (with PyTorch for the reference checks), builds, and runs every test in
# parallel; then builds for AVX2 (x86-64-v3) and runs the tests that train there too; then builds
# and runs the fast CPU tests (label `fast`: those that train no model) under the address and
# undefined-behaviour sanitizers. GPU tests (label `gpu`) skip without a device.
# The checks against Python (tests/reference, the safetensors interop) and the function-size check
# must run here: a missing python3-torch or pmccabe fails them instead of skipping
# (PROTEUS_REQUIRE_REFERENCE=1).
#   PROTEUS_SKIP_SANITIZE=1   skip the sanitizer pass
#   PROTEUS_SKIP_GENERIC=1    skip the second build for another instruction set (PROTEUS_GENERIC_MARCH,
#                             default x86-64-v3) and its run of the trains, slow and reference tests
#   PROTEUS_CUDA=OFF          build the CPU-only product even where nvcc is installed
#   PROTEUS_GUI=OFF           leave out the window (proteus-lab) and its Xvfb run
#   PROTEUS_SKIP_PACKAGE=1    skip the Debian package's test (scripts/package-test.sh)
#   PROTEUS_FUZZ_SECONDS=N    how long each fuzzer runs (default 60; scripts/fuzz.sh)
#   PROTEUS_DISK_GB=N         free space asked for before starting (default: what a full run takes)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's end, in seconds from the start: where CI's time limit goes.
phase() { echo "test.sh: $1 done at ${SECONDS} s" >&2; }

scripts/install-deps.sh --tests
phase "install-deps"
# The build folders reach about 7.5 GB (measured; the sanitizer build most of it), so ask for 10: say so now,
# not half an hour in, where a full disk would stop a compiler mid-file (a CI run died so).
need_gb="${PROTEUS_DISK_GB:-10}"
free_gb=$(df -Pk . | awk 'NR == 2 { print int($4 / 1048576) }')
if [ "$free_gb" -lt "$need_gb" ]; then
  echo "test.sh: ${free_gb} GB free where the checkout is ($(pwd)); a full run needs about ${need_gb} GB." >&2
  echo "test.sh: free some space, or skip the sanitizer pass (PROTEUS_SKIP_SANITIZE=1) and set PROTEUS_DISK_GB to what is left to need." >&2
  exit 1
fi
jobs=$(nproc)
export PROTEUS_REQUIRE_REFERENCE=1
# torch's OpenMP workers spin while waiting: on cores shared with parallel tests that is 4-13x slower
# (experiments/results/reference-cpu.md).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPROTEUS_CUDA="${PROTEUS_CUDA:-ON}" -DPROTEUS_GUI="${PROTEUS_GUI:-ON}"
cmake --build build -j"$jobs"
phase "build"
ctest --test-dir build --output-on-failure -j"$jobs"
phase "ctest"

# The window, driven by a script under Xvfb: preset, training, export, screenshot.
if [ "${PROTEUS_GUI:-ON}" != OFF ]; then
  [ -x build/app/gui/proteus-lab ] || { echo "test.sh: proteus-lab was not built (see the cmake warning above)" >&2; exit 1; }
  scripts/gui-smoke.sh build
  phase "gui-smoke"
fi

# The product once more, CPU-only and for another instruction set (AVX2, x86-64-v3, which also runs
# on an AVX-512 machine): the tests that train and compare numbers run there too, so a test that
# holds a value only one instruction set gives fails here, not on a user's machine. The same build
# makes the Debian package: portable (not -march=native) and without a CUDA runtime Debian lacks.
generic_march="${PROTEUS_GENERIC_MARCH:-x86-64-v3}"
if [ "${PROTEUS_SKIP_GENERIC:-0}" != 1 ]; then
  cmake -S . -B build-generic -DCMAKE_BUILD_TYPE=Release -DPROTEUS_CUDA=OFF -DPROTEUS_GUI="${PROTEUS_GUI:-ON}" \
    -DPROTEUS_NATIVE=OFF -DPROTEUS_MARCH="$generic_march"
  # Only what this phase runs and packages: the programs and the tests it selects (target
  # training_tests), not the fast tests the first build ran (CI's time goes to compiling).
  generic_targets=(proteus training_tests)
  [ "${PROTEUS_GUI:-ON}" != OFF ] && generic_targets+=(proteus-lab)
  cmake --build build-generic -j"$jobs" --target "${generic_targets[@]}"
  phase "generic build ($generic_march)"
  ctest --test-dir build-generic --output-on-failure -j"$jobs" -L 'trains|slow|reference'
  phase "generic ctest"
fi

# The Debian package (cpack), unpacked into a scratch root: the installed `proteus train` on the
# installed quickstart and the installed window under Xvfb, from outside the checkout.
if [ "${PROTEUS_SKIP_PACKAGE:-0}" != 1 ]; then
  if [ ! -x build-generic/app/cli/proteus ]; then
    cmake -S . -B build-generic -DCMAKE_BUILD_TYPE=Release -DPROTEUS_CUDA=OFF -DPROTEUS_GUI="${PROTEUS_GUI:-ON}" \
      -DPROTEUS_NATIVE=OFF -DPROTEUS_MARCH="$generic_march"
    targets=(proteus)
    [ "${PROTEUS_GUI:-ON}" != OFF ] && targets+=(proteus-lab)
    cmake --build build-generic -j"$jobs" --target "${targets[@]}"
    phase "package build"
  fi
  scripts/package-test.sh build-generic
  phase "package"
fi

if [ "${PROTEUS_SKIP_SANITIZE:-0}" != 1 ]; then
  # -O1 and line tables only (-g1), as the sanitizers' own guides advise: reports keep their file and
  # line, and the build takes 2.3-2.8x less than RelWithDebInfo's -O2 -g (the largest part of CI).
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DPROTEUS_CUDA=OFF -DPROTEUS_GUI=OFF -DPROTEUS_SANITIZE=address,undefined
  cmake --build build-sanitize -j"$jobs" --target fast_tests  # only what the pass runs
  phase "sanitizer build"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -L fast
  phase "sanitizer ctest"
fi

# The fuzzers (libFuzzer, clang): the config reader and memory-op's reader, about a minute each.
scripts/fuzz.sh "${PROTEUS_FUZZ_SECONDS:-60}"
phase "fuzz"
