#!/usr/bin/env bash
# What a session lent a GPU runs on the device machine (the `device` tool), in one call:
# build the headless targets, the `gpu` tests and the parity table on the device, the end-to-end
# loss check (cuda against the CPU), the training benchmark. Logs go to $OUT (or ./gpu-out).
#   scripts/gpu-check.sh [build|tests|e2e|bench|presets|kbench|kcompare|race|profile|sanitize]...
#   (default: build tests e2e bench)
# The machine has nvcc and CMake but no Debian packages: header-only deps and GoogleTest travel
# in .deps/ (made here by scripts/gpu-deps.sh and named in the device tool's `carry`).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
build=build-gpu
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build tests e2e bench)
jobs=$(nproc)

log() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$out/summary.txt"; }

for step in "${steps[@]}"; do
  case "$step" in
    build)
      log "machine"
      { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1;
        cmake --version | head -1; c++ --version | head -1; } 2>&1 | tee -a "$out/summary.txt"
      log "configure + build"
      export PATH=/usr/local/cuda/bin:$PATH
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPROTEUS_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$PWD/.deps/usr" >"$out/build.log" 2>&1 &&
        cmake --build "$build" -j"$jobs" --target proteus test_backend_parity test_cuda_memory_rule \
          test_row_mask test_cpu_memory_rule test_backend_self_check >>"$out/build.log" 2>&1
      rc=$?
      tail -25 "$out/build.log"
      echo "build rc=$rc" | tee -a "$out/summary.txt"
      [ $rc -eq 0 ] || exit $rc
      ;;
    tests)
      log "gpu tests"
      for t in test_cuda_memory_rule test_row_mask test_backend_parity test_backend_self_check; do
        [ -x "$build/tests/$t" ] || continue
        timeout 240 "$build/tests/$t" --gtest_color=no >"$out/$t.log" 2>&1
        echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)|SKIPPED \]' "$out/$t.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
        grep -E "FAILED|Failure|error" "$out/$t.log" | head -40
      done
      ;;
    e2e)
      # The quickstart, 200 steps, on cuda and on the CPU: losses within 1e-3 relative at every logged step.
      log "end to end"
      rm -rf /tmp/e2e && mkdir -p /tmp/e2e
      for dev in cuda cpu; do
        /usr/bin/time -f "$dev wall %e s" timeout 200 "$build/app/cli/proteus" train experiments/quickstart-cpu.json \
          --device "$dev" --steps 200 --no-eval --runs-dir "/tmp/e2e/$dev" ${E2E_SETS:-} >"$out/e2e-$dev.log" 2>&1
        echo "$dev rc=$? $(tail -1 "$out/e2e-$dev.log")" | tee -a "$out/summary.txt"
        grep -i "device\|fall\|self-check" "$out/e2e-$dev.log" | head -5
      done
      python3 scripts/compare_losses.py /tmp/e2e/cuda /tmp/e2e/cpu 1e-3 2>&1 | tee -a "$out/summary.txt"
      ;;
    bench)
      log "bench"
      for cfg in experiments/quickstart-cpu.json experiments/gpu/quickstart-gpu.json; do
        timeout 240 "$build/app/cli/proteus" bench "$cfg" --device cuda --steps 20 --warmup 3 \
          --out "$out/gpu-training-bench.md" 2>&1 | tee -a "$out/bench.log"
      done
      timeout 120 "$build/app/cli/proteus" bench experiments/quickstart-cpu.json --device cpu --threads "$jobs" \
        --steps 20 --warmup 3 --out "$out/gpu-training-bench.md" 2>&1 | tee -a "$out/bench.log"
      ;;
    presets)
      # Every preset in experiments/gpu/ trains on cuda (a few steps each), then one with its evaluations.
      log "gpu presets"
      for cfg in experiments/gpu/*.json; do
        cmd=train; grep -q '"sweep"' "$cfg" && cmd=sweep
        timeout 120 "$build/app/cli/proteus" "$cmd" "$cfg" --device cuda --steps 3 --no-eval \
          --runs-dir /tmp/presets >"$out/presets.log" 2>&1
        rc=$?
        echo "$cfg rc=$rc $(grep -c finished "$out/presets.log") finished; $(grep -m1 -i 'running on the CPU\|error' "$out/presets.log")" |
          tee -a "$out/summary.txt"
      done
      timeout 240 "$build/app/cli/proteus" train experiments/gpu/quickstart-gpu.json --device cuda --steps 3 \
        --variant proteus-e16 --set eval.per_position.sequences=4 --set eval.niah.samples=1 \
        --runs-dir /tmp/presets-eval >"$out/presets-eval.log" 2>&1
      echo "quickstart-gpu with evaluations rc=$? $(tail -2 "$out/presets-eval.log" | head -1)" | tee -a "$out/summary.txt"
      ;;
    kbench)
      # The memory rule alone, ours against PyTorch (eager, torch.compile) at KERNELS.md's shapes.
      log "kernel bench"
      # Every op alone at one layer's sizes of fla's shape (op, shape, ms, GB/s, GFLOP/s).
      timeout 200 "$build/app/cli/proteus" bench --op kernels --device cuda --shape 8 1024 8 64 --E 1 16 \
        --steps 10 --warmup 3 --out "$out/gpu-kernel-table.md" 2>&1 | tee -a "$out/kbench.log"
      for shape in "8 1024 8 64" "16 2048 4 64"; do
        timeout 200 "$build/app/cli/proteus" bench --op memory-rule --device cuda --shape $shape --E 1 16 \
          --steps 5 --warmup 2 --out "$out/gpu-kernel-bench.md" 2>&1 | tee -a "$out/kbench.log"
        timeout 100 "$build/app/cli/proteus" bench --op memory-rule --device cuda --shape $shape --E 1 --no-decay \
          --steps 5 --warmup 2 --out "$out/gpu-kernel-bench.md" 2>&1 | tail -1 | tee -a "$out/kbench.log"
        PYTHONUNBUFFERED=1 timeout 240 python3 experiments/reference/memory_rule_bench.py --shape $shape 2>&1 |
          tee -a "$out/kbench.log"
      done
      ;;
    kcompare)
      # The chunked kernels against the recurrent ones and compiled chunked PyTorch at fla's shape
      # (B, T, H, D) = (8, 1024, 8, 64), forward and forward + backward (KERNELS.md: what to time).
      # The grep shows whether the self-check sent a rule back to the recurrent kernel.
      log "kernel compare (chunked vs recurrent vs compiled chunked PyTorch, fla's shape)"
      for rule in delta linear comba swla; do
        timeout 240 "$build/app/cli/proteus" bench --op memory-rule --rule "$rule" --device cuda --shape 8 1024 8 64 \
          --E 1 16 --form recurrent chunked --steps 10 --warmup 3 --out "$out/gpu-kernel-compare.md" 2>&1 |
          tee -a "$out/kcompare.log"
      done
      for chunk in 16 32; do
        timeout 120 "$build/app/cli/proteus" bench --op memory-rule --device cuda --shape 8 1024 8 64 --E 1 \
          --form chunked --chunk "$chunk" --steps 10 --warmup 3 --out "$out/gpu-kernel-compare.md" 2>&1 |
          tail -1 | tee -a "$out/kcompare.log"
      done
      PYTHONUNBUFFERED=1 timeout 300 python3 experiments/reference/memory_rule_bench.py --shape 8 1024 8 64 \
        --reps 20 --warmup 3 2>&1 | tee -a "$out/kcompare.log"
      grep -i "self-check\|recurrent kernel\|running on the CPU" "$out/kcompare.log" | head -3 | tee -a "$out/summary.txt"
      ;;
    race)
      # The end-to-end race: ours against the PyTorch reference model, eager and torch.compile, on
      # the GPU presets (RACE_CONFIGS to choose), same shapes and precision; the table goes to
      # experiments/results/gpu-race.md (copy it back from $OUT) with date and device.
      log "end-to-end race"
      PYTHONUNBUFFERED=1 timeout 580 python3 experiments/reference/race.py \
        ${RACE_CONFIGS:-experiments/gpu/quickstart-gpu.json} --proteus "$build/app/cli/proteus" \
        --out experiments/results/gpu-race.md 2>&1 | tee -a "$out/race.log"
      cp experiments/results/gpu-race.md "$out/gpu-race.md" 2>/dev/null
      tail -4 "$out/race.log" >>"$out/summary.txt"
      ;;
    profile)
      # Where a training step's GPU time goes: every kernel of one step, summed by name.
      log "profile"
      timeout 300 ncu --metrics gpu__time_duration.sum --csv --launch-skip 0 --launch-count 20000 \
        "$build/app/cli/proteus" bench "${PROFILE_CONFIG:-experiments/gpu/quickstart-gpu.json}" --device cuda \
        --steps 1 --warmup 0 >"$out/profile.csv" 2>"$out/profile.err"
      echo "ncu rc=$?" | tee -a "$out/summary.txt"
      python3 scripts/kernel_times.py "$out/profile.csv" | tee -a "$out/summary.txt"
      ;;
    sanitize)
      log "compute-sanitizer"
      for tool in memcheck racecheck; do
        timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/test_cuda_memory_rule" \
          --gtest_color=no >"$out/sanitize-$tool.log" 2>&1
        echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool.log" | head -1)" |
          tee -a "$out/summary.txt"
      done
      ;;
    *) echo "gpu-check: unknown step $step" >&2; exit 2 ;;
  esac
done
