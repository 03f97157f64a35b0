// ThreadDense SpGEMM (host spaces): Gustavson's algorithm, rows spread over
// the threads with dynamic scheduling, each thread owning a dense
// accumulator over B's columns (marker + values, never cleared: the marker
// holds the last row that touched a column).  When the accumulators would
// exceed the slab budget, each thread owns a hash table instead
// (HashAccumulator with ExclusiveInsert).
#pragma once

#include <algorithm>
#include <cstdint>
#include <impl/spk_spgemm_binned.hpp>

namespace spk::Impl {

template <class ExecSpace>
struct SpgemmThreadPlan {
  bool dense = true;
  std::uint64_t slab_capacity = 0;  // entries per thread
  int num_slabs = 1;
};

template <class ExecSpace, class O, class S>
SpgemmThreadPlan<ExecSpace> spgemm_thread_plan(const ExecSpace& space, std::uint64_t ncols,
                                               std::uint64_t max_row_products, std::size_t budget) {
  SpgemmThreadPlan<ExecSpace> p;
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  p.num_slabs = token.size();
  const std::size_t entry = sizeof(O) + sizeof(S);
  p.dense = ncols * entry * p.num_slabs <= budget;
  const std::uint64_t bound = std::min(ncols, max_row_products);
  p.slab_capacity = p.dense ? ncols : spgemm_table_capacity(bound);
  SPK_REQUIRE(p.slab_capacity < (std::uint64_t(1) << 32), Overflow, "spk::spgemm: a row with ",
              max_row_products, " products needs a hash table of more than 2^32 entries");
  return p;
}

template <class ExecSpace, class V, class Counts>
void spgemm_thread_symbolic(const ExecSpace& space, const V& v, std::int64_t m, std::uint64_t ncols,
                            const Counts& counts, const SpgemmThreadPlan<ExecSpace>& p) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using Acc = HashAccumulator<O, int, HashMask, LinearProbing, ExclusiveInsert>;
  using Dev = typename Counts::device_type;
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  Kokkos::View<O*, Dev> slab(Kokkos::ViewAllocateWithoutInitializing("spk::spgemm::thread_keys"),
                             p.num_slabs * p.slab_capacity);
  Kokkos::deep_copy(space, slab, Acc::empty_key);
  const std::uint64_t sc = p.slab_capacity;
  const bool dense = p.dense;
  Kokkos::parallel_for(
      "spk::spgemm::thread_symbolic",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, m)
          .set_chunk_size(64),
      [=](const std::int64_t i) {
        const int id = token.acquire();
        O* keys = slab.data() + id * sc;
        std::int64_t count = 0;
        std::uint64_t products = 0;
        if (dense) {
          const O row = static_cast<O>(i);
          for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
            const auto k = v.aci(ka);
            for (auto kb = v.brm(k); kb < v.brm(k + 1); ++kb) {
              const O c = v.bci(kb);
              if (keys[c] != row) {
                keys[c] = row;
                ++count;
              }
            }
          }
        } else {
          for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
            const auto k = v.aci(ka);
            products += static_cast<std::uint64_t>(v.brm(k + 1) - v.brm(k));
          }
          const std::uint32_t cap = static_cast<std::uint32_t>(
              spgemm_table_capacity(std::min<std::uint64_t>(products, ncols)));
          const Acc h(keys, nullptr, cap);
          for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
            const auto k = v.aci(ka);
            for (auto kb = v.brm(k); kb < v.brm(k + 1); ++kb) {
              bool is_new;
              h.insert(v.bci(kb), is_new);
              count += is_new;
            }
          }
          std::fill(keys, keys + cap, Acc::empty_key);
        }
        counts(i + 1) = count;
        token.release(id);
      });
}

template <class ExecSpace, class V>
void spgemm_thread_numeric(const ExecSpace& space, const V& v, std::int64_t m, std::uint64_t ncols,
                           const SpgemmThreadPlan<ExecSpace>& p, bool sorted) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  using Acc = HashAccumulator<O, S, HashMask, LinearProbing, ExclusiveInsert>;
  using Dev = typename decltype(v.cci)::device_type;
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  Kokkos::View<O*, Dev> slab_keys(
      Kokkos::ViewAllocateWithoutInitializing("spk::spgemm::thread_keys"),
      p.num_slabs * p.slab_capacity);
  // Dense values are written on first touch; hash values must start at zero.
  Kokkos::View<S*, Dev> slab_vals(
      Kokkos::ViewAllocateWithoutInitializing("spk::spgemm::thread_values"),
      p.num_slabs * p.slab_capacity);
  Kokkos::deep_copy(space, slab_keys, Acc::empty_key);
  if (!p.dense) Kokkos::deep_copy(space, slab_vals, S(0));
  const std::uint64_t sc = p.slab_capacity;
  const bool dense = p.dense;
  Kokkos::parallel_for(
      "spk::spgemm::thread_numeric",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, m)
          .set_chunk_size(64),
      [=](const std::int64_t i) {
        const int id = token.acquire();
        O* keys = slab_keys.data() + id * sc;
        S* vals = slab_vals.data() + id * sc;
        const auto start = v.crm(i);
        const auto end = v.crm(i + 1);
        O* cci = v.cci.data();
        S* cv = v.cv.data();
        if (dense) {
          const O row = static_cast<O>(i);
          auto pos = start;
          for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
            const auto k = v.aci(ka);
            const S a = v.av(ka);
            for (auto kb = v.brm(k); kb < v.brm(k + 1); ++kb) {
              const O c = v.bci(kb);
              const S prod = a * v.bv(kb);
              if (keys[c] != row) {
                keys[c] = row;
                vals[c] = prod;
                cci[pos++] = c;
              } else {
                vals[c] += prod;
              }
            }
          }
          if (sorted) std::sort(cci + start, cci + end);
          for (auto q = start; q < end; ++q) cv[q] = vals[cci[q]];
        } else {
          std::uint64_t products = 0;
          for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
            const auto k = v.aci(ka);
            products += static_cast<std::uint64_t>(v.brm(k + 1) - v.brm(k));
          }
          const std::uint32_t cap = static_cast<std::uint32_t>(
              spgemm_table_capacity(std::min<std::uint64_t>(products, ncols)));
          const Acc h(keys, vals, cap);
          for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
            const auto k = v.aci(ka);
            const S a = v.av(ka);
            for (auto kb = v.brm(k); kb < v.brm(k + 1); ++kb) h.accumulate(v.bci(kb), a * v.bv(kb));
          }
          auto pos = start;
          for (std::uint32_t s = 0; s < cap; ++s)
            if (keys[s] != Acc::empty_key) cci[pos++] = keys[s];
          if (sorted) std::sort(cci + start, cci + end);
          for (auto q = start; q < end; ++q) cv[q] = vals[h.find(cci[q])];
          for (std::uint32_t s = 0; s < cap; ++s) h.clear(s);
        }
        token.release(id);
      });
}

}  // namespace spk::Impl
