#include "core/backend/cases/case_buffers.hpp"

#include <cstring>
#include <sstream>
#include <type_traits>
#include <utility>

namespace proteus::backend {
namespace {

// Quiet NaNs with a payload: a guard read by mistake poisons the result, and the exact bits tell
// a surviving guard from a NaN the op wrote.
template <class V>
V sentinel() {
  if constexpr (sizeof(V) == 4 && !std::is_integral_v<V>) {
    const uint32_t bits = 0x7fc0dead;
    V v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else if constexpr (sizeof(V) == 8) {
    const uint64_t bits = 0x7ff8deadbeefcafeull;
    V v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    return static_cast<V>(-559038737);  // 0xdeadbeef
  }
}

template <class V>
std::vector<V> guarded(const std::vector<V>& values, size_t guard) {
  std::vector<V> host(guard, sentinel<V>());
  host.insert(host.end(), values.begin(), values.end());
  host.insert(host.end(), guard, sentinel<V>());
  return host;
}

// How many of the guard elements lost their sentinel, before and after the payload.
template <class V>
std::pair<size_t, size_t> damaged(const std::vector<V>& host, size_t guard) {
  const V s = sentinel<V>();
  auto differs = [&](size_t i) { return std::memcmp(&host[i], &s, sizeof(V)) != 0; };
  size_t before = 0, after = 0;
  for (size_t i = 0; i < guard; ++i) before += differs(i);
  for (size_t i = host.size() - guard; i < host.size(); ++i) after += differs(i);
  return {before, after};
}

std::string damage_line(const std::string& name, std::pair<size_t, size_t> d) {
  std::ostringstream line;
  line << name << ":";
  if (d.first) line << " " << d.first << " guard elements before the start";
  if (d.first && d.second) line << " and";
  if (d.second) line << " " << d.second << " guard elements after the end";
  line << " overwritten";
  return line.str();
}

}  // namespace

template <class T>
CaseBuffers<T>::~CaseBuffers() {
  for (auto& a : scalars_) be_.free(a.base);
  for (auto& a : ids_) be_.free_int32(a.base);
}

template <class T>
T* CaseBuffers<T>::place(const std::string& name, const std::vector<T>& values) {
  const auto host = guarded(values, kGuard);
  T* base = be_.alloc(host.size());
  scalars_.push_back({name, base, values.size()});
  be_.upload(base, host.data(), host.size());
  return base + kGuard;
}

template <class T>
const T* CaseBuffers<T>::input(const std::string& name, const std::vector<double>& values) {
  return place(name, std::vector<T>(values.begin(), values.end()));
}

template <class T>
T* CaseBuffers<T>::output(const std::string& name, size_t n) {
  return place(name, std::vector<T>(n, static_cast<T>(kGarbage)));
}

template <class T>
T* CaseBuffers<T>::inout(const std::string& name, const std::vector<double>& start) {
  return place(name, std::vector<T>(start.begin(), start.end()));
}

template <class T>
const int32_t* CaseBuffers<T>::ids(const std::string& name, const std::vector<int32_t>& values) {
  const auto host = guarded(values, kGuard);
  int32_t* base = be_.alloc_int32(host.size());
  ids_.push_back({name, base, values.size()});
  be_.upload_int32(base, host.data(), host.size());
  return base + kGuard;
}

template <class T>
std::vector<double> CaseBuffers<T>::read(const T* p, size_t n) {
  std::vector<T> host(n);
  be_.synchronize();
  be_.download(host.data(), p, n);
  return std::vector<double>(host.begin(), host.end());
}

template <class T>
std::vector<std::string> CaseBuffers<T>::guard_damage() {
  be_.synchronize();
  std::vector<std::string> lines;
  for (const auto& a : scalars_) {
    std::vector<T> host(a.n + 2 * kGuard);
    be_.download(host.data(), a.base, host.size());
    const auto d = damaged(host, kGuard);
    if (d.first || d.second) lines.push_back(damage_line(a.name, d));
  }
  for (const auto& a : ids_) {
    std::vector<int32_t> host(a.n + 2 * kGuard);
    be_.download_int32(host.data(), a.base, host.size());
    const auto d = damaged(host, kGuard);
    if (d.first || d.second) lines.push_back(damage_line(a.name, d));
  }
  return lines;
}

template class CaseBuffers<float>;
template class CaseBuffers<double>;

}  // namespace proteus::backend
