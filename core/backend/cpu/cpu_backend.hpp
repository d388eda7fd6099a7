// The CPU backend: every op of backend.hpp on host memory, Eigen GEMM for the matrix products
// and OpenMP over rows elsewhere. Instantiated for float (work) and double (gradient checks).
// Results do not depend on the thread count: work is split into pieces whose shapes depend only
// on the problem, and no reduction is ever ordered by thread. It runs every op at every shape.
// Not final: tests derive fakes from it (a deliberately wrong op for the self-check, a counter
// of what is read back).
#pragma once
#include <memory>
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/backend/cpu/huge_page_blocks.hpp"
#include "core/backend/cpu/thread_pool.hpp"

namespace proteus::backend {

template <class T>
class CpuBackend : public Backend<T> {
 public:
  // threads: threads for every op (a pool, the calling thread included), 0 = all cores.
  explicit CpuBackend(int threads);

  std::string name() const override { return "cpu"; }
  int threads() const { return threads_; }
  // Blocks the memory rule's calls gave back, kept for the next (core/backend/cpu/huge_page_blocks.hpp).
  size_t memory_blocks_kept() const { return blocks_->kept(); }
  bool supports(Op op, const OpShape& shape, std::string* why_not = nullptr) const override;

  T* alloc(size_t n) override;
  void free(T* p) override;
  void upload(T* dst, const T* host, size_t n) override;
  void download(T* host, const T* src, size_t n) override;
  void fill(T* dst, T value, size_t n) override;
  void copy(T* dst, const T* src, size_t n) override;

  int32_t* alloc_int32(size_t n) override;
  void free_int32(int32_t* p) override;
  void upload_int32(int32_t* dst, const int32_t* host, size_t n) override;
  void download_int32(int32_t* host, const int32_t* src, size_t n) override;

  void embedding_forward(T* out, const int32_t* tokens, const T* wte, int N, int C) override;
  void embedding_backward(T* dwte, const T* dout, const int32_t* tokens, int N, int C) override;

  void rmsnorm_forward(T* out, T* rstd, const T* in, const T* w, int N, int C, T eps) override;
  void rmsnorm_backward(T* din, T* dw, const T* dout, const T* in, const T* w, const T* rstd, int N,
                        int C) override;

  void matmul_forward(T* out, const T* in, const T* w, int N, int IC, int OC) override;
  void matmul_backward(T* din, T* dw, const T* dout, const T* in, const T* w, int N, int IC, int OC) override;

  void conv_silu_forward(T* out, T* pre, const T* in, const T* w, int B, int Tn, int Ch, int K) override;
  void conv_silu_backward(T* din, T* dw, const T* dout, const T* in, const T* w, const T* pre, int B, int Tn,
                          int Ch, int K) override;

  void l2norm_forward(T* out, T* rnorm, const T* in, int N, int d, T eps) override;
  void l2norm_backward(T* din, const T* dout, const T* out, const T* rnorm, int N, int d) override;
  void prefix_renorm_forward(T* out, T* norm, const T* in, const int32_t* rows, int B, int Tn, int H, int d,
                             bool capped, T eps) override;
  void prefix_renorm_backward(T* din, const T* dout, const T* out, const T* norm, const int32_t* rows, int B, int Tn,
                              int H, int d, bool capped, T eps) override;
  void prefix_mask(T* out, const T* x, const int32_t* rows, int B, int Tn, int H, int d) override;

  void sigmoid_forward(T* out, const T* in, size_t n) override;
  void sigmoid_backward(T* din, const T* dout, const T* out, size_t n) override;
  void decay_forward(T* a, const T* in, const T* A_log, const T* dt_bias, int N, int H) override;
  void decay_backward(T* din, T* dA_log, T* ddt_bias, const T* da, const T* a, const T* in, const T* A_log,
                      const T* dt_bias, int N, int H) override;

  void swiglu_forward(T* out, const T* gate, const T* up, size_t n) override;
  void swiglu_backward(T* dgate, T* dup, const T* dout, const T* gate, const T* up, size_t n) override;
  void multiply(T* out, const T* x, const T* y, size_t n) override;

  void add(T* out, const T* x, const T* y, size_t n) override;
  void axpy(T* y, T alpha, const T* x, size_t n) override;
  void scale(T* x, T alpha, size_t n) override;

  void comba_query_forward(T* out, const T* q, const T* p, const T* dh, int N, int H, int d) override;
  void comba_query_backward(T* dp, T* ddh, const T* dout, const T* p, const T* dh, int N, int H, int d) override;

  void xent_forward(T* losses, T* probs, const T* logits, const int32_t* targets, const T* weight, int N,
                    int V) override;
  void xent_backward(T* dlogits, const T* probs, const int32_t* targets, const T* weight, T dloss_scale, int N,
                     int V) override;

  void attention_forward(T* out, T* probs, const T* q, const T* k, const T* v, int B, int Tn, int H,
                         int d) override;
  void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* probs, const T* q, const T* k, const T* v,
                          int B, int Tn, int H, int d) override;

  std::unique_ptr<OpState> memory_rule_forward(T* o, const MemoryRuleArgs<T>& args) override;
  void memory_rule_backward(const MemoryRuleGrads<T>& grads, const T* dO, const MemoryRuleArgs<T>& args,
                            const OpState& state) override;
  void memory_block_norms(T* out, const MemoryRuleArgs<T>& args, const OpState& state, int n_blocks) override;

  double sum(const T* x, size_t n) override;
  double sum_squares(const T* x, size_t n) override;

  void adamw_update(T* params, const T* grads, T* m, T* v, const T* update_mask, const T* decay_mask, size_t n,
                    T lr, T beta1, T beta2, T eps, T weight_decay, int step) override;

 private:
  void matmul_weight_grad(T* dw, const T* dout, const T* in, int N, int IC, int OC);  // matmul_backward's dW

  int threads_;
  std::unique_ptr<ThreadPool> pool_;  // every op's loops; threads_ threads, the caller included
  // the memory rule's per-call buffers, kept from call to call
  std::shared_ptr<cpu::HugePageBlocks> blocks_ = std::make_shared<cpu::HugePageBlocks>();
};

// threads: 0 = all cores. Also sets the process's OpenMP and Eigen thread counts.
template <class T>
std::unique_ptr<Backend<T>> make_cpu_backend(int threads);

}  // namespace proteus::backend
