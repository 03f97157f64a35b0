// Pieces shared by spk's SpGEMM kernels: product counting, the team/lane
// "group" abstraction the binned kernels are written against, and a bitonic
// sort that runs on a group.
#pragma once

#include <cstdint>
#include <limits>
#include <spk_error.hpp>
#include <spk_hash_accumulator.hpp>
#include <spk_validate.hpp>
#include <type_traits>

namespace spk::Impl {

/// Throws spk::Overflow when nnz(C) does not fit the offset type F.
template <class F>
void require_fits_offset(std::uint64_t nnz, std::uint64_t products, const char* who) {
  SPK_REQUIRE(nnz <= static_cast<std::uint64_t>(std::numeric_limits<F>::max()), Overflow, who,
              ": C has ", nnz, " nonzeros (", products,
              " products), more than the offset type holds (max ", +std::numeric_limits<F>::max(),
              "); use a wider Offset");
}

/// C's row map (m + 1 offsets) from its row counts, counts(i) for row
/// i - 1 (counts(0) is not read), summed in 64 bits on `space`; throws
/// spk::Overflow (naming `who`) when nnz(C) does not fit the offset type.
/// Returns nnz(C) (the host waits for the scan).
template <class ExecSpace, class Counts, class RowMap>
static std::int64_t row_map_from_counts(const ExecSpace& space, const char* label,
                                        const Counts& counts, const RowMap& row_map, std::int64_t m,
                                        std::uint64_t products, const char* who) {
  using F = typename RowMap::non_const_value_type;
  std::int64_t nnz = 0;
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecSpace>(space, 0, m + 1),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
        sum += i > 0 ? static_cast<std::int64_t>(counts(i)) : 0;
        if (final) row_map(i) = static_cast<F>(sum);
      },
      nnz);
  require_fits_offset<F>(static_cast<std::uint64_t>(nnz), products, who);
  return nnz;
}

/// Throws spk::ShapeMismatch unless A's columns match B's rows.
template <class MA, class MB>
void require_product_shapes(const MA& A, const MB& B, const char* who) {
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, who, ": A is ", +A.num_rows(), " x ",
              +A.num_cols(), " but B is ", +B.num_rows(), " x ", +B.num_cols(),
              " (A's columns must match B's rows)");
}

/// B is A itself (C = A·A): one validation covers both.
template <class MA, class MB>
bool same_operand(const MA& A, const MB& B) {
  return B.row_map().data() == A.row_map().data() && B.col_idx().data() == A.col_idx().data() &&
         B.num_rows() == A.num_rows() && B.num_cols() == A.num_cols();
}

/// After an analysis pass found an invalid row (bad_a / bad_b: the first bad
/// row of A / of B, INT64_MAX for none): spk::validate throws naming the row
/// and entry; if it does not, this names the row.
template <class ExecSpace, class MA, class MB>
void throw_if_invalid_rows(const ExecSpace& space, const MA& A, const MB& B, std::int64_t bad_a,
                           std::int64_t bad_b, const char* who) {
  if (bad_a == INT64_MAX && bad_b == INT64_MAX) return;
  validate(space, A);
  validate(space, B);
  SPK_REQUIRE(false, InvalidMatrix, who, ": invalid row ", bad_a != INT64_MAX ? bad_a : bad_b,
              " in ", bad_a != INT64_MAX ? "A" : "B");
}

/// Capacity of the hash table of a row with `bound` distinct columns at most
/// (bound = min(products, columns of B)): a power of two with fill <= 0.8.
KOKKOS_INLINE_FUNCTION std::uint64_t spgemm_table_capacity(std::uint64_t bound) {
  const std::uint64_t c = next_pow2(bound + bound / 4 + 1);
  return c < 32 ? 32 : c;
}

/// floor(log2(x)) for x >= 1 in six steps (loops over the bits took ~30 ms
/// of host time over fem:50:6:7's 750,000 long rows).
KOKKOS_INLINE_FUNCTION int floor_log2(std::uint64_t x) {
  int l = 0;
  for (int step = 32; step > 0; step /= 2) {
    if (x >> step) {
      x >>= step;
      l += step;
    }
  }
  return l;
}

/// log2 of spgemm_table_capacity(bound), without its loops.
KOKKOS_INLINE_FUNCTION int spgemm_table_log2(std::uint64_t bound) {
  const std::uint64_t c = bound + bound / 4 + 1;
  const int l = floor_log2(c) + ((c & (c - 1)) != 0 ? 1 : 0);
  return l < 5 ? 5 : l;
}

KOKKOS_INLINE_FUNCTION int log2_exact(std::uint64_t pow2) {
  int l = 0;
  while ((std::uint64_t(1) << l) < pow2) ++l;
  return l;
}

/// products(i) = sum over A's row i of the length of B's row; returns the
/// total (64-bit, so that it cannot wrap) and sets max_row.
template <class ExecSpace, class ARm, class ACi, class BRm, class Products>
static std::uint64_t count_row_products(const ExecSpace& space, std::int64_t m, const ARm& arm,
                                        const ACi& aci, const BRm& brm, const Products& products,
                                        std::uint64_t& max_row) {
  std::uint64_t total = 0;
  Kokkos::parallel_reduce(
      "spk::spgemm::count_products", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& sum) {
        std::uint64_t p = 0;
        for (auto ka = arm(i); ka < arm(i + 1); ++ka) {
          const auto k = aci(ka);
          p += static_cast<std::uint64_t>(brm(k + 1) - brm(k));
        }
        products(i) = p;
        sum += p;
      },
      total);
  max_row = 0;
  Kokkos::parallel_reduce(
      "spk::spgemm::max_products", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& mx) {
        if (products(i) > mx) mx = products(i);
      },
      Kokkos::Max<std::uint64_t>(max_row));
  return total;
}

/// A row handled by the vector lanes of one thread of a team (small rows,
/// several per team).  Vector loops end with the lanes synchronised
/// (__syncwarp on CUDA), which is what barrier() relies on.
template <class Member>
struct LaneGroup {
  const Member& member;
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_each(std::uint32_t n, const F& f) const {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, n), f);
  }
  KOKKOS_FORCEINLINE_FUNCTION void barrier() const {}
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void single(const F& f) const {
    Kokkos::single(Kokkos::PerThread(member), f);
  }
  template <class F, class T>
  KOKKOS_FORCEINLINE_FUNCTION void reduce_sum(std::uint32_t n, const F& f, T& result) const {
    Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(member, n), f, result);
  }
  /// Calls f(ka, kb) for every product A(i, k)·B(k, j) of row i (ka, kb the
  /// entries' positions): A's entries in turn, B's row spread over the lanes.
  template <class ARm, class ACi, class BRm, class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_products(std::int64_t i, const ARm& arm, const ACi& aci,
                                                const BRm& brm, const F& f) const {
    for (auto ka = arm(i); ka < arm(i + 1); ++ka) {
      const auto k = aci(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, brm(k), brm(k + 1)),
                           [&](const auto kb) { f(ka, kb); });
    }
  }
};

/// A row handled by a whole team: A's entries over the threads, each B row
/// over the vector lanes.
template <class Member>
struct TeamGroup {
  const Member& member;
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_each(std::uint32_t n, const F& f) const {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(member, n), f);
  }
  KOKKOS_FORCEINLINE_FUNCTION void barrier() const { member.team_barrier(); }
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void single(const F& f) const {
    Kokkos::single(Kokkos::PerTeam(member), f);
  }
  template <class F, class T>
  KOKKOS_FORCEINLINE_FUNCTION void reduce_sum(std::uint32_t n, const F& f, T& result) const {
    Kokkos::parallel_reduce(Kokkos::TeamVectorRange(member, n), f, result);
  }
  template <class ARm, class ACi, class BRm, class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_products(std::int64_t i, const ARm& arm, const ACi& aci,
                                                const BRm& brm, const F& f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, arm(i), arm(i + 1)), [&](const auto ka) {
      const auto k = aci(ka);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, brm(k), brm(k + 1)),
                           [&](const auto kb) { f(ka, kb); });
    });
  }
};

/// Sorts keys[0, n) (as unsigned values, so empty keys go last), moving
/// values[] along when non-null, with the group's threads.  Bitonic sort in
/// its "flip" form, where every compare-exchange puts the smaller key first:
/// positions >= n act as +infinity and are never touched, so n need not be
/// a power of two.
template <class Group, class Key, class Value>
KOKKOS_INLINE_FUNCTION void group_bitonic_sort(const Group& g, Key* keys, Value* values,
                                               std::uint32_t n) {
  using U = std::make_unsigned_t<Key>;
  if (n < 2) return;
  const std::uint32_t N = static_cast<std::uint32_t>(next_pow2(n));
  auto cmpswap = [=](std::uint32_t i, std::uint32_t j) {
    if (j >= n) return;
    const Key ki = keys[i], kj = keys[j];
    if (static_cast<U>(kj) < static_cast<U>(ki)) {
      keys[i] = kj;
      keys[j] = ki;
      if (values) {
        const Value t = values[i];
        values[i] = values[j];
        values[j] = t;
      }
    }
  };
  // Sizes are powers of two: shifts and masks, not divisions, pick the pairs.
  for (std::uint32_t lk = 1; (1u << lk) <= N; ++lk) {
    const std::uint32_t k = 1u << lk, lh = lk - 1, half = k >> 1;
    g.for_each(N / 2, [&](const std::uint32_t t) {
      const std::uint32_t base = (t >> lh) << lk, off = t & (half - 1);
      cmpswap(base + off, base + k - 1 - off);
    });
    g.barrier();
    for (std::uint32_t l = lh; l-- > 0;) {
      const std::uint32_t h = 1u << l;
      g.for_each(N / 2, [&](const std::uint32_t t) {
        const std::uint32_t i = ((t >> l) << (l + 1)) + (t & (h - 1));
        cmpswap(i, i + h);
      });
      g.barrier();
    }
  }
}

}  // namespace spk::Impl
