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
# value_rows at E = 16 pairs with the normalisation cell's baseline: at E = 1 every axis is one model.
cell "3a block_axis value_rows" diag-block-axis-value-rows-e16 diag-normalize-baseline "${ref[@]}"
cell "3b block_axis layer, 4 heads" diag-layer-axis-heads4-layer-e16 diag-heads4-baseline diag-heads4-proteus-e16 diag-heads4-baseline
cell "4 output gate swish" diag-output-gate-proteus-e16 diag-output-gate-baseline "${ref[@]}"
cell "5 BPE 4096, 4096 tokens" diag-bpe-proteus-e16 diag-bpe-baseline "${ref[@]}"
cell "6b 16x the training (CPU)" diag-steps16x-proteus-e16 diag-steps16x-baseline "${ref[@]}"
cell "6b 16x the training (GPU twin)" diag-steps16x-gpu-proteus-e16 diag-steps16x-gpu-baseline "${ref[@]}"
cell "8 the factors combined (exploratory)" diag-combined-proteus-e16 diag-combined-baseline "${ref[@]}"
