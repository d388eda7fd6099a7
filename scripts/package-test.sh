#!/usr/bin/env bash
# The Debian package as a user gets it (issue 48): `cpack -G DEB` in BUILD_DIR, the .deb's contents
# and Depends checked (Debian packages, known to dpkg here), the .deb unpacked with `dpkg -x` into a
# scratch root (nothing is installed: the machine is left as it was), then, from an empty temporary
# folder outside the checkout, the installed `proteus train` on the installed quickstart for 3
# steps (both runs finished, with their config) and the installed `proteus-lab` under Xvfb, opened
# with no preset, trained 3 steps and saved to a screenshot (a PNG of the window, not blank, and run
# folders named after the quickstart: the window found the installed presets itself).
#
# Why a pass means the installed programs find their own data: unpacked with dpkg -x, the binaries
# sit under a scratch prefix, so the presets and the corpus can only come from the lookup beside
# the binary (core/common/data_root: bin/../share/proteus-lab) or from the fallback, the source tree
# whose path is compiled in. The fallback is taken away: the programs run in a mount namespace of
# their own (unshare -m; -r too when not root) where an empty tmpfs covers the checkout, so it is
# unreachable to them (and only to them), from a folder with no experiments/ or assets/. A program
# that relied on the checkout finds no corpus (train fails) and no quickstart (the window would
# start on its built-in defaults, whose runs are not named quickstart-*), and this script fails.
# (Overwriting the compiled-in path in the binaries does not work: the compiler may build a short
# path from immediate values, so the string is not in the file.)
#   scripts/package-test.sh BUILD_DIR    (a built build folder, e.g. build; the window is checked
#                                         when the package has it)
#   PROTEUS_PACKAGE_OUT=DIR              keep the scratch folder (the .deb, the runs, the screenshot) in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: scripts/package-test.sh BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
say() { echo "package-test: $*"; }
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || fail "$build is not a configured build folder"
for tool in cpack dpkg-deb dpkg-shlibdeps python3 unshare; do
  command -v "$tool" >/dev/null || fail "$tool is missing (packages cmake, dpkg-dev, python3, util-linux)"
done
[ -x "$build/app/cli/proteus" ] || fail "$build/app/cli/proteus is not built"
if ldd "$build/app/cli/proteus" | grep libcudart >/dev/null; then
  fail "$build is a CUDA build: its CUDA runtime is no Debian package here; package a CPU-only build (-DPROTEUS_CUDA=OFF)"
fi
start=$SECONDS

if [ -n "${PROTEUS_PACKAGE_OUT:-}" ]; then
  scratch=$PROTEUS_PACKAGE_OUT
  [ ! -e "$scratch" ] || fail "$scratch exists; PROTEUS_PACKAGE_OUT names a new folder"
  mkdir -p "$scratch"
  scratch=$(cd "$scratch" && pwd)
else
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/proteus-package.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
fi
say "writing to $scratch"

# 1. The package, from what the build folder built.
(cd "$build" && cpack -G DEB -B "$scratch/deb" >"$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$scratch"/deb/*.deb)
say "built $(basename "$deb") ($(du -h "$deb" | cut -f1)) in $((SECONDS - start)) s"
depends=$(dpkg-deb -f "$deb" Depends)
say "Depends: $depends"
[ -n "$depends" ] || fail "the package names no dependencies"
# Each dependency is a Debian package (an alternative "a | b" counts when one of them is known).
IFS=',' read -ra deps <<<"$depends"
for dep in "${deps[@]}"; do
  known=0
  IFS='|' read -ra alts <<<"$dep"
  for alt in "${alts[@]}"; do
    name=$(echo "$alt" | sed 's/(.*//; s/[[:space:]]//g')
    dpkg-query -W "$name" >/dev/null 2>&1 && known=1
  done
  [ $known = 1 ] || fail "dependency '$dep' is not a package dpkg knows here"
done
for field in Maintainer Section Description; do
  [ -n "$(dpkg-deb -f "$deb" "$field")" ] || fail "the package has no $field"
done
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$scratch/contents.txt"
has() { grep -qx "$1" "$scratch/contents.txt" || fail "the package lacks $1"; }
has /usr/bin/proteus
has /usr/share/proteus-lab/experiments/quickstart-cpu.json
has /usr/share/proteus-lab/experiments/rules/delta-cpu.json
grep -q '^/usr/share/proteus-lab/assets/corpus/brown/.' "$scratch/contents.txt" || fail "the package lacks the corpus"
! grep -Eq '^/usr/share/proteus-lab/experiments/(results|reference)/' "$scratch/contents.txt" ||
  fail "the package holds experiments/results or experiments/reference"
window=0
if grep -qx /usr/bin/proteus-lab "$scratch/contents.txt"; then
  window=1
  has /usr/share/applications/proteus-lab.desktop
  has /usr/share/icons/hicolor/scalable/apps/proteus-lab.svg
fi

# 2. Unpacked into a scratch root, run with the checkout hidden (see above).
root="$scratch/root"
dpkg -x "$deb" "$root"
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
[ -d "$source_dir" ] || fail "no source folder (CMAKE_HOME_DIRECTORY) in $build/CMakeCache.txt"
case "$scratch/" in "$source_dir"/*) fail "the scratch folder $scratch is inside the checkout: it would be hidden too" ;; esac
without_checkout() {  # COMMAND...: run with an empty tmpfs over the checkout, in a mount namespace of its own
  local user=()
  [ "$(id -u)" = 0 ] || user=(-r)
  unshare "${user[@]}" -m sh -c 'mount -t tmpfs tmpfs "$1" && [ ! -e "$1/CMakeLists.txt" ] && shift && exec "$@"' \
    sh "$source_dir" "$@"
}
without_checkout true || fail "cannot hide the checkout from the programs (unshare -m and a tmpfs over $source_dir)"
if [ $window = 1 ] && command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$root/usr/share/applications/proteus-lab.desktop" || fail "desktop-file-validate"
fi

# 3. The installed `proteus train` on the installed quickstart, from a folder outside the checkout.
work="$scratch/work"  # no experiments/, no assets/: nothing but what the package brings
mkdir -p "$work"
data="$root/usr/share/proteus-lab"
t0=$SECONDS
(cd "$work" && without_checkout "$root/usr/bin/proteus" train "$data/experiments/quickstart-cpu.json" --steps 3 \
  --set eval.per_position.sequences=2 --set eval.needle.samples=1 --set eval.needle.depths=2 \
  --runs-dir "$work/runs" >"$scratch/train.log" 2>&1) || { tail -20 "$scratch/train.log" >&2; fail "proteus train failed"; }
python3 - "$work/runs" <<'PY'
import json, os, sys
runs = sys.argv[1]
def fail(msg): sys.exit("package-test: FAILED: " + msg)
for name in ["quickstart-baseline", "quickstart-proteus-e16"]:
    d = os.path.join(runs, name)
    if not os.path.isdir(d): fail(f"proteus train wrote no run folder {name} (in {os.listdir(runs) if os.path.isdir(runs) else 'nothing'})")
    status = json.load(open(os.path.join(d, "status.json")))
    if status.get("state") != "finished": fail(f"{name}: status {status}")
    cfg = json.load(open(os.path.join(d, "config.json")))
    if cfg["train"]["steps"] != 3: fail(f"{name}: trained {cfg['train']['steps']} steps, not 3")
    if not os.path.isfile(os.path.join(d, "per_position.json")): fail(f"{name}: no evaluation")
PY
say "proteus train: 2 runs finished (3 steps, evaluated) in $((SECONDS - t0)) s"

# 4. The installed window, opened with no preset, under Xvfb: it trains what it opened on and saves
# a screenshot. Run folders named quickstart-* mean it found the installed presets by itself.
if [ $window = 1 ]; then
  command -v xvfb-run >/dev/null || fail "xvfb-run is missing (package xvfb)"
  t0=$SECONDS
  (cd "$work" && without_checkout env XDG_CONFIG_HOME="$work/config" xvfb-run -a -s "-screen 0 1600x1000x24" "$root/usr/bin/proteus-lab" \
    --ui-scale 1 --width 1600 --height 1000 --runs-dir "$work/lab-runs" \
    --set train.steps=3 --set train.warmup=1 --set train.eval_every=3 \
    --set eval.per_position.sequences=2 --set eval.needle.samples=1 --set eval.needle.depths=2 \
    --train --screenshot "$work/window.png" --quit --timeout 300 >"$scratch/window.log" 2>&1) ||
    { tail -20 "$scratch/window.log" >&2; fail "the installed proteus-lab failed"; }
  python3 - "$work" <<'PY'
import os, struct, sys
work = sys.argv[1]
def fail(msg): sys.exit("package-test: FAILED: " + msg)
shot = os.path.join(work, "window.png")
if not os.path.isfile(shot): fail("the window saved no screenshot")
head = open(shot, "rb").read(24)
if head[:8] != b"\x89PNG\r\n\x1a\n": fail("window.png is not a PNG")
w, h = struct.unpack(">II", head[16:24])
if (w, h) != (1600, 1000): fail(f"window.png is {w}x{h}, expected 1600x1000")
if os.path.getsize(shot) < 30_000: fail(f"window.png is nearly empty ({os.path.getsize(shot)} bytes)")
runs = sorted(os.listdir(os.path.join(work, "lab-runs")))
if runs != ["quickstart-baseline", "quickstart-proteus-e16"]:
    fail(f"the window trained {runs}, not the installed quickstart: it did not find its presets")
PY
  say "proteus-lab: opened on the installed quickstart, trained it, screenshot $(du -h "$work/window.png" | cut -f1) in $((SECONDS - t0)) s"
else
  say "the package has no proteus-lab (built without the window): its check is skipped"
fi
say "passed in $((SECONDS - start)) s"
