// Row-parallel loops of the distributed layer: one lane group per row, the
// row's entries over the group's lanes, so that neighbouring lanes touch
// neighbouring entries (coalesced on GPUs; one thread per row on hosts).
#pragma once

#include <Kokkos_Core.hpp>
#include <spk_compat.hpp>

namespace spk::dist::Impl {

/// The team member type of row_parallel's bodies.
template <class ExecSpace>
using RowMember = typename Kokkos::TeamPolicy<ExecSpace>::member_type;

/// body(member, i) for every row i in [0, n); body spreads row i's entries
/// with Kokkos::ThreadVectorRange(member, count) (ranges start at 0).
/// Rows of a few to a few dozen entries (what the distributed blocks hold)
/// get 8 lanes each on GPUs.
template <class ExecSpace, class Body>
static void row_parallel(const ExecSpace& space, const char* name, long long n, const Body& body) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  constexpr long long rows_per_team = 256;
  const int lanes = spk::Impl::is_host_space_v<ExecSpace> ? 1 : 8;
  const int groups = spk::Impl::is_host_space_v<ExecSpace> ? 1 : 32;
  const long long league = (n + rows_per_team - 1) / rows_per_team;
  if (league == 0) return;
  Kokkos::parallel_for(
      name, Policy(space, league, groups, lanes), KOKKOS_LAMBDA(const RowMember<ExecSpace>& m) {
        const long long i0 = m.league_rank() * rows_per_team;
        const int count = static_cast<int>(n - i0 < rows_per_team ? n - i0 : rows_per_team);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count),
                             [&](const int r) { body(m, i0 + r); });
      });
}

}  // namespace spk::dist::Impl
