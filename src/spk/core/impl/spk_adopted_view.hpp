// Managed Kokkos Views over memory spk allocated itself (its pools): the one
// place where spk uses Kokkos internals.  Everything here is optional: with
// SPK_CAN_ADOPT_ALLOCATIONS 0 spk hands out plain Kokkos allocations.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <spk_compat.hpp>
#include <string>

namespace spk::Impl {

// A managed View normally owns memory Kokkos allocated.  spk hands the caller
// Views over memory from its own pool (C's arrays on CUDA): they must behave
// like any managed View (copies share ownership, label(), use_count()) and
// give the memory back when the last copy goes.  That takes a Kokkos
// allocation record of spk's own, which Kokkos 3.x and 4.x (legacy View, not a
// debug build, which links records into a checked list) allow through their
// internal SharedAllocationRecord<void, void> and View(tracker, mapping)
// constructor.  Kokkos 4.7's View (mdspan-based, the default from the 4.6.99
// development line on, unless built with KOKKOS_ENABLE_IMPL_VIEW_LEGACY) has
// no such constructor.  Elsewhere (those, Kokkos debug builds, or spk built with
// SPK_DISABLE_ADOPTED_VIEWS defined) adopt_allocation is not available and
// callers allocate with Kokkos; at run time Settings::pooled_results = false
// does the same.
#if (KOKKOS_VERSION < 40699 || defined(KOKKOS_ENABLE_IMPL_VIEW_LEGACY)) && \
    !defined(KOKKOS_ENABLE_DEBUG) && !defined(SPK_DISABLE_ADOPTED_VIEWS)
#define SPK_CAN_ADOPT_ALLOCATIONS 1
#else
#define SPK_CAN_ADOPT_ALLOCATIONS 0
#endif

#if SPK_CAN_ADOPT_ALLOCATIONS
/// The record behind adopted memory: Kokkos calls destroy() when the last
/// View copy goes; it calls `release` on the memory (with release_bytes).
class AdoptedAllocationRecord final : public Kokkos::Impl::SharedAllocationRecord<void, void> {
  using Base = Kokkos::Impl::SharedAllocationRecord<void, void>;
  using Header = Kokkos::Impl::SharedAllocationHeader;

 public:
  using Release = void (*)(void* ptr, std::size_t bytes, const std::string& label);
  static AdoptedAllocationRecord* make(void* ptr, std::size_t bytes, const std::string& label,
                                       Release release, std::size_t release_bytes) {
    return new AdoptedAllocationRecord(ptr, bytes, label, release, release_bytes);
  }
  std::string get_label() const override { return label_; }

 private:
  // Kokkos' records keep a header just before the data; it is never read
  // through a View, so the record points at where it would be.
  AdoptedAllocationRecord(void* ptr, std::size_t bytes, const std::string& label, Release release,
                          std::size_t release_bytes)
#if SPK_KOKKOS_4
      : Base(reinterpret_cast<Header*>(ptr) - 1, bytes + sizeof(Header), &destroy, label),
#else
      // (3.x: the base keeps no label)
      : Base(reinterpret_cast<Header*>(ptr) - 1, bytes + sizeof(Header), &destroy),
#endif
        ptr_(ptr),
        release_bytes_(release_bytes),
        release_(release),
        label_(label) {
  }
  static void destroy(Base* r) {
    auto* self = static_cast<AdoptedAllocationRecord*>(r);
    self->release_(self->ptr_, self->release_bytes_, self->label_);
    delete self;
  }
  void* ptr_;
  std::size_t release_bytes_;
  Release release_;
  std::string label_;
};

/// A managed rank-1 View over n values at ptr that calls
/// release(ptr, release_bytes, label) when its last copy goes
/// (release_bytes: by default the View's bytes).
template <class View>
View adopt_allocation(typename View::pointer_type ptr, std::size_t n, const std::string& label,
                      AdoptedAllocationRecord::Release release, std::size_t release_bytes = 0) {
  const View unmanaged(ptr, n);
  const std::size_t bytes = n * sizeof(typename View::value_type);
  Kokkos::Impl::SharedAllocationTracker track;
  track.assign_allocated_record_to_uninitialized(AdoptedAllocationRecord::make(
      ptr, bytes, label, release, release_bytes ? release_bytes : bytes));
  return View(track, unmanaged.impl_map());
}
#endif

}  // namespace spk::Impl
