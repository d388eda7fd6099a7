#!/usr/bin/env bash
# Regenerates the README's screenshots (assets/screenshots/*.png) from the current code, the
# quickstart preset and the Teach example, under Xvfb; every frame is checked for cut text and
# for cut or squeezed grids, plots and colour bars (--check-text --check-content). Run it by hand
# after a visual change (training the quickstart takes minutes on a CPU); scripts/gui-smoke.sh
# runs it quick into a temporary folder so that it cannot rot.
#   scripts/screenshots.sh [BUILD_DIR]                 (default: build)
#   PROTEUS_SCREENSHOTS_OUT=DIR    writes there instead of assets/screenshots
#   PROTEUS_SCREENSHOTS_QUICK=1    trains 20 steps with a small evaluation (pictures to check, not to publish)
#   PROTEUS_SCREENSHOTS_UNTRAINED=1  only the pictures that need no training (activation, Teach)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
lab="$build/app/gui/proteus-lab"
[ -x "$lab" ] || { echo "screenshots: $lab is not built (needs libimgui-dev, libglfw3-dev)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "screenshots: xvfb-run is missing (package xvfb)" >&2; exit 1; }
out=${PROTEUS_SCREENSHOTS_OUT:-assets/screenshots}
work=$(mktemp -d "${TMPDIR:-/tmp}/proteus-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"  # never the user's remembered scale and layout
mkdir -p "$out/scale2"

shot() {  # shot SCALE FILE ARGS...: at 1600 x 1000 (scale 1) or 1920 x 1200 (scale 2, a projector)
  local scale=$1 file=$2 size=1600x1000
  shift 2
  [ "$scale" = 2 ] && size=1920x1200
  xvfb-run -a -s "-screen 0 ${size}x24" "$lab" --ui-scale "$scale" --width "${size%x*}" --height "${size#*x}" \
    --runs-dir "$work/runs" --screenshot "$file" --check-text --check-content --quit --timeout 3600 "$@" >/dev/null
  echo "screenshots: $file"
}

shot 1 "$out/activation.png" --preset experiments/quickstart-cpu.json --tab activation
shot 1 "$out/teach.png" --tab teach --teach-step 7
shot 2 "$out/scale2/teach.png" --tab teach --teach-step 7
shot 2 "$out/scale2/present-teach.png" --present teach --teach-step 7
# The README's "Readings of the paper": which elements each block axis opens, at the reference
# regime's shape with 4 heads (so that `layer` has heads to run across), presented whole.
mkdir -p "$out/readings"
for axis in key_rows value_rows layer; do
  xvfb-run -a -s "-screen 0 1000x620x24" "$lab" --ui-scale 1 --width 1000 --height 620 --runs-dir "$work/runs" \
    --preset experiments/paper/regime-comba-cpu.json --set model.mixer.heads=4 --set model.d_model=128 \
    --set model.mixer.block_axis=$axis --tab activation --present state_opening \
    --screenshot "$out/readings/state-opening-$axis.png" --check-text --check-content --quit --timeout 600 >/dev/null
  echo "screenshots: $out/readings/state-opening-$axis.png"
done
[ "${PROTEUS_SCREENSHOTS_UNTRAINED:-}" = 1 ] && exit 0

quick=()
if [ "${PROTEUS_SCREENSHOTS_QUICK:-}" = 1 ]; then
  quick=(--set train.steps=20 --set train.eval_every=10 --set train.warmup=5 --set eval.per_position.sequences=2
         --set eval.needle.samples=1 --set eval.needle.depths=2)
fi
# The quickstart trained side by side (the first screenshot: the training view when it is done).
shot 1 "$out/training.png" --preset experiments/quickstart-cpu.json "${quick[@]}" --train --tab training
proteus_run=$(ls -d "$work"/runs/*proteus* | head -1)
# The runs' figures exported (not pictured: the export folder is a temporary one), to find the
# name of Proteus's needle heatmap.
shot 1 "$work/export.png" --overlay --tab runs --export "$work/figures"
needle=$(basename "$(ls "$work"/figures/needle_*proteus*.png | head -1)" .png)
shot 1 "$out/runs.png" --overlay --tab runs
shot 1 "$out/explore.png" --explore "$proteus_run" --explore-set model.mixer.N=x4
shot 2 "$out/scale2/present-per-position.png" --overlay --tab runs --present per_position
shot 2 "$out/scale2/present-needle.png" --overlay --tab runs --present "$needle"
