// The dense matrices the chunked forms multiply (chunked_rule.cpp, chunked_per_key_rule.cpp):
// row-major like the states and inputs they map. Internal to core/memory.
#pragma once
#include <Eigen/Dense>

namespace proteus::memory::detail {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using StateMap = Eigen::Map<Mat<T>>;  // a (d_k, d_v) row-major state

}  // namespace proteus::memory::detail
