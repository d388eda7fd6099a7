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
#
# And what makes it a Debian program (issue 61), on the same unpacked package: lintian finds no
# error and no warning that the package's overrides do not explain (each override has its reason
# on the line above it); the copyright file is DEP-5 with the MIT licence of LICENSE and the Brown
# corpus's terms; changelog.Debian.gz names the package's version; README.md and the docs pages are
# in /usr/share/doc/proteus-lab, and the programs' --help names that folder; the manual pages hold
# every subcommand and option of the help (packaging/check_man_pages.py) and render without a
# warning; --version names the package's version; no help text or manual page names a SPEC; the
# AppStream entry passes `appstreamcli validate`; and the window, asked to save over an installed
# preset it loaded by a relative name, writes the user's experiments folder ($XDG_DATA_HOME) and
# leaves the installed copy alone, where `proteus train` then finds it by the same name.
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
for tool in cpack dpkg-deb dpkg-shlibdeps python3 unshare lintian appstreamcli man; do
  command -v "$tool" >/dev/null || fail "$tool is missing (packages cmake, dpkg-dev, python3, util-linux, lintian, appstream, man-db)"
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
  has /usr/share/man/man1/proteus-lab.1.gz
fi
doc=/usr/share/doc/proteus-lab
metainfo=/usr/share/metainfo/org.proteuslab.ProteusLab.metainfo.xml
for f in "$doc/copyright" "$doc/changelog.Debian.gz" "$doc/README.md" "$doc/docs/cli.md" "$doc/docs/app.md" \
         "$doc/docs/math.md" /usr/share/man/man1/proteus.1.gz "$metainfo" /usr/share/lintian/overrides/proteus-lab; do
  has "$f"
done

# 1b. lintian: no error, and every warning overridden in the package with its reason above it.
lintian --fail-on none --show-overrides --tag-display-limit 0 "$deb" >"$scratch/lintian.log" 2>&1 ||
  { cat "$scratch/lintian.log" >&2; fail "lintian could not check the package"; }
errors=$(grep -c '^E: ' "$scratch/lintian.log" || true)
warnings=$(grep -c '^W: ' "$scratch/lintian.log" || true)
overridden=$(grep -c '^O: ' "$scratch/lintian.log" || true)
if [ "$errors" != 0 ] || [ "$warnings" != 0 ]; then
  grep -E '^(E|W): ' "$scratch/lintian.log" >&2
  fail "lintian: $errors errors, $warnings warnings not overridden (packaging/lintian-overrides, with a reason)"
fi
say "lintian: no errors; no warnings but $overridden overridden in the package, each with its reason"

# 2. Unpacked into a scratch root, run with the checkout hidden (see above).
root="$scratch/root"
dpkg -x "$deb" "$root"
version=$(dpkg-deb -f "$deb" Version)
python3 - "$root" "$version" "$(pwd)/LICENSE" <<'PY'
import gzip, re, sys
root, version, license_path = sys.argv[1:]
doc = root + "/usr/share/doc/proteus-lab"
def fail(msg): sys.exit("package-test: FAILED: " + msg)
# Every override carries its reason on the line above it.
lines = open(root + "/usr/share/lintian/overrides/proteus-lab").read().splitlines()
for n, line in enumerate(lines):
    if line.strip() and not line.startswith("#") and (n == 0 or not lines[n - 1].startswith("#")):
        fail(f"lintian override without a reason above it: {line}")
# copyright: DEP-5, the project's MIT licence word for word as LICENSE, the corpus's own terms.
copyright = open(doc + "/copyright").read()
if not copyright.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"):
    fail("copyright is not DEP-5 (no Format line)")
for needed in ["Files: *\nCopyright: 2026 Proteus Lab contributors\nLicense: MIT", "Files: assets/corpus/brown/*",
               "License: Brown-Corpus", "redistribution permitted"]:
    if needed not in copyright: fail(f"copyright lacks {needed!r}")
stanza = copyright[copyright.index("\nLicense: MIT\n Permission"):]
mit = [l[1:] if l != " ." else "" for l in stanza.splitlines()[2:] if l.startswith(" ")]
words = lambda text: " ".join(text.split())
license = open(license_path).read()
if words("\n".join(mit)) not in words(license) or "Copyright (c) 2026 Proteus Lab contributors" not in license:
    fail("copyright's MIT text is not LICENSE's")
# changelog.Debian.gz: gzipped at level 9, its last entry the package's version.
raw = open(doc + "/changelog.Debian.gz", "rb").read()
if raw[8] != 2: fail("changelog.Debian.gz is not compressed at level 9")
first = gzip.decompress(raw).decode().splitlines()[0]
if not first.startswith(f"proteus-lab ({version}) "): fail(f"changelog.Debian.gz starts {first!r}, not version {version}")
# The AppStream entry names the desktop file installed and the package's upstream version.
meta = open(root + "/usr/share/metainfo/org.proteuslab.ProteusLab.metainfo.xml").read()
if "<launchable type=\"desktop-id\">proteus-lab.desktop</launchable>" not in meta: fail("metainfo names no desktop id")
if f'<release version="{version.rsplit("-", 1)[0]}"' not in meta: fail(f"metainfo has no release {version}")
PY
appstreamcli validate --no-net "$root$metainfo" >"$scratch/appstream.log" 2>&1 ||
  { cat "$scratch/appstream.log" >&2; fail "appstreamcli validate $metainfo"; }
say "copyright (DEP-5, MIT and the Brown corpus), changelog.Debian.gz ($version), docs, AppStream entry: checked"
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

# 3b. --version, the docs folder the help names, the manual pages (every subcommand and option of
# the help, rendered without a warning) and no SPEC in any help or page.
upstream=${version%-*}
for program in proteus proteus-lab; do
  [ "$program" = proteus ] || [ $window = 1 ] || continue
  bin="$root/usr/bin/$program"
  line=$(cd "$work" && without_checkout "$bin" --version)
  re="^$program ${upstream//./[.]}( [(]git [0-9a-f]+(, modified)?[)])?\$"
  [[ $line =~ $re ]] ||
    fail "$program --version says '$line', not '$program $upstream [(git COMMIT)]'"
  page=$([ "$program" = proteus ] && echo cli.md || echo app.md)
  (cd "$work" && without_checkout "$bin" --help) >"$scratch/$program-help.txt"
  grep -qF "$root$doc/docs/$page" "$scratch/$program-help.txt" ||
    fail "$program --help does not name the installed guide $doc/docs/$page"
  man_page="$root/usr/share/man/man1/$program.1.gz"
  warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$man_page" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man $program warns: $warnings"
  ! zcat "$man_page" | grep -n 'SPEC' || fail "the manual page of $program names a SPEC"
done
for sub in $(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from check_help_documented import *; print(" ".join(subcommands_of(open(sys.argv[2]).read())))' \
               "$(pwd)/tests/docs" "$scratch/proteus-help.txt"); do
  "$root/usr/bin/proteus" "$sub" --help >>"$scratch/proteus-help.txt"
done
! grep -n 'SPEC' "$scratch"/*-help.txt || fail "a help text names a SPEC (math.md's sections are the reference)"
man_pages=("$root/usr/bin/proteus" "$root/usr/share/man/man1/proteus.1.gz")
[ $window = 0 ] || man_pages+=("$root/usr/bin/proteus-lab" "$root/usr/share/man/man1/proteus-lab.1.gz")
python3 packaging/check_man_pages.py "${man_pages[@]}" >"$scratch/man.log" 2>&1 ||
  { cat "$scratch/man.log" >&2; fail "the manual pages lack part of the help"; }
say "--version ($upstream), the installed guide in --help, manual pages (every subcommand and option), no SPEC: checked"

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

  # 5. Save never writes the installed presets: a preset loaded by a relative name (found as
  # `proteus train` finds it) and saved over its installed path lands in $XDG_DATA_HOME, which
  # `proteus train` then reads by the same name. Inside the namespace the program runs as root.
  shipped="$data/experiments/rules/delta-cpu.json"
  before=$(sha256sum <"$shipped")
  user_data="$work/data home é"
  (cd "$work" && without_checkout env XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$user_data" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$root/usr/bin/proteus-lab" --width 1600 --height 1000 \
    --runs-dir "$work/lab-runs" --preset rules/delta-cpu.json --set train.steps=7 --save "$shipped" --quit --timeout 120 \
    >"$scratch/save.log" 2>&1) || { tail -20 "$scratch/save.log" >&2; fail "proteus-lab --preset rules/delta-cpu.json --save failed"; }
  saved="$user_data/proteus-lab/experiments/rules/delta-cpu.json"
  [ -f "$saved" ] || { cat "$scratch/save.log" >&2; fail "the window did not save to $saved"; }
  [ "$(sha256sum <"$shipped")" = "$before" ] || fail "the window wrote the installed preset $shipped"
  grep -q '"steps": 7' "$saved" || fail "$saved does not hold the edited experiment"
  (cd "$work" && without_checkout env XDG_DATA_HOME="$user_data" "$root/usr/bin/proteus" train rules/delta-cpu.json --dry-run \
    >"$scratch/dry-run.log" 2>&1) || { cat "$scratch/dry-run.log" >&2; fail "proteus train rules/delta-cpu.json --dry-run"; }
  grep -qF "$saved" "$scratch/dry-run.log" || { cat "$scratch/dry-run.log" >&2; fail "proteus train did not read the saved $saved"; }
  say "proteus-lab: Save wrote the user's folder, not the installed preset; proteus train reads it by name"
else
  say "the package has no proteus-lab (built without the window): its check is skipped"
fi
say "passed in $((SECONDS - start)) s"
