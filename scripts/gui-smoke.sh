#!/usr/bin/env bash
# The window's scripted run under Xvfb (CI has no display): open the quickstart preset, train the
# baseline and Proteus side by side for a few steps, export the figures, save a screenshot and the
# frame times, quit; then check what it wrote. Then screenshots at UI scale 1 (1600 x 1000) and 2
# (1920 x 1200, a projector) of the tabs and the presentation view, the figure views at 1000 and
# 1600 pixels wide, each frame checked for cut-off text (--check-text) and for a grid, plot or colour
# bar cut by a window's edge or squeezed below a readable size (--check-content); the Teach
# presentation and every tab at 1280x720, 1920x1080 and 3840x2160, UI scales 1 and 2, checked the
# same way; and a restart that must come back at the remembered scale and size (the settings file
# in $XDG_CONFIG_HOME/proteus-lab/, here a temporary folder); then the README's screenshots
# script (scripts/screenshots.sh), quick, into the same temporary folder.
#   scripts/gui-smoke.sh [BUILD_DIR]     (default: build)
#   PROTEUS_SMOKE_OUT=DIR scripts/gui-smoke.sh   keeps everything it writes in DIR (a new folder)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
lab="$build/app/gui/proteus-lab"
[ -x "$lab" ] || { echo "gui-smoke: $lab is not built (needs libimgui-dev, libglfw3-dev)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "gui-smoke: xvfb-run is missing (package xvfb)" >&2; exit 1; }

if [ -n "${PROTEUS_SMOKE_OUT:-}" ]; then  # keep what it writes there, to look at the screenshots
  out=$PROTEUS_SMOKE_OUT
  [ ! -e "$out" ] || { echo "gui-smoke: $out exists; PROTEUS_SMOKE_OUT names a new folder" >&2; exit 1; }
  mkdir -p "$out"
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/proteus-gui-smoke.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi
echo "gui-smoke: writing to $out"
export XDG_CONFIG_HOME="$out/config"  # the window's remembered scale and layout: never the user's
xvfb-run -a -s "-screen 0 1600x1000x24" "$lab" --ui-scale 1 \
  --preset experiments/quickstart-cpu.json \
  --set train.steps=20 --set train.eval_every=10 --set train.warmup=5 \
  --set eval.per_position.sequences=2 --set eval.needle.samples=1 --set eval.needle.depths=2 \
  --runs-dir "$out/runs" --train --export "$out/figures" \
  --screenshot "$out/window.png" --check-text --check-content --frame-stats "$out/frames.json" --quit --timeout 600
# Explore: the Proteus run just trained, its horizon stretched to 4x the training length.
proteus_run=$(ls -d "$out"/runs/*proteus* | head -1)
xvfb-run -a -s "-screen 0 1600x1000x24" "$lab" --runs-dir "$out/runs" \
  --explore "$proteus_run" --explore-set model.mixer.N=x4 --explore-positions 1024 --explore-sequences 2 \
  --export "$out/explore" --screenshot "$out/explore.png" --check-text --check-content --quit --timeout 600

# Each view at scale 1 and 2, checked for cut-off text and content (a failed check exits 1 and
# names what was cut).
sized_shot() {  # sized_shot SCALE WIDTHxHEIGHT FILE ARGS...: one scripted screenshot
  local scale=$1 size=$2 file=$3
  shift 3
  xvfb-run -a -s "-screen 0 ${size}x24" "$lab" --ui-scale "$scale" --width "${size%x*}" --height "${size#*x}" \
    --runs-dir "$out/runs" --screenshot "$file" --check-text --check-content --quit --timeout 120 "$@" >/dev/null
}
shot() {  # shot SCALE NAME ARGS...: at 1600 x 1000 (scale 1) or 1920 x 1200 (scale 2)
  local scale=$1 name=$2 size=1600x1000
  shift 2
  [ "$scale" = 2 ] && size=1920x1200
  sized_shot "$scale" "$size" "$out/scale$scale/$name.png" "$@"
}
# The views that draw figures at 1000 and 1600 pixels wide: every figure fits its panel at both
# (titles, colour bars, legends, notes; issue 22).
for size in 1000x800 1600x1000; do
  sized_shot 1 $size "$out/width${size%x*}/runs.png" --overlay --tab runs
  sized_shot 1 $size "$out/width${size%x*}/explore.png" --explore "$proteus_run" --explore-set model.mixer.N=x4 \
    --explore-positions 1024 --explore-sequences 2
  sized_shot 1 $size "$out/width${size%x*}/present-e-ablation.png" --overlay --tab runs --present e_ablation
done
for scale in 1 2; do
  shot $scale runs --overlay --tab runs
  shot $scale teach --tab teach --teach-step 7
  shot $scale activation --tab activation
  shot $scale present-teach --present teach --teach-step 7
  shot $scale present-per-position --overlay --tab runs --present per_position
  shot $scale help --tab teach --help-overlay
done
# A restart with no --ui-scale and no size comes back at the last run's (scale 2, 1920 x 1200).
xvfb-run -a -s "-screen 0 1920x1200x24" "$lab" --runs-dir "$out/runs" --tab activation \
  --screenshot "$out/restart.png" --frame-stats "$out/restart.json" --quit --timeout 120 >/dev/null

# (After the restart: these runs change the remembered scale and size.)
# The screens a room has, smallest to largest, at scales 1 and 2: the Teach presentation fits
# whole (both memories, their bars and step triangles) and every tab's content is whole and
# readable or scrolls (issue 38), and no text is cut (at 1280x720 and scale 2 the tab bar takes
# its brief labels, and wide fields make room).
for size in 1280x720 1920x1080 3840x2160; do
  for scale in 1 2; do
    dir="$out/fit${size}s$scale"
    sized_shot $scale $size "$dir/present-teach.png" --present teach --teach-step 7
    sized_shot $scale $size "$dir/present-per-position.png" --overlay --tab runs --present per_position
    sized_shot $scale $size "$dir/teach.png" --tab teach --teach-step 7
    sized_shot $scale $size "$dir/activation.png" --tab activation
    sized_shot $scale $size "$dir/training.png" --tab training
    sized_shot $scale $size "$dir/runs.png" --overlay --tab runs
    sized_shot $scale $size "$dir/explore.png" --explore "$proteus_run" --explore-set model.mixer.N=x4 \
      --explore-positions 1024 --explore-sequences 2
  done
done

# The README's screenshots script, quick, into a folder of its own (it must not rot).
PROTEUS_SCREENSHOTS_QUICK=1 PROTEUS_SCREENSHOTS_OUT="$out/readme" scripts/screenshots.sh "$build" >/dev/null

python3 - "$out" <<'PY'
import json, os, struct, sys
out = sys.argv[1]
def fail(msg):
    sys.exit("gui-smoke: FAILED: " + msg)

# The screenshot: a PNG of the whole window with something drawn in it.
shot = os.path.join(out, "window.png")
with open(shot, "rb") as f:
    head = f.read(24)
if head[:8] != b"\x89PNG\r\n\x1a\n": fail("window.png is not a PNG")
w, h = struct.unpack(">II", head[16:24])
if (w, h) != (1600, 1000): fail(f"window.png is {w}x{h}, expected 1600x1000")
if os.path.getsize(shot) < 30_000: fail("window.png is nearly empty")

# The figures, in every format, with their data.
figs = os.path.join(out, "figures")
for name in ["loss", "val_bpb", "per_position", "ppl_ratio"]:
    for ext in ["png", "svg", "pdf", "csv"]:
        p = os.path.join(figs, f"{name}.{ext}")
        if not os.path.isfile(p) or os.path.getsize(p) == 0: fail(f"missing {name}.{ext}")
    with open(os.path.join(figs, f"{name}.csv")) as f:
        rows = f.read().splitlines()
    # Per-position perplexity and its ratio carry their 95% intervals (lo, hi); the curves do not.
    header = "series,x,y,lo,hi" if name in ("per_position", "ppl_ratio") else "series,x,y"
    if rows[0] != header: fail(f"{name}.csv starts {rows[0]!r}, expected {header!r}")
    if len(rows) < 3: fail(f"{name}.csv holds no data")
    series = {r.split(",")[0] for r in rows[1:]}
    if name != "ppl_ratio" and len(series) < 2: fail(f"{name}.csv has {series}, expected both runs")
with open(os.path.join(figs, "loss.svg")) as f:
    if "<svg" not in f.read(2000): fail("loss.svg is not SVG")

# Both runs trained to the end and were evaluated, on disk.
runs = sorted(os.listdir(os.path.join(out, "runs")))
if len(runs) != 2: fail(f"expected 2 runs, found {runs}")
for r in runs:
    st = json.load(open(os.path.join(out, "runs", r, "status.json")))
    if st["state"] != "finished" or st["step"] != 20: fail(f"{r}: {st}")
    if not os.path.isfile(os.path.join(out, "runs", r, "per_position.csv")): fail(f"{r}: no per_position.csv")

# Explore drew the edited curve (N = 1024) beside the trained one, and its screenshot exists.
with open(os.path.join(out, "explore", "explore_per_position.csv")) as f:
    series = {r.split(",")[0] for r in f.read().splitlines()[1:]}
if series != {"trained schedule", "N = 1024"}: fail(f"explore_per_position.csv has {series}")
if os.path.getsize(os.path.join(out, "explore.png")) < 30_000: fail("explore.png is nearly empty")

# Every view at both scales was drawn (the text checks passed, or the run above stopped), and the
# restart came back at the remembered scale and window size.
for scale in (1, 2):
    for name in ["runs", "teach", "activation", "present-teach", "present-per-position", "help"]:
        p = os.path.join(out, f"scale{scale}", f"{name}.png")
        if not os.path.isfile(p) or os.path.getsize(p) < 20_000: fail(f"scale {scale}: {name}.png is missing or nearly empty")
        with open(p, "rb") as f:
            w, h = struct.unpack(">II", f.read(24)[16:24])
        if (w, h) != ((1600, 1000) if scale == 1 else (1920, 1200)): fail(f"scale{scale}/{name}.png is {w}x{h}")
for size in ((1000, 800), (1600, 1000)):
    for name in ["runs", "explore", "present-e-ablation"]:
        p = os.path.join(out, f"width{size[0]}", f"{name}.png")
        if not os.path.isfile(p) or os.path.getsize(p) < 20_000: fail(f"width {size[0]}: {name}.png is missing or nearly empty")
        with open(p, "rb") as f:
            w, h = struct.unpack(">II", f.read(24)[16:24])
        if (w, h) != size: fail(f"width{size[0]}/{name}.png is {w}x{h}")
for size in ((1280, 720), (1920, 1080), (3840, 2160)):
    for scale in (1, 2):
        for name in ["present-teach", "present-per-position", "teach", "activation", "training", "runs", "explore"]:
            p = os.path.join(out, f"fit{size[0]}x{size[1]}s{scale}", f"{name}.png")
            if not os.path.isfile(p): fail(f"{p} is missing")
            with open(p, "rb") as f:
                w, h = struct.unpack(">II", f.read(24)[16:24])
            if (w, h) != size: fail(f"{p} is {w}x{h}")
for name in ["activation", "teach", "training", "runs", "explore", "scale2/teach", "scale2/present-teach",
             "scale2/present-per-position", "scale2/present-needle"]:
    p = os.path.join(out, "readme", f"{name}.png")
    if not os.path.isfile(p) or os.path.getsize(p) < 20_000: fail(f"screenshots.sh: {name}.png is missing or nearly empty")
restart = json.load(open(os.path.join(out, "restart.json")))
if restart.get("ui_scale") != 2: fail(f"the restart came back at UI scale {restart.get('ui_scale')}, not the remembered 2")
with open(os.path.join(out, "restart.png"), "rb") as f:
    w, h = struct.unpack(">II", f.read(24)[16:24])
if (w, h) != (1920, 1200): fail(f"the restart's window is {w}x{h}, not the remembered 1920x1200")
ini = open(os.path.join(out, "config", "proteus-lab", "imgui.ini")).read()
if "[ProteusLab][Window]" not in ini or "UiScale=2" not in ini: fail("imgui.ini holds no UI scale:\n" + ini)

# Frames were drawn while the runs trained.
frames = json.load(open(os.path.join(out, "frames.json")))
if frames["training"]["frames"] < 10: fail(f"only {frames['training']['frames']} frames while training")
print("gui-smoke: ok: runs", ", ".join(runs), "| frames while training: p50 %.1f ms, p99 %.1f ms" %
      (frames["training"]["p50_ms"], frames["training"]["p99_ms"]))
PY
