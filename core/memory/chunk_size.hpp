// The chunked form's chunk size when a config leaves it at 0, for each backend, in one table,
// because the best size is a property of how the chunk products run:
//   CPU (Eigen, a core or two): the pairwise (C, C) products and the triangular solve grow as C^2
//     per chunk while the state passes shrink as 1/C; measured on the 2-core VM
//     (experiments/results/cpu-chunked-rules.md), 16 is best up to d_k 64 and 32 at d_k 128.
//   CUDA (cuBLAS batched GEMMs, a thread block per chunk): larger chunks fill the tensor units and
//     cut the sequential state pass; 64 is fla's default and the kernels' shared-memory limit
//     (kChunkedMaxChunk in kernels/memory_rule_chunked.hpp).
#pragma once
#include <cstdint>

namespace proteus::memory {

enum class ChunkBackend { cpu, cuda };

constexpr int64_t default_chunk_size(ChunkBackend backend, int64_t d_k) {
  if (backend == ChunkBackend::cuda) return 64;
  return d_k <= 64 ? 16 : 32;
}

}  // namespace proteus::memory
