#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Proteus Lab builds with, only those that are missing: the
# engine's (SentencePiece for data.tokenizer bpe), the window's (Dear ImGui, GLFW, OpenGL, a font),
# Xvfb for the window's test, and clang with its compiler runtime (libFuzzer) for the fuzzers
# (scripts/fuzz.sh).
# CUDA is not installed here: when a toolkit is present (nvcc), the build finds it.
#   scripts/install-deps.sh --tests   also what the checks against Python need (scripts/test.sh):
#                                     PyTorch and numpy, with OpenBLAS so torch's CPU maths is not slow,
#                                     and pmccabe for the function-size check (tests/style)
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libeigen3-dev nlohmann-json3-dev libcli11-dev
  libcairo2-dev libgsl-dev
  libsentencepiece-dev
  libimgui-dev libglfw3-dev libgl-dev libopengl-dev fonts-dejavu-core
  xvfb xauth libgl1-mesa-dri
  clang
)
if [ "${1:-}" = --tests ]; then
  # tests/reference (the PyTorch reference model) and the safetensors interop check run /usr/bin/python3.
  packages+=(python3 python3-torch python3-numpy libopenblas0)
  # tests/style/function_size.sh counts each function's lines with pmccabe.
  packages+=(pmccabe)
  # scripts/package-test.sh: lintian on the .deb, appstreamcli on its metainfo, man on its pages.
  packages+=(lintian appstream man-db)
fi
# libFuzzer is in the compiler-rt package of clang's major version (libclang-rt-14-dev on Debian 12,
# -18- on Ubuntu 24.04); apt only recommends it, and recommendations are not installed below.
clang_major() {
  local v
  v=$({ clang --version 2>/dev/null || true; } | sed -n 's/.*version \([0-9]*\).*/\1/p' | sed -n 1p)
  [ -z "$v" ] && v=$({ apt-cache depends clang 2>/dev/null || true; } | sed -n 's/.*Depends: clang-\([0-9]*\)$/\1/p' | sed -n 1p)
  echo "$v"
}
major=$(clang_major)
[ -n "$major" ] && packages+=("libclang-rt-$major-dev")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
# Without package lists or clang beforehand, the runtime's version is known only now.
if [ -z "$major" ] && major=$(clang_major) && [ -n "$major" ]; then
  $sudo apt-get install -y -q --no-install-recommends "libclang-rt-$major-dev"
fi
