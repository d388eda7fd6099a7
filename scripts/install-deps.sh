#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Proteus Lab builds with, only those that are missing: the
# engine's, the window's (Dear ImGui, GLFW, OpenGL, a font) and Xvfb for the window's test.
# CUDA is not installed here: when a toolkit is present (nvcc), the build finds it.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libeigen3-dev nlohmann-json3-dev libcli11-dev
  libcairo2-dev libgsl-dev
  libimgui-dev libglfw3-dev libgl-dev libopengl-dev fonts-dejavu-core
  xvfb xauth libgl1-mesa-dri
)

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
