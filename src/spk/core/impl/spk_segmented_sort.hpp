// Sorting many segments of an index array at once: segment s is
// perm[offsets(s), offsets(s+1)) and is sorted by a strict total order
// `less(a, b)` on the stored values (entry numbers).  Short segments are
// sorted by one thread (insertion sort); long ones by a team with a
// bottom-up merge sort whose merges place every element by binary search
// (fully parallel, no atomics), ping-ponging with a scratch array.  On
// GPUs the very long segments (a dense row: millions of entries) would keep
// one multiprocessor busy while the others idle, so they are merged by the
// whole device instead, one launch per merge pass.
#pragma once

#include <limits>
#include <spk_compat.hpp>

namespace spk::Impl {

/// Segments up to this length are sorted by a single thread.
template <class ExecSpace>
constexpr long long short_segment_length() {
  return is_host_space_v<ExecSpace> ? 48 : 32;
}

/// Segments longer than this are merged by the whole device (GPUs); host
/// threads sort each segment alone.  2¹⁴: from the cost, not measured — a
/// team's merge passes over 2¹⁴ entries take about as long as the ~9
/// launches of the device-wide passes.
template <class ExecSpace>
constexpr long long wide_segment_length() {
  return is_host_space_v<ExecSpace> ? std::numeric_limits<long long>::max() : (1LL << 14);
}

/// Where element p of x's entries goes when runs [lb, mid) and [mid, re) of
/// src (positions relative to base) are merged: its rank in its own run plus
/// the number of the partner run's elements that come before it.
template <class View, class Less>
KOKKOS_INLINE_FUNCTION long long merged_position(const View& src, long long base, long long lb,
                                                 long long mid, long long re, long long p,
                                                 const Less& less) {
  const auto x = src(base + p);
  long long lo = p < mid ? mid : lb, hi = p < mid ? re : mid;
  const long long first = lo;
  while (lo < hi) {  // count partner elements less than x
    const long long m = lo + (hi - lo) / 2;
    if (less(src(base + m), x))
      lo = m + 1;
    else
      hi = m;
  }
  return lb + (p < mid ? p - lb : p - mid) + (lo - first);
}

/// Insertion sort of perm[b, e) by less (one thread).
template <class Perm, class Less>
KOKKOS_INLINE_FUNCTION void insertion_sort(const Perm& perm, long long b, long long e,
                                           const Less& less) {
  for (long long i = b + 1; i < e; ++i) {
    const auto x = perm(i);
    long long j = i - 1;
    while (j >= b && less(x, perm(j))) {
      perm(j + 1) = perm(j);
      --j;
    }
    perm(j + 1) = x;
  }
}

/// Entry q of the wide segments laid end to end: its segment's start b and
/// length n, and its index in the segment (returned).
template <class Offsets, class Segs>
struct WideSegments {
  Offsets offsets;
  Segs wide, wide_off;
  long long num_wide;
  KOKKOS_INLINE_FUNCTION long long operator()(const long long q, long long& b, long long& n) const {
    long long lo = 0, hi = num_wide;  // the last w with wide_off(w) <= q
    while (hi - lo > 1) {
      const long long mid = lo + (hi - lo) / 2;
      if (wide_off(mid) <= q)
        lo = mid;
      else
        hi = mid;
    }
    const long long s = wide(lo);
    b = static_cast<long long>(offsets(s));
    n = static_cast<long long>(offsets(s + 1)) - b;
    return q - wide_off(lo);
  }
};

/// Sorts the segments of `wide` (segment numbers; `wide_off` the running
/// total of their lengths, `total` its last value, `longest` the longest)
/// with every thread of the device: runs of short_len by insertion sort,
/// then one launch per merge pass over all their entries.
template <class ExecSpace, class Offsets, class Perm, class Less, class Segs>
static void sort_wide_segments(const ExecSpace& space, const Offsets& offsets, const Perm& perm,
                               const Perm& tmp, const Less& less, const Segs& wide,
                               const Segs& wide_off, long long num_wide, long long total,
                               long long longest, long long short_len) {
  const WideSegments<Offsets, Segs> locate{offsets, wide, wide_off, num_wide};
  Kokkos::parallel_for(
      "spk::segmented_sort::wide_runs", Kokkos::RangePolicy<ExecSpace>(space, 0, total),
      KOKKOS_LAMBDA(const long long q) {
        long long b = 0, n = 0;
        const long long p = locate(q, b, n);
        if (p % short_len == 0)
          insertion_sort(perm, b + p, b + (p + short_len < n ? p + short_len : n), less);
      });
  bool in_perm = true;
  for (long long width = short_len; width < longest; width *= 2) {
    const Perm src = in_perm ? perm : tmp, dst = in_perm ? tmp : perm;
    Kokkos::parallel_for(
        "spk::segmented_sort::wide_merge", Kokkos::RangePolicy<ExecSpace>(space, 0, total),
        KOKKOS_LAMBDA(const long long q) {
          long long b = 0, n = 0;
          const long long p = locate(q, b, n);
          const long long lb = (p / (2 * width)) * (2 * width);
          const long long mid = lb + width < n ? lb + width : n;
          const long long re = lb + 2 * width < n ? lb + 2 * width : n;
          dst(b + merged_position(src, b, lb, mid, re, p, less)) = src(b + p);
        });
    in_perm = !in_perm;
  }
  if (!in_perm)
    Kokkos::parallel_for(
        "spk::segmented_sort::wide_copy", Kokkos::RangePolicy<ExecSpace>(space, 0, total),
        KOKKOS_LAMBDA(const long long q) {
          long long b = 0, n = 0;
          const long long p = locate(q, b, n);
          perm(b + p) = tmp(b + p);
        });
}

/// Sorts every segment; returns whether one was longer than wide_len (and
/// so merged by the whole device), which tells callers that a thread per
/// segment would serialise on it too.
template <class ExecSpace, class Offsets, class Perm, class Less>
static bool segmented_sort(const ExecSpace& space, const Offsets& offsets, long long num_segments,
                           const Perm& perm, const Less& less,
                           long long wide_len = wide_segment_length<ExecSpace>()) {
  if (num_segments == 0) return false;
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
        insertion_sort(perm, b, e, less);
      },
      num_long);
  if (num_long == 0) return false;

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

  // 3. Long segments: one team each, bottom-up merge sort with a scratch
  // copy; the wide ones (GPUs) are left to step 4.
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
        if (n > wide_len) return;
        // Runs of short_len first, by insertion sort (one thread per run).
        const long long runs = (n + short_len - 1) / short_len;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, runs), [&](const long long r) {
          const long long rb = b + r * short_len;
          insertion_sort(perm, rb, rb + short_len < b + n ? rb + short_len : b + n, less);
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
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const long long p) {
              const long long lb = (p / (2 * width)) * (2 * width);
              const long long mid = lb + width < n ? lb + width : n;
              const long long re = lb + 2 * width < n ? lb + 2 * width : n;
              dst(b + merged_position(src, b, lb, mid, re, p, less)) = src(b + p);
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

  // 4. Wide segments: the whole device per merge pass (never on host spaces
  // unless the caller asks).
  if (wide_len == std::numeric_limits<long long>::max()) return false;
  long long longest = 0;
  Kokkos::parallel_reduce(
      "spk::segmented_sort::longest", Kokkos::RangePolicy<ExecSpace>(space, 0, num_long),
      KOKKOS_LAMBDA(const long long l, long long& m) {
        const long long s = long_segs(l);
        const long long n = static_cast<long long>(offsets(s + 1) - offsets(s));
        if (n > m) m = n;
      },
      Kokkos::Max<long long>(longest));
  if (longest <= wide_len) return false;
  using Segs = Kokkos::View<long long*, typename Perm::device_type>;
  Segs wide(Kokkos::ViewAllocateWithoutInitializing("spk::segmented_sort::wide"), num_long);
  long long num_wide = 0;
  Kokkos::parallel_scan(
      "spk::segmented_sort::list_wide", Kokkos::RangePolicy<ExecSpace>(space, 0, num_long),
      KOKKOS_LAMBDA(const long long l, long long& w, const bool final) {
        const long long s = long_segs(l);
        const bool is_wide = static_cast<long long>(offsets(s + 1) - offsets(s)) > wide_len;
        if (final && is_wide) wide(w) = s;
        w += is_wide;
      },
      num_wide);
  Segs wide_off(Kokkos::ViewAllocateWithoutInitializing("spk::segmented_sort::wide_off"),
                num_wide + 1);
  long long total = 0;
  Kokkos::parallel_scan(
      "spk::segmented_sort::wide_offsets", Kokkos::RangePolicy<ExecSpace>(space, 0, num_wide + 1),
      KOKKOS_LAMBDA(const long long w, long long& u, const bool final) {
        const long long n =
            w < num_wide ? static_cast<long long>(offsets(wide(w) + 1) - offsets(wide(w))) : 0;
        if (final) wide_off(w) = u;
        u += n;
      },
      total);
  sort_wide_segments(space, offsets, perm, tmp, less, wide, wide_off, num_wide, total, longest,
                     short_len);
  return true;
}

}  // namespace spk::Impl
