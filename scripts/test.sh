#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test; then the same CPU tests under the
# address and undefined-behaviour sanitizers. GPU tests (label `gpu`) skip without a device.
#   PROTEUS_SKIP_SANITIZE=1   skip the sanitizer pass
#   PROTEUS_CUDA=OFF          build the CPU-only product even where nvcc is installed
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPROTEUS_CUDA="${PROTEUS_CUDA:-ON}"
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

if [ "${PROTEUS_SKIP_SANITIZE:-0}" != 1 ]; then
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROTEUS_CUDA=OFF -DPROTEUS_GUI=OFF \
    -DPROTEUS_SANITIZE=address,undefined
  cmake --build build-sanitize -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
fi
