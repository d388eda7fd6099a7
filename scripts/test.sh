#!/usr/bin/env bash
# Installs what is missing (with PyTorch for the reference checks), builds, and runs every test in
# parallel; then builds and runs the fast CPU tests (label `fast`: those that train no model) under
# the address and undefined-behaviour sanitizers. GPU tests (label `gpu`) skip without a device.
# The checks against Python (tests/reference, the safetensors interop) and the function-size check
# must run here: a missing python3-torch or pmccabe fails them instead of skipping
# (PROTEUS_REQUIRE_REFERENCE=1).
#   PROTEUS_SKIP_SANITIZE=1   skip the sanitizer pass
#   PROTEUS_CUDA=OFF          build the CPU-only product even where nvcc is installed
#   PROTEUS_GUI=OFF           leave out the window (proteus-lab) and its Xvfb run
#   PROTEUS_SKIP_PACKAGE=1    skip the Debian package's test (scripts/package-test.sh)
#   PROTEUS_FUZZ_SECONDS=N    how long each fuzzer runs (default 60; scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's end, in seconds from the start: where CI's time limit goes.
phase() { echo "test.sh: $1 done at ${SECONDS} s" >&2; }

scripts/install-deps.sh --tests
phase "install-deps"
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

# The Debian package (cpack), unpacked into a scratch root: the installed `proteus train` on the
# installed quickstart and the installed window under Xvfb, from outside the checkout. It is the
# CPU product: a CUDA build links a CUDA runtime no Debian package provides here, so then the
# package comes from a CPU-only build of its own (build-package, the two programs only).
if [ "${PROTEUS_SKIP_PACKAGE:-0}" != 1 ]; then
  package_build=build
  if ldd build/app/cli/proteus | grep libcudart >/dev/null; then
    package_build=build-package
    cmake -S . -B build-package -DCMAKE_BUILD_TYPE=Release -DPROTEUS_CUDA=OFF -DPROTEUS_GUI="${PROTEUS_GUI:-ON}" \
      -DBUILD_TESTING=OFF
    targets=(proteus)
    [ "${PROTEUS_GUI:-ON}" != OFF ] && targets+=(proteus-lab)
    cmake --build build-package -j"$jobs" --target "${targets[@]}"
    phase "package build"
  fi
  scripts/package-test.sh "$package_build"
  phase "package"
fi

if [ "${PROTEUS_SKIP_SANITIZE:-0}" != 1 ]; then
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROTEUS_CUDA=OFF -DPROTEUS_GUI=OFF \
    -DPROTEUS_SANITIZE=address,undefined
  cmake --build build-sanitize -j"$jobs" --target fast_tests  # only what the pass runs
  phase "sanitizer build"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -L fast
  phase "sanitizer ctest"
fi

# The fuzzers (libFuzzer, clang): the config reader and memory-op's reader, about a minute each.
scripts/fuzz.sh "${PROTEUS_FUZZ_SECONDS:-60}"
phase "fuzz"
