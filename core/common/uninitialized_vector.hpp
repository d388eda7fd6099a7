// A std::vector whose resize leaves new scalars uninitialised, for buffers a loop overwrites in
// full right after sizing them (a head's gathered inputs, chunk-start states): value-initialising
// them first would be a second pass over memory that is about to be written anyway.
// Its memory comes from a std::pmr resource: the heap by default, or a block the owner keeps from
// call to call (the CPU backend's memory rule: core/backend/cpu/huge_page_blocks.hpp).
#pragma once
#include <cstddef>
#include <memory_resource>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace proteus {

template <class T>
struct UninitializedAllocator {
  using value_type = T;
  // a vector moved into another brings its memory's owner along
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  std::pmr::memory_resource* resource = std::pmr::new_delete_resource();

  UninitializedAllocator() = default;
  explicit UninitializedAllocator(std::pmr::memory_resource* r) noexcept : resource(r) {}
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>& other) noexcept : resource(other.resource) {}
  // a copy of a vector lives on the heap: it may outlive the block its original lives in
  UninitializedAllocator select_on_container_copy_construction() const { return {}; }

  // on a cache line: the rows' vector loads, and whole lines for streaming stores
  static constexpr std::size_t kAlignment = alignof(T) > 64 ? alignof(T) : 64;

  T* allocate(std::size_t n) { return static_cast<T*>(resource->allocate(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, std::size_t n) noexcept { resource->deallocate(p, n * sizeof(T), kAlignment); }

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-, not value-initialised: no zero fill for scalars
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T, class U>
bool operator==(const UninitializedAllocator<T>& a, const UninitializedAllocator<U>& b) noexcept {
  return *a.resource == *b.resource;
}

// resize() and the size constructor leave scalars unset; assign(n, value) still fills.
template <class T>
using UninitializedVector = std::vector<T, UninitializedAllocator<T>>;

}  // namespace proteus
