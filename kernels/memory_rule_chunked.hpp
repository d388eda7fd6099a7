// The chunked (WY / UT) form of the hebbian and erasing rules on the GPU: the algorithm of
// core/memory/chunked_rule.cpp (its oracle), with cuBLAS strided-batched FP32 GEMMs for the chunk
// products and small kernels for the decay masks, the unit-lower solve and the state passes.
// It rests on math.md section 3's zero-state lemma (S_0 = 0, row-aligned blocks): inputs are masked
// by selection per step and every chunk then runs the ungated rule over all d_k rows (rows that
// are still locked hold zeros and stay zero). The forward keeps only the chunk-start states; the
// backward recomputes everything inside a chunk from them (no per-token tape).
// Run on an H100 on 2026-11-26 (experiments/results/gpu-chunked-kernels.md); the self-check
// (core/backend/check/self_check.cpp) still runs them through the parity table in every process and,
// when one disagrees with the CPU or faults the device, sends that rule to the recurrent kernels.
#pragma once
#include <memory>
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/memory/chunk_size.hpp"

struct cublasContext;

namespace proteus::cuda {

constexpr int kChunkedMaxChunk = 64;   // the solve keeps a (C, C) block in shared memory, a thread per column
constexpr int kChunkedMaxKeyWidth = 256;  // the state passes keep a (d_k, 32) state tile in shared memory
// The chunk size when a config leaves it at 0 (core/memory/chunk_size.hpp: why it differs from the CPU's).
constexpr int kChunkedDefaultChunk = static_cast<int>(memory::default_chunk_size(memory::ChunkBackend::cuda, 0));

// What the chunked forward leaves for its backward: the chunk-start states only.
struct CudaChunkedState final : backend::OpState {
  memory::Rule rule = memory::kDefaultRule;
  int B = 0, T = 0, H = 0, d_k = 0, d_v = 0, chunk = 0, chunks = 0;
  float* checkpoints = nullptr;  // (B, H, chunks, d_k, d_v) on the device: the state before each chunk

  CudaChunkedState() = default;
  CudaChunkedState(const CudaChunkedState&) = delete;
  CudaChunkedState& operator=(const CudaChunkedState&) = delete;
  ~CudaChunkedState() override;
};

// Whether these kernels run `rule` at these widths and chunk size (every rule with a chunked form,
// memory::rule_has_chunked_form, and one retention a step: a row of them runs the recurrent
// kernel). why_not (if given) says why not, in a phrase.
bool chunked_kernels_cover(memory::Rule rule, int d_k, int chunk, std::string* why_not = nullptr);

// The chunk size a call uses: args.chunk when set, else kChunkedDefaultChunk.
int chunked_chunk_size(const backend::MemoryRuleArgs<float>& args);

// o (B, T, H, d_v). The caller has checked the arguments and that the chunked form applies.
std::unique_ptr<backend::OpState> chunked_memory_rule_forward(cublasContext* cublas, float* o,
                                                              const backend::MemoryRuleArgs<float>& args);
void chunked_memory_rule_backward(cublasContext* cublas, const backend::MemoryRuleGrads<float>& grads,
                                  const float* dO, const backend::MemoryRuleArgs<float>& args,
                                  const CudaChunkedState& state);

}  // namespace proteus::cuda
