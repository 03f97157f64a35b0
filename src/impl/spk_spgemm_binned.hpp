// BinnedHash SpGEMM: rows binned by their number of products, one kernel
// shape per bin, the same binning for symbolic (count distinct columns) and
// numeric (sum products):
//   lane bins   - small tables, one row per thread, its vector lanes insert
//                 (several rows per team, each on its own scratch table);
//   team bins   - one row per team, table in team scratch;
//   global bin  - rows whose table does not fit scratch: one row at a time
//                 per team on a slab of global memory (a hash table, or a
//                 dense accumulator indexed by column when B is narrow
//                 enough); slabs come from a pool sized by concurrency and a
//                 byte budget, not one per row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <impl/spk_spgemm_common.hpp>
#include <spk_error.hpp>
#include <spk_spgemm_handle.hpp>
#include <vector>

namespace spk::Impl {

/// Per-backend parameters of the binned kernels.
struct SpgemmBinnedTuning {
  int vector_length = 1;
  int lane_team_size = 1;  // rows per team in lane bins
  int team_threads = 1;    // threads (not counting vector lanes) of team-bin teams, at most
  int max_lane_log2 = 8;   // largest lane-bin table
  int max_team_log2 = 12;  // largest scratch table
  int max_slabs = 1;       // teams (and slabs) working on global rows
  std::size_t slab_budget = std::size_t(512) << 20;
};

constexpr int spgemm_min_log2 = 5;  // smallest table: 32 entries

template <class ExecSpace>
SpgemmBinnedTuning spgemm_binned_tuning(const ExecSpace& space, const SpgemmOptions& opt,
                                        double avg_b_row, std::size_t entry_bytes) {
  SpgemmBinnedTuning t;
  std::size_t scratch = opt.max_scratch_bytes;
  if constexpr (is_host_space_v<ExecSpace>) {
    t.vector_length = 1;
    t.lane_team_size = 1;
    t.team_threads =
        std::max(1, std::min(opt.team_size > 0 ? opt.team_size : 1, Impl::concurrency(space)));
    t.max_lane_log2 = 8;
    if (scratch == 0) scratch = std::size_t(256) << 10;
    t.max_slabs = Impl::concurrency(space);
  } else {
    // Lanes per row: about the length of B's rows (KK's rule of thumb).
    int v = static_cast<int>(next_pow2(static_cast<std::uint64_t>(avg_b_row + 0.5)));
    t.vector_length = std::clamp(v, 4, 32);
    t.lane_team_size = std::max(1, 128 / t.vector_length);
    t.team_threads = opt.team_size > 0 ? opt.team_size : std::max(1, 256 / t.vector_length);
    const std::size_t per_lane = (std::size_t(16) << 10) / t.lane_team_size / entry_bytes;
    t.max_lane_log2 = std::clamp(log2_exact(next_pow2(per_lane + 1)) - 1, spgemm_min_log2, 8);
    const std::size_t limit = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
    if (scratch == 0 || scratch > limit) scratch = limit;
    t.max_slabs = std::max(1, Impl::concurrency(space) / (t.team_threads * t.vector_length));
  }
  int lt = spgemm_min_log2;
  while ((std::size_t(2) << lt) * entry_bytes + 64 <= scratch) ++lt;
  t.max_team_log2 = lt;
  t.max_lane_log2 = std::min(t.max_lane_log2, lt);
  if (opt.slab_budget_bytes) t.slab_budget = opt.slab_budget_bytes;
  return t;
}

/// Bin of a row: -1 for rows without products, [0, nb - 1) for scratch
/// tables of 2^(bin + spgemm_min_log2) entries, nb - 1 for global rows.
template <class Products>
struct SpgemmBinOf {
  Products products;
  std::uint64_t ncols;
  int max_team_log2, nb;
  KOKKOS_INLINE_FUNCTION int operator()(std::int64_t i) const {
    const std::uint64_t p = products(i);
    if (p == 0) return -1;
    const int l = log2_exact(spgemm_table_capacity(p < ncols ? p : ncols));
    return l > max_team_log2 ? nb - 1 : l - spgemm_min_log2;
  }
};

/// Counts the rows per bin (scatter = false) or writes them to perm
/// (scatter = true).  Team-local histograms keep the global atomics to one
/// per team and bin.
template <class ExecSpace, class BinOf, class Counts, class Perm>
void spgemm_bin_histogram(const ExecSpace& space, std::int64_t m, std::int64_t chunk,
                          const BinOf& bin_of, int nb, const Counts& bin_count,
                          const Counts& cursor, const Perm& perm, const bool scatter) {
  const std::int64_t league = (m + chunk - 1) / chunk;
  if (league == 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int scratch = static_cast<int>(2 * nb * sizeof(long long));
  Kokkos::parallel_for(
      scatter ? "spk::spgemm::bin_scatter" : "spk::spgemm::bin_count",
      Policy(space, league, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const Member& member) {
        long long* local =
            static_cast<long long*>(member.team_scratch(0).get_shmem(2 * nb * sizeof(long long)));
        long long* base = local + nb;
        const std::int64_t r0 = member.league_rank() * chunk;
        const std::int64_t r1 = r0 + chunk < m ? r0 + chunk : m;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nb),
                             [&](const int b) { local[b] = 0; });
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, r0, r1), [&](const std::int64_t i) {
          const int b = bin_of(i);
          if (b >= 0) Kokkos::atomic_add(&local[b], 1LL);
        });
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nb), [&](const int b) {
          if (!scatter) {
            if (local[b]) Kokkos::atomic_add(&bin_count(b), local[b]);
          } else {
            base[b] = local[b] ? Kokkos::atomic_fetch_add(&cursor(b), local[b]) : 0;
            local[b] = 0;
          }
        });
        if (!scatter) return;
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, r0, r1), [&](const std::int64_t i) {
          const int b = bin_of(i);
          if (b >= 0) perm(base[b] + Kokkos::atomic_fetch_add(&local[b], 1LL)) = i;
        });
      });
}

/// Groups the rows by bin into perm; returns the bins (empty ones dropped).
template <class ExecSpace, class Products, class Perm>
std::vector<SpgemmBin> spgemm_bin_rows(const ExecSpace& space, std::int64_t m, std::uint64_t ncols,
                                       const Products& products, const Perm& perm,
                                       const SpgemmBinnedTuning& t) {
  const int nb = t.max_team_log2 - spgemm_min_log2 + 2;
  const SpgemmBinOf<Products> bin_of{products, ncols, t.max_team_log2, nb};
  using Dev = typename Perm::device_type;
  Kokkos::View<long long*, Dev> bin_count("spk::spgemm::bin_count", nb);
  Kokkos::View<long long*, Dev> cursor("spk::spgemm::bin_cursor", nb);
  const std::int64_t chunk = is_host_space_v<ExecSpace> ? 4096 : 1024;
  spgemm_bin_histogram(space, m, chunk, bin_of, nb, bin_count, cursor, perm, false);
  auto h_count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bin_count);
  auto h_cursor = Kokkos::create_mirror_view(cursor);
  std::vector<SpgemmBin> bins;
  long long at = 0;
  for (int b = 0; b < nb; ++b) {
    h_cursor(b) = at;
    if (h_count(b) > 0) {
      SpgemmBin bin;
      bin.begin = at;
      bin.end = at + h_count(b);
      if (b == nb - 1) {
        bin.group = 2;
        bin.log2_capacity = 0;
        bin.team_size = t.team_threads;
      } else {
        bin.log2_capacity = b + spgemm_min_log2;
        bin.group = bin.log2_capacity <= t.max_lane_log2 ? 0 : 1;
        if (bin.group == 0) {
          bin.team_size = t.lane_team_size;
        } else {
          // About two table slots per thread, up to the team size.
          const int threads = std::min<long long>(t.team_threads * t.vector_length,
                                                  std::max(1LL, (1LL << bin.log2_capacity) / 2));
          bin.team_size = std::max(1, threads / t.vector_length);
        }
      }
      bins.push_back(bin);
    }
    at += h_count(b);
  }
  Kokkos::deep_copy(cursor, h_cursor);
  spgemm_bin_histogram(space, m, chunk, bin_of, nb, bin_count, cursor, perm, true);
  return bins;
}

/// The arrays of A, B and C the kernels read and write.
template <class S, class O, class F, class Dev>
struct SpgemmViews {
  Kokkos::View<const F*, Dev> arm, brm, crm;
  Kokkos::View<const O*, Dev> aci, bci;
  Kokkos::View<const S*, Dev> av, bv;
  Kokkos::View<O*, Dev> cci;
  Kokkos::View<S*, Dev> cv;
};

// ---- symbolic ---------------------------------------------------------------

/// Counts the distinct columns of row i on a scratch table of cap slots.
template <class Group, class V, class O, class Counts>
KOKKOS_INLINE_FUNCTION void spgemm_symbolic_row(const Group& g, const V& v, std::int64_t i, O* keys,
                                                std::uint32_t cap, const Counts& counts) {
  using Acc = HashAccumulator<O, int>;
  const Acc h(keys, nullptr, cap);
  g.for_each(cap, [&](const std::uint32_t s) { keys[s] = Acc::empty_key; });
  g.barrier();
  g.for_products(i, v.arm, v.aci, v.brm, [&](const auto, const auto kb) {
    bool is_new;
    h.insert(v.bci(kb), is_new);
  });
  g.barrier();
  int count = 0;
  g.reduce_sum(
      cap, [&](const std::uint32_t s, int& c) { c += keys[s] != Acc::empty_key ? 1 : 0; }, count);
  g.single([&]() { counts(i + 1) = count; });
}

template <class ExecSpace, class V, class Perm, class Counts, class Products>
void spgemm_binned_symbolic(const ExecSpace& space, const V& v, const Perm& perm,
                            const std::vector<SpgemmBin>& bins, const Counts& counts,
                            const Products& products, std::uint64_t ncols,
                            const SpgemmBinnedTuning& t, std::uint64_t slab_capacity, int num_slabs,
                            bool slab_dense) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using Acc = HashAccumulator<O, int>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int V_ = t.vector_length;
  for (const SpgemmBin& bin : bins) {
    const std::int64_t begin = bin.begin, nr = bin.end - bin.begin;
    if (bin.group == 0) {
      const int T = bin.team_size;
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const std::size_t bytes = Acc::keys_bytes(cap);
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_lanes",
          Policy(space, (nr + T - 1) / T, T, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(T * bytes))),
          KOKKOS_LAMBDA(const Member& member) {
            char* base = static_cast<char*>(member.team_scratch(0).get_shmem(T * bytes));
            const std::int64_t r = std::int64_t(member.league_rank()) * T + member.team_rank();
            if (r >= nr) return;
            O* keys = reinterpret_cast<O*>(base + member.team_rank() * bytes);
            spgemm_symbolic_row(LaneGroup<Member>{member}, v, perm(begin + r), keys, cap, counts);
          });
    } else if (bin.group == 1) {
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const std::size_t bytes = Acc::keys_bytes(cap);
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_team",
          Policy(space, nr, bin.team_size, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(bytes))),
          KOKKOS_LAMBDA(const Member& member) {
            O* keys = static_cast<O*>(member.team_scratch(0).get_shmem(bytes));
            spgemm_symbolic_row(TeamGroup<Member>{member}, v, perm(begin + member.league_rank()),
                                keys, cap, counts);
          });
    } else {
      using Dev = typename Perm::device_type;
      const int L = static_cast<int>(std::min<std::int64_t>(num_slabs, nr));
      Kokkos::View<O*, Dev> slab(Kokkos::ViewAllocateWithoutInitializing("spk::spgemm::slab_keys"),
                                 L * slab_capacity);
      Kokkos::deep_copy(space, slab, Acc::empty_key);  // also "no row" for dense markers
      const std::uint64_t sc = slab_capacity;
      const bool dense = slab_dense;
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_global",
          Policy(space, L, bin.team_size, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(sizeof(long long)))),
          KOKKOS_LAMBDA(const Member& member) {
            long long* counter =
                static_cast<long long*>(member.team_scratch(0).get_shmem(sizeof(long long)));
            O* keys = slab.data() + member.league_rank() * sc;
            const TeamGroup<Member> g{member};
            for (std::int64_t r = member.league_rank(); r < nr; r += L) {
              const std::int64_t i = perm(begin + r);
              g.single([&]() { *counter = 0; });
              g.barrier();
              if (dense) {
                // keys[c] holds the last row that touched column c.
                g.for_products(i, v.arm, v.aci, v.brm, [&](const auto, const auto kb) {
                  if (Kokkos::atomic_exchange(&keys[v.bci(kb)], static_cast<O>(i)) !=
                      static_cast<O>(i))
                    Kokkos::atomic_add(counter, 1LL);
                });
                g.barrier();
                g.single([&]() { counts(i + 1) = *counter; });
              } else {
                const std::uint64_t p = products(i);
                const std::uint32_t cap =
                    static_cast<std::uint32_t>(spgemm_table_capacity(p < ncols ? p : ncols));
                const Acc h(keys, nullptr, cap);
                g.for_products(i, v.arm, v.aci, v.brm, [&](const auto, const auto kb) {
                  bool is_new;
                  h.insert(v.bci(kb), is_new);
                  if (is_new) Kokkos::atomic_add(counter, 1LL);
                });
                g.barrier();
                g.single([&]() { counts(i + 1) = *counter; });
                g.for_each(cap, [&](const std::uint32_t s) { keys[s] = Acc::empty_key; });
              }
              g.barrier();
            }
          });
    }
  }
}

// ---- numeric ----------------------------------------------------------------

/// Sums the products of row i on a scratch table and writes the row of C
/// (sorted: compacted to C, brought back to scratch and bitonic-sorted there).
template <class Group, class V, class O, class S>
KOKKOS_INLINE_FUNCTION void spgemm_numeric_row(const Group& g, const V& v, std::int64_t i, O* keys,
                                               S* vals, int* counter, std::uint32_t cap,
                                               bool sorted) {
  using Acc = HashAccumulator<O, S>;
  const Acc h(keys, vals, cap);
  g.for_each(cap, [&](const std::uint32_t s) { h.clear(s); });
  g.single([&]() { *counter = 0; });
  g.barrier();
  g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
    h.accumulate(v.bci(kb), v.av(ka) * v.bv(kb));
  });
  g.barrier();
  const auto start = v.crm(i);
  const std::uint32_t n = static_cast<std::uint32_t>(v.crm(i + 1) - start);
  O* cci = v.cci.data() + start;
  S* cv = v.cv.data() + start;
  g.for_each(cap, [&](const std::uint32_t s) {
    if (keys[s] != Acc::empty_key) {
      const int pos = Kokkos::atomic_fetch_add(counter, 1);
      cci[pos] = keys[s];
      cv[pos] = vals[s];
    }
  });
  g.barrier();
  if (!sorted || n < 2) return;
  g.for_each(n, [&](const std::uint32_t s) {
    keys[s] = cci[s];
    vals[s] = cv[s];
  });
  g.barrier();
  group_bitonic_sort(g, keys, vals, n);
  g.for_each(n, [&](const std::uint32_t s) {
    cci[s] = keys[s];
    cv[s] = vals[s];
  });
}

/// Writes the columns of a dense slab marked with `row` to cci/cv in
/// increasing order (zeroing their values): each thread takes a contiguous
/// chunk of columns, its lanes scan it; part[] holds a count per thread.
/// Vector ranges start at 0 (Kokkos 4.6's CUDA vector scan ignores a range's
/// start).
template <class Member, class O, class S>
KOKKOS_INLINE_FUNCTION void spgemm_ordered_extract(const Member& member, const O* keys, S* vals,
                                                   O row, std::uint64_t ncols, O* cci, S* cv,
                                                   long long* part) {
  const int T = member.team_size();
  const std::uint64_t chunk = (ncols + T - 1) / T;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, T), [&](const int t) {
    const std::uint64_t c0 = t * chunk, c1 = c0 + chunk < ncols ? c0 + chunk : ncols;
    const int len = c0 < c1 ? static_cast<int>(c1 - c0) : 0;
    long long k = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(member, len),
        [&](const int q, long long& sum) { sum += keys[c0 + q] == row ? 1 : 0; }, k);
    Kokkos::single(Kokkos::PerThread(member), [&]() { part[t] = k; });
  });
  member.team_barrier();
  Kokkos::single(Kokkos::PerTeam(member), [&]() {
    long long sum = 0;
    for (int t = 0; t < T; ++t) {
      const long long k = part[t];
      part[t] = sum;
      sum += k;
    }
  });
  member.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, T), [&](const int t) {
    const std::uint64_t c0 = t * chunk, c1 = c0 + chunk < ncols ? c0 + chunk : ncols;
    const int len = c0 < c1 ? static_cast<int>(c1 - c0) : 0;
    const long long base = part[t];
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(member, len),
                          [&](const int q, long long& pos, const bool final) {
                            const std::uint64_t c = c0 + q;
                            const bool hit = keys[c] == row;
                            if (final && hit) {
                              cci[base + pos] = static_cast<O>(c);
                              cv[base + pos] = vals[c];
                              vals[c] = S(0);
                            }
                            pos += hit ? 1 : 0;
                          });
  });
}

template <class ExecSpace, class V, class Perm>
void spgemm_binned_numeric(const ExecSpace& space, const V& v, const Perm& perm,
                           const std::vector<SpgemmBin>& bins, std::uint64_t ncols,
                           const SpgemmBinnedTuning& t, std::uint64_t slab_capacity, int num_slabs,
                           bool slab_dense, bool sorted) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  using Acc = HashAccumulator<O, S>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Dev = typename Perm::device_type;
  const int V_ = t.vector_length;
  for (const SpgemmBin& bin : bins) {
    const std::int64_t begin = bin.begin, nr = bin.end - bin.begin;
    if (bin.group == 0 || bin.group == 1) {
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const std::size_t kbytes = Acc::keys_bytes(cap);
      const std::size_t bytes = Acc::bytes(cap, true) + 8;  // + the compaction counter
      const int T = bin.team_size;
      const bool lanes = bin.group == 0;
      const int rows_per_team = lanes ? T : 1;
      Kokkos::parallel_for(
          lanes ? "spk::spgemm::numeric_lanes" : "spk::spgemm::numeric_team",
          Policy(space, (nr + rows_per_team - 1) / rows_per_team, T, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(rows_per_team * bytes))),
          KOKKOS_LAMBDA(const Member& member) {
            char* base =
                static_cast<char*>(member.team_scratch(0).get_shmem(rows_per_team * bytes));
            const int slot = lanes ? member.team_rank() : 0;
            const std::int64_t r = std::int64_t(member.league_rank()) * rows_per_team + slot;
            if (r >= nr) return;
            char* mine = base + slot * bytes;
            O* keys = reinterpret_cast<O*>(mine);
            S* vals = reinterpret_cast<S*>(mine + kbytes);
            int* counter = reinterpret_cast<int*>(mine + bytes - 8);
            const std::int64_t i = perm(begin + r);
            if (lanes)
              spgemm_numeric_row(LaneGroup<Member>{member}, v, i, keys, vals, counter, cap, sorted);
            else
              spgemm_numeric_row(TeamGroup<Member>{member}, v, i, keys, vals, counter, cap, sorted);
          });
    } else {
      const int L = static_cast<int>(std::min<std::int64_t>(num_slabs, nr));
      Kokkos::View<O*, Dev> slab_keys(
          Kokkos::ViewAllocateWithoutInitializing("spk::spgemm::slab_keys"), L * slab_capacity);
      Kokkos::View<S*, Dev> slab_vals("spk::spgemm::slab_values", L * slab_capacity);
      Kokkos::deep_copy(space, slab_keys, Acc::empty_key);
      const std::uint64_t sc = slab_capacity;
      const bool dense = slab_dense;
      Kokkos::parallel_for(
          "spk::spgemm::numeric_global",
          Policy(space, L, bin.team_size, V_)
              .set_scratch_size(
                  0, Kokkos::PerTeam(static_cast<int>(sizeof(long long) * (1 + bin.team_size)))),
          KOKKOS_LAMBDA(const Member& member) {
            long long* counter = static_cast<long long*>(
                member.team_scratch(0).get_shmem(sizeof(long long) * (1 + member.team_size())));
            O* keys = slab_keys.data() + member.league_rank() * sc;
            S* vals = slab_vals.data() + member.league_rank() * sc;
            const TeamGroup<Member> g{member};
            for (std::int64_t r = member.league_rank(); r < nr; r += L) {
              const std::int64_t i = perm(begin + r);
              const auto start = v.crm(i);
              const std::uint32_t n = static_cast<std::uint32_t>(v.crm(i + 1) - start);
              O* cci = v.cci.data() + start;
              S* cv = v.cv.data() + start;
              g.single([&]() { *counter = 0; });
              g.barrier();
              // Dense rows whose sort would cost more than a pass over the
              // columns come out sorted from an ordered scan of the slab.
              const double lg = log2_exact(next_pow2(n > 0 ? n : 1));
              const bool scan = dense && sorted && double(ncols) < 0.25 * n * lg * lg;
              if (dense) {
                // vals[c] accumulates column c (zero between rows); keys[c]
                // marks the last row that touched it.  Without the scan, the
                // first toucher appends c to the row of C.
                g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
                  const O c = v.bci(kb);
                  Kokkos::atomic_add(&vals[c], v.av(ka) * v.bv(kb));
                  if (scan)
                    keys[c] = static_cast<O>(i);
                  else if (Kokkos::atomic_exchange(&keys[c], static_cast<O>(i)) !=
                           static_cast<O>(i))
                    cci[Kokkos::atomic_fetch_add(counter, 1LL)] = c;
                });
                g.barrier();
                if (scan) {
                  spgemm_ordered_extract(member, keys, vals, static_cast<O>(i), ncols, cci, cv,
                                         counter + 1);
                } else {
                  g.for_each(n, [&](const std::uint32_t s) {
                    const O c = cci[s];
                    cv[s] = vals[c];
                    vals[c] = S(0);
                  });
                }
              } else {
                std::uint64_t p = 0;
                Kokkos::parallel_reduce(
                    Kokkos::TeamThreadRange(member, v.arm(i), v.arm(i + 1)),
                    [&](const auto ka, std::uint64_t& sum) {
                      const auto k = v.aci(ka);
                      sum += static_cast<std::uint64_t>(v.brm(k + 1) - v.brm(k));
                    },
                    p);
                const std::uint32_t cap =
                    static_cast<std::uint32_t>(spgemm_table_capacity(p < ncols ? p : ncols));
                const Acc h(keys, vals, cap);
                g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
                  h.accumulate(v.bci(kb), v.av(ka) * v.bv(kb));
                });
                g.barrier();
                g.for_each(cap, [&](const std::uint32_t s) {
                  if (keys[s] != Acc::empty_key) {
                    const long long pos = Kokkos::atomic_fetch_add(counter, 1LL);
                    cci[pos] = keys[s];
                    cv[pos] = vals[s];
                    h.clear(s);
                  }
                });
              }
              g.barrier();
              if (sorted && !scan) group_bitonic_sort(g, cci, cv, n);
            }
          });
    }
  }
}

}  // namespace spk::Impl
