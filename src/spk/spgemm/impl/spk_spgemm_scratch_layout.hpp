// The bytes the binned SpGEMM kernels keep in team scratch, in one place, so
// that the tuning sizes the tables by what the kernels take.
//
// Kokkos aligns team scratch to 8 bytes only (its CUDA backend places it
// after 8 * (team size + 2) bytes of reduction space, so an odd team size
// leaves it 8 mod 16), while Kokkos::complex<double> needs 16: a team whose
// scratch holds values aligns its start by hand (`slack` more bytes), and
// every piece inside is a multiple of the values' alignment.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>

namespace spk::Impl {

struct SpgemmScratchLayout {
  std::size_t key;     // sizeof(Ordinal): a column of C
  std::size_t value;   // sizeof(Scalar)
  std::size_t offset;  // sizeof(Offset): a position in B
  std::size_t align;   // pieces are multiples of this: max(8, alignof(Scalar))
  std::size_t slack;   // bytes a team adds to align its scratch (0 when 8 do)

  /// Numeric BalancedTeamGroup list entries (spgemm_binned.hpp).
  static constexpr int balanced_list = 64;
  /// The list of the long rows on global tables, whose scratch has room: a
  /// power-law row of 5,000 entries meets about 80 B rows of 128 entries or
  /// more (Pareto lengths, mean 8, alpha 1.5; reasoning), and the B rows
  /// past the list stay with one thread's lanes.
  static constexpr int global_list = 1024;

  template <class O, class S, class F>
  KOKKOS_INLINE_FUNCTION static constexpr SpgemmScratchLayout of() {
    constexpr std::size_t a = alignof(S) > 8 ? alignof(S) : 8;
    return {sizeof(O), sizeof(S), sizeof(F), a, a > 8 ? a : 0};
  }
  KOKKOS_INLINE_FUNCTION constexpr std::size_t round(std::size_t b) const {
    return (b + align - 1) / align * align;
  }
  /// A hash table of cap keys (and values after them).
  KOKKOS_INLINE_FUNCTION constexpr std::size_t table(std::size_t cap, bool values) const {
    return round(cap * key) + (values ? round(cap * value) : 0);
  }
  /// One lane-bin row (LaneRowScratch): table, numeric's key buffer, the
  /// stage of `lanes` pairs of B-row bounds, a counter.
  KOKKOS_INLINE_FUNCTION constexpr std::size_t lane_row(std::size_t cap, int lanes,
                                                        bool values) const {
    return table(cap, values) + (values ? round(cap * key) : 0) +
           round(2 * std::size_t(lanes) * offset) + align;
  }
  /// The balanced group's list: a count, then its entries.
  KOKKOS_INLINE_FUNCTION constexpr std::size_t list(int capacity = balanced_list) const {
    return round(8 + capacity * offset);
  }
  /// A team-bin row of numeric: table, key buffer, counter, the list.
  KOKKOS_INLINE_FUNCTION constexpr std::size_t team_row(std::size_t cap) const {
    return table(cap, true) + round(cap * key) + align + list();
  }
  /// T rows of one thread each (interleaved tables).
  KOKKOS_INLINE_FUNCTION constexpr std::size_t thread_rows(std::size_t cap, int T) const {
    return table(cap * std::size_t(T), true);
  }
  /// What a team asks Kokkos for to carve `bytes` aligned.
  constexpr std::size_t request(std::size_t bytes) const { return bytes + slack; }
};

/// The start of a team's scratch of `bytes`, aligned for the layout's values
/// (the policy asked for layout.request(bytes)).
template <class Member>
KOKKOS_INLINE_FUNCTION char* spgemm_team_scratch(const Member& member, std::size_t bytes,
                                                 const SpgemmScratchLayout& layout) {
  return static_cast<char*>(member.team_scratch(0).get_shmem_aligned(bytes, layout.align));
}

}  // namespace spk::Impl
