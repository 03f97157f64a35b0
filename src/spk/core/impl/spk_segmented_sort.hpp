// Sorting many segments of an index array at once: segment s is
// perm[offsets(s), offsets(s+1)) and is sorted by a strict total order
// `less(a, b)` on the stored values (entry numbers).  Short segments are
// sorted by one thread (insertion sort); long ones by a team with a
// bottom-up merge sort whose merges place every element by binary search
// (fully parallel, no atomics), ping-ponging with a scratch array.
#pragma once

#include <spk_compat.hpp>

namespace spk::Impl {

/// Segments up to this length are sorted by a single thread.
template <class ExecSpace>
constexpr long long short_segment_length() {
  return is_host_space_v<ExecSpace> ? 48 : 32;
}

template <class ExecSpace, class Offsets, class Perm, class Less>
void segmented_sort(const ExecSpace& space, const Offsets& offsets, long long num_segments,
                    const Perm& perm, const Less& less) {
  using Index = typename Perm::non_const_value_type;
  if (num_segments == 0) return;
  constexpr long long short_len = short_segment_length<ExecSpace>();

  // 1. Short segments: insertion sort, one thread each.  Count the long ones.
  long long num_long = 0;
  Kokkos::parallel_reduce(
      "spk::segmented_sort::short", Kokkos::RangePolicy<ExecSpace>(space, 0, num_segments),
      KOKKOS_LAMBDA(const long long s, long long& count) {
        const long long b = static_cast<long long>(offsets(s));
        const long long e = static_cast<long long>(offsets(s + 1));
        if (e - b > short_len) {
          ++count;
          return;
        }
        for (long long i = b + 1; i < e; ++i) {
          const Index x = perm(i);
          long long j = i - 1;
          while (j >= b && less(x, perm(j))) {
            perm(j + 1) = perm(j);
            --j;
          }
          perm(j + 1) = x;
        }
      },
      num_long);
  if (num_long == 0) return;

  // 2. List the long segments.
  Kokkos::View<long long*, typename Perm::device_type> long_segs(
      Kokkos::ViewAllocateWithoutInitializing("spk::long_segments"), num_long);
  Kokkos::parallel_scan(
      "spk::segmented_sort::list", Kokkos::RangePolicy<ExecSpace>(space, 0, num_segments),
      KOKKOS_LAMBDA(const long long s, long long& update, const bool final) {
        const bool is_long = offsets(s + 1) - offsets(s) > short_len;
        if (final && is_long) long_segs(update) = s;
        update += is_long;
      });

  // 3. Long segments: one team each, bottom-up merge sort with a scratch copy.
  Perm tmp(Kokkos::ViewAllocateWithoutInitializing("spk::segmented_sort::tmp"), perm.extent(0));
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int team_size = is_host_space_v<ExecSpace> ? 1 : 256;
  Kokkos::parallel_for(
      "spk::segmented_sort::long", Policy(space, static_cast<int>(num_long), team_size),
      KOKKOS_LAMBDA(const Member& team) {
        const long long s = long_segs(team.league_rank());
        const long long b = static_cast<long long>(offsets(s));
        const long long n = static_cast<long long>(offsets(s + 1)) - b;
        // Runs of short_len first, by insertion sort (one thread per run).
        const long long runs = (n + short_len - 1) / short_len;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, runs), [&](const long long r) {
          const long long rb = b + r * short_len;
          const long long re = rb + short_len < b + n ? rb + short_len : b + n;
          for (long long i = rb + 1; i < re; ++i) {
            const Index x = perm(i);
            long long j = i - 1;
            while (j >= rb && less(x, perm(j))) {
              perm(j + 1) = perm(j);
              --j;
            }
            perm(j + 1) = x;
          }
        });
        team.team_barrier();
        bool in_perm = true;  // where the current runs live
        for (long long width = short_len; width < n; width *= 2) {
          const auto& src = in_perm ? perm : tmp;
          const auto& dst = in_perm ? tmp : perm;
          if (team.team_size() == 1) {
            // Sequential two-finger merge.
            for (long long lb = 0; lb < n; lb += 2 * width) {
              const long long mid = lb + width < n ? lb + width : n;
              const long long re = lb + 2 * width < n ? lb + 2 * width : n;
              long long i = lb, j = mid, o = lb;
              while (i < mid && j < re)
                dst(b + o++) = less(src(b + j), src(b + i)) ? src(b + j++) : src(b + i++);
              while (i < mid) dst(b + o++) = src(b + i++);
              while (j < re) dst(b + o++) = src(b + j++);
            }
          } else {
            // Element p of one run lands at (its rank in its run) + (number
            // of elements of the partner run that come before it).
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const long long p) {
              const long long lb = (p / (2 * width)) * (2 * width);
              const long long mid = lb + width < n ? lb + width : n;
              const long long re = lb + 2 * width < n ? lb + 2 * width : n;
              const Index x = src(b + p);
              long long lo, hi;
              if (p < mid) {
                lo = mid, hi = re;
              } else {
                lo = lb, hi = mid;
              }
              const long long first = lo;
              while (lo < hi) {  // count partner elements less than x
                const long long m = lo + (hi - lo) / 2;
                if (less(src(b + m), x))
                  lo = m + 1;
                else
                  hi = m;
              }
              const long long rank_own = p < mid ? p - lb : p - mid;
              dst(b + lb + rank_own + (lo - first)) = x;
            });
          }
          team.team_barrier();
          in_perm = !in_perm;
        }
        if (!in_perm) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                               [&](const long long p) { perm(b + p) = tmp(b + p); });
        }
      });
}

}  // namespace spk::Impl
