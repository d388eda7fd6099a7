#!/usr/bin/env bash
# Gathers what the GPU machine lacks into .deps/ (ignored by git): the header-only libraries
# (Eigen, nlohmann/json, CLI11), GSL, SentencePiece and GoogleTest, with their CMake package files, copied from this
# machine's Debian packages. Name `.deps` in the device tool's `carry`; scripts/gpu-check.sh
# points CMake at it. x86-64 only, like the device machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
lib=/usr/lib/x86_64-linux-gnu
rm -rf .deps
mkdir -p .deps/usr/include .deps/usr/share/cmake .deps/usr/share/eigen3 .deps/usr/lib/x86_64-linux-gnu/cmake
cp -r /usr/include/eigen3 /usr/include/nlohmann /usr/include/CLI /usr/include/gtest /usr/include/gmock .deps/usr/include/
cp -r /usr/share/eigen3/cmake .deps/usr/share/eigen3/
cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json .deps/usr/share/cmake/
cp -r "$lib/cmake/GTest" .deps/usr/lib/x86_64-linux-gnu/cmake/
# GSL (t quantiles in core/eval): headers and shared libraries; the build's rpath finds them.
cp -r /usr/include/gsl .deps/usr/include/
cp -P "$lib"/libgsl.so* "$lib"/libgslcblas.so* .deps/usr/lib/x86_64-linux-gnu/
# SentencePiece (data.tokenizer bpe: the diagnosis BPE cell): headers and shared libraries, found
# by core/CMakeLists.txt without pkg-config.
cp /usr/include/sentencepiece_processor.h /usr/include/sentencepiece_trainer.h .deps/usr/include/
cp -P "$lib"/libsentencepiece.so* "$lib"/libsentencepiece_train.so* .deps/usr/lib/x86_64-linux-gnu/
cp "$lib"/libgtest.a "$lib"/libgtest_main.a "$lib"/libgmock.a "$lib"/libgmock_main.a .deps/usr/lib/x86_64-linux-gnu/
du -sh .deps
