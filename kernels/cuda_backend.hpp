// The CUDA backend: every op of core/backend/ops/backend.hpp on one GPU, in float, with the CPU
// backend's semantics (cpu_backend.cpp is the reference for each op: the same accumulate-or-
// overwrite convention, the same saved buffers, the same null-pointer meanings).
//  - Matrix products go to cuBLAS in plain FP32 (no TF32), so parity with the float64 oracle holds.
//  - Reductions run in a fixed tree or a fixed row order (double where the CPU sums in double),
//    never with atomics: the same inputs give the same bits on every run.
//  - The recurrent memory rules run one thread block per (batch, head) over time, iterating only the
//    active prefix [0, end(k(t))) and keeping the CPU's tape (every state S_t, and Z_t with momentum);
//    memory_rule_forward.cu / memory_rule_backward.cu say more.
//  - Everything is queued on the legacy default stream; download() and the reductions to the
//    host wait for the work before them.
//  - Token ids and targets are device int32 buffers (alloc_int32): no op copies ids per call.
//  - supports() states the kernels' real limits (the rule kernels' shared memory, attention's
//    grid); the model asks before it relies on an op.
//  - The chunked form of the rules that have one (memory_rule_chunked.hpp) runs where the form
//    resolves to chunked, guarded per rule by the self-check (run on an H100 on 2026-11-26).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/backend/ops/backend.hpp"

struct cublasContext;  // cuBLAS's handle type, kept out of this header

namespace proteus::cuda {

class CudaBackend final : public backend::Backend<float> {
 public:
  using OpState = backend::OpState;
  using Op = backend::Op;
  template <class F>
  using MemoryRuleArgs = backend::MemoryRuleArgs<F>;
  template <class F>
  using MemoryRuleGrads = backend::MemoryRuleGrads<F>;

  // Throws std::runtime_error (naming the call) when the device or cuBLAS cannot be set up.
  CudaBackend();
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string name() const override { return "cuda"; }
  bool supports(Op op, const backend::OpShape& shape, std::string* why_not = nullptr) const override;

  float* alloc(size_t n) override;
  void free(float* p) override;
  void upload(float* dst, const float* host, size_t n) override;
  void download(float* host, const float* src, size_t n) override;
  void fill(float* dst, float value, size_t n) override;
  void copy(float* dst, const float* src, size_t n) override;
  void synchronize() override;
  bool device_lost() override;

  int32_t* alloc_int32(size_t n) override;
  void free_int32(int32_t* p) override;
  void upload_int32(int32_t* dst, const int32_t* host, size_t n) override;
  void download_int32(int32_t* host, const int32_t* src, size_t n) override;

  void embedding_forward(float* out, const int32_t* tokens, const float* wte, int N, int C) override;
  void embedding_backward(float* dwte, const float* dout, const int32_t* tokens, int N, int C) override;

  void rmsnorm_forward(float* out, float* rstd, const float* in, const float* w, int N, int C, float eps) override;
  void rmsnorm_backward(float* din, float* dw, const float* dout, const float* in, const float* w, const float* rstd,
                        int N, int C) override;

  void matmul_forward(float* out, const float* in, const float* w, int N, int IC, int OC) override;
  void matmul_backward(float* din, float* dw, const float* dout, const float* in, const float* w, int N, int IC,
                       int OC) override;

  void conv_silu_forward(float* out, float* pre, const float* in, const float* w, int B, int Tn, int Ch,
                         int K) override;
  void conv_silu_backward(float* din, float* dw, const float* dout, const float* in, const float* w,
                          const float* pre, int B, int Tn, int Ch, int K) override;

  void l2norm_forward(float* out, float* rnorm, const float* in, int N, int d, float eps) override;
  void l2norm_backward(float* din, const float* dout, const float* out, const float* rnorm, int N, int d) override;
  void prefix_renorm_forward(float* out, float* norm, const float* in, const int32_t* rows, int B, int Tn, int H, int d,
                             bool capped, float eps) override;
  void prefix_renorm_backward(float* din, const float* dout, const float* out, const float* norm, const int32_t* rows,
                              int B, int Tn, int H, int d, bool capped, float eps) override;
  void prefix_mask(float* out, const float* x, const int32_t* rows, int B, int Tn, int H, int d) override;

  void sigmoid_forward(float* out, const float* in, size_t n) override;
  void sigmoid_backward(float* din, const float* dout, const float* out, size_t n) override;
  void decay_forward(float* a, const float* in, const float* A_log, const float* dt_bias, int N, int H) override;
  void decay_backward(float* din, float* dA_log, float* ddt_bias, const float* da, const float* a, const float* in,
                      const float* A_log, const float* dt_bias, int N, int H) override;

  void swiglu_forward(float* out, const float* gate, const float* up, size_t n) override;
  void swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up,
                       size_t n) override;
  void multiply(float* out, const float* x, const float* y, size_t n) override;

  void add(float* out, const float* x, const float* y, size_t n) override;
  void axpy(float* y, float alpha, const float* x, size_t n) override;
  void scale(float* x, float alpha, size_t n) override;

  void comba_query_forward(float* out, const float* q, const float* p, const float* dh, int N, int H,
                           int d) override;
  void comba_query_backward(float* dp, float* ddh, const float* dout, const float* p, const float* dh, int N, int H,
                            int d) override;

  void xent_forward(float* losses, float* probs, const float* logits, const int32_t* targets, const float* weight,
                    int N, int V) override;
  void xent_backward(float* dlogits, const float* probs, const int32_t* targets, const float* weight,
                     float dloss_scale, int N, int V) override;

  void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v, int B, int Tn,
                         int H, int d) override;
  void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* probs, const float* q,
                          const float* k, const float* v, int B, int Tn, int H, int d) override;

  // Chunked where the base says so and memory_rule_chunked.hpp's kernels cover the rule and shape.
  memory::RuleForm form_to_run(const MemoryRuleArgs<float>& args) const override;
  int chunk_to_run(const MemoryRuleArgs<float>& args) const override;
  std::unique_ptr<OpState> memory_rule_forward(float* o, const MemoryRuleArgs<float>& args) override;
  void memory_rule_backward(const MemoryRuleGrads<float>& grads, const float* dO, const MemoryRuleArgs<float>& args,
                            const OpState& state) override;
  void memory_block_norms(float* out, const MemoryRuleArgs<float>& args, const OpState& state,
                          int n_blocks) override;

  double sum(const float* x, size_t n) override;
  double sum_squares(const float* x, size_t n) override;

  void adamw_update(float* params, const float* grads, float* m, float* v, const float* update_mask,
                    const float* decay_mask, size_t n, float lr, float beta1, float beta2, float eps,
                    float weight_decay, int step) override;

 private:
  cublasContext* cublas_ = nullptr;
};

// The factory the registry calls for "cuda": null with the reason when no usable GPU is here.
std::unique_ptr<backend::Backend<float>> make_cuda_backend(std::string* why_not);

}  // namespace proteus::cuda
