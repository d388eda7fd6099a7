#!/usr/bin/env bash
# The tables of experiments/results/diagnosis.md from the run folders of the diagnosis presets
# (experiments/diagnosis/*.json) under RUNS_DIR: each cell's paired effect (E = 16 minus its E = 1
# baseline, with per word), and the cell minus the reference cell, per seed (the decision rule).
# Cells whose runs are not there yet are skipped with a line. Runs evaluated before evaluations
# counted words take BYTES_PER_WORD (default 5.859, the whole corpus's).
#   scripts/diagnosis_tables.sh RUNS_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: scripts/diagnosis_tables.sh RUNS_DIR}
export BYTES_PER_WORD=${BYTES_PER_WORD:-5.859}
py=scripts/paired_seeds.py
cell() {  # cell TITLE GATED BASELINE [REF_GATED REF_BASELINE]
  echo "#### $1"
  echo
  python3 "$py" nll "$runs" "$2" "$3" 2>&1 || return 0
  if [ $# -ge 5 ]; then
    echo
    python3 "$py" diff "$runs" "$2" "$3" "$4" "$5" 2>&1
  fi
  echo
}
ref=(diag-normalize-proteus-e16 diag-normalize-baseline)
cell "Reference cell (normalize_then_mask), rerun beside the normalisation variants" "${ref[@]}"
cell "1a mask_then_normalize" diag-normalize-mask-then-normalize-e16 diag-normalize-baseline "${ref[@]}"
cell "1b capped_renormalize" diag-normalize-capped-renormalize-e16 diag-normalize-baseline "${ref[@]}"
cell "2a 4 heads, d_model 128" diag-heads4-proteus-e16 diag-heads4-baseline "${ref[@]}"
cell "2b 8 heads, d_model 128" diag-heads8-proteus-e16 diag-heads8-baseline "${ref[@]}"
cell "6a 4x the training (CPU)" diag-steps4x-proteus-e16 diag-steps4x-baseline "${ref[@]}"
cell "6a 4x the training (GPU twin)" diag-steps4x-gpu-proteus-e16 diag-steps4x-gpu-baseline "${ref[@]}"
