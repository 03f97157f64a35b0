// Kernels behind spk_convert.hpp.
#pragma once

#include <algorithm>
#include <impl/spk_atomic.hpp>
#include <impl/spk_row_blocks.hpp>
#include <impl/spk_segmented_sort.hpp>
#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <vector>

namespace spk::Impl {

template <class ExecSpace, class DeviceLike>
void check_access(const char* what) {
  using MemSpace = typename device_t<DeviceLike>::memory_space;
  static_assert(is_accessible_v<ExecSpace, MemSpace>,
                "spk: the execution space cannot access the matrix's memory space; copy the "
                "matrix first (spk::create_mirror_view_and_copy)");
  (void)what;
}

/// The body of an in-place exclusive scan of v (see exclusive_scan).
template <class View>
struct ExclusiveScanBody {
  using T = typename View::non_const_value_type;
  using value_type = T;
  View v;
  KOKKOS_INLINE_FUNCTION void operator()(const long long i, T& update, const bool final) const {
    const T x = v(i);
    if (final) v(i) = update;
    update += x;
  }
};

/// In-place exclusive scan of v[0, n]; v(n) must hold 0 on entry or be a
/// count too.  Returns the total.
template <class ExecSpace, class View>
typename View::non_const_value_type exclusive_scan(const ExecSpace& space, const View& v,
                                                   long long n) {
  typename View::non_const_value_type total = 0;
  Kokkos::parallel_scan("spk::exclusive_scan", Kokkos::RangePolicy<ExecSpace>(space, 0, n + 1),
                        ExclusiveScanBody<View>{v}, total);
  return total;
}

/// exclusive_scan without reading the total back: v(n) holds it, and the
/// scan is only queued on `space`.
template <class ExecSpace, class View>
void exclusive_scan_queued(const ExecSpace& space, const View& v, long long n) {
  Kokkos::parallel_scan("spk::exclusive_scan_queued",
                        Kokkos::RangePolicy<ExecSpace>(space, 0, n + 1),
                        ExclusiveScanBody<View>{v});
}

/// Compares entry numbers by (key(a), a): sorts by key, ties in entry order.
template <class Keys>
struct KeyThenIndexLess {
  Keys key;
  template <class I>
  KOKKOS_INLINE_FUNCTION bool operator()(const I a, const I b) const {
    return key(a) < key(b) || (key(a) == key(b) && a < b);
  }
};

/// Compares entry numbers directly (their order is row-major order).
struct IndexLess {
  template <class I>
  KOKKOS_INLINE_FUNCTION bool operator()(const I a, const I b) const {
    return a < b;
  }
};

/// Buckets entries by a "major" index: map gets the bucket pointers and
/// perm the entry numbers of each bucket, sorted by `less`.  `major_of` is
/// the View of each entry's major index.  Returns whether a bucket was
/// longer than wide_len (see segmented_sort).
template <class ExecSpace, class Map, class MajorOf, class Perm, class Less>
static bool bucket_entries(const ExecSpace& space, long long num_major, long long nnz,
                           const Map& map, const MajorOf& major_of, const Perm& perm,
                           const Less& less,
                           long long wide_len = wide_segment_length<ExecSpace>()) {
  using F = typename Map::non_const_value_type;
  Kokkos::parallel_for(
      "spk::bucket::count", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) { atomic_fetch_add_integer(&map(major_of(k) + 1), F(1)); });
  // map(0) = 0 and map(i + 1) = count(i): a scan of map gives the pointers.
  Kokkos::parallel_scan(
      "spk::bucket::scan", Kokkos::RangePolicy<ExecSpace>(space, 0, num_major + 1),
      KOKKOS_LAMBDA(const long long i, F& update, const bool final) {
        update += map(i);
        if (final) map(i) = update;
      });
  Map cursor(Kokkos::ViewAllocateWithoutInitializing("spk::bucket::cursor"), num_major + 1);
  Kokkos::deep_copy(space, cursor, map);
  Kokkos::parallel_for(
      "spk::bucket::scatter", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) {
        const F p = atomic_fetch_add_integer(&cursor(major_of(k)), F(1));
        perm(p) = static_cast<typename Perm::non_const_value_type>(k);
      });
  return segmented_sort(space, map, num_major, perm, less, wide_len);
}

/// A CSR matrix over the given row pointers, its `nnz` columns and values
/// allocated but not initialised (the caller fills them).
template <class Matrix>
Matrix csr_for_row_map(typename Matrix::ordinal_type m, typename Matrix::ordinal_type n,
                       const typename Matrix::row_map_type& row_map, long long nnz) {
  return Matrix(
      m, n, row_map,
      typename Matrix::index_type(Kokkos::ViewAllocateWithoutInitializing("csr.col_idx"), nnz),
      typename Matrix::values_type(Kokkos::ViewAllocateWithoutInitializing("csr.values"), nnz));
}

/// Calls f(column, sum) for each run of equal columns among bucket i's
/// entries (perm order), summing the run's values in that order.
template <class Bucket, class Perm, class Cols, class Vals, class Fn>
KOKKOS_INLINE_FUNCTION void for_each_run(const Bucket& bucket, const Perm& perm, const Cols& ci,
                                         const Vals& va, const long long i, const Fn& f) {
  using F = typename Bucket::non_const_value_type;
  using O = typename Cols::non_const_value_type;
  using S = typename Vals::non_const_value_type;
  for (F p = bucket(i); p < bucket(i + 1);) {
    const O c = ci(perm(p));
    S sum = 0;
    for (; p < bucket(i + 1) && ci(perm(p)) == c; ++p) sum += va(perm(p));
    f(c, sum);
  }
}

/// The bucketed entries of coo_to_csr (perm sorted by row, then column, then
/// entry number) merged into C's rows, a thread per row: each row's
/// (row, column) runs summed in input order, zero sums dropped if asked.
template <class ExecSpace, class Matrix, class Coo, class Bucket, class Perm>
static Matrix merge_rows_by_row(const ExecSpace& space, const Coo& A, const Bucket& bucket,
                                const Perm& perm, bool drop_zeros) {
  using S = typename Matrix::non_const_scalar_type;
  using O = typename Matrix::ordinal_type;
  using F = typename Matrix::offset_type;
  const long long m = A.num_rows();
  auto ci = A.col_idx();
  auto va = A.values();
  typename Matrix::row_map_type row_map("spk::coo_to_csr::row_map", m + 1);
  Kokkos::parallel_for(
      "spk::coo_to_csr::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        F kept = 0;
        for_each_run(bucket, perm, ci, va, i,
                     [&](const O, const S& sum) { kept += !(drop_zeros && sum == S(0)); });
        row_map(i) = kept;
      });
  const F total = exclusive_scan(space, row_map, m);
  const Matrix C = csr_for_row_map<Matrix>(A.num_rows(), A.num_cols(), row_map, total);
  auto cc = C.col_idx();
  auto cv = C.values();
  Kokkos::parallel_for(
      "spk::coo_to_csr::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        F o = row_map(i);
        for_each_run(bucket, perm, ci, va, i, [&](const O c, const S& sum) {
          if (drop_zeros && sum == S(0)) return;
          cc(o) = c;
          cv(o) = sum;
          ++o;
        });
      });
  return C;
}

/// The same merge a thread per (row, column) run, for rows too long for one
/// thread (a dense row of millions of entries took seconds in
/// merge_rows_by_row on a GPU): runs are found by comparing neighbours in
/// perm, numbered by a scan, summed, and the kept ones placed by a second
/// scan; a row's pointer is the place of its first run.
template <class ExecSpace, class Matrix, class Coo, class Bucket, class Perm>
static Matrix merge_rows_by_run(const ExecSpace& space, const Coo& A, const Bucket& bucket,
                                const Perm& perm, bool drop_zeros) {
  using S = typename Matrix::non_const_scalar_type;
  using F = typename Matrix::offset_type;
  using D = typename Matrix::device_type;
  const long long m = A.num_rows(), nnz = A.nnz();
  auto ri = A.row_idx();
  auto ci = A.col_idx();
  auto va = A.values();
  // run_of(p): the number of runs that start before entry p.
  Kokkos::View<F*, D> run_of(Kokkos::ViewAllocateWithoutInitializing("spk::coo_to_csr::run_of"),
                             nnz + 1);
  Kokkos::parallel_for(
      "spk::coo_to_csr::run_heads", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz + 1),
      KOKKOS_LAMBDA(const long long p) {
        run_of(p) =
            p < nnz && (p == 0 || ri(perm(p)) != ri(perm(p - 1)) || ci(perm(p)) != ci(perm(p - 1)));
      });
  const long long runs = exclusive_scan(space, run_of, nnz);
  Kokkos::View<F*, D> run_start(
      Kokkos::ViewAllocateWithoutInitializing("spk::coo_to_csr::run_start"), runs + 1);
  Kokkos::parallel_for(
      "spk::coo_to_csr::run_starts", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz + 1),
      KOKKOS_LAMBDA(const long long p) {
        if (p == nnz)
          run_start(runs) = static_cast<F>(nnz);
        else if (run_of(p + 1) != run_of(p))
          run_start(run_of(p)) = static_cast<F>(p);
      });
  Kokkos::View<S*, D> run_sum(Kokkos::ViewAllocateWithoutInitializing("spk::coo_to_csr::run_sum"),
                              runs);
  Kokkos::View<F*, D> place(Kokkos::ViewAllocateWithoutInitializing("spk::coo_to_csr::place"),
                            runs + 1);
  Kokkos::parallel_for(
      "spk::coo_to_csr::run_sums", Kokkos::RangePolicy<ExecSpace>(space, 0, runs + 1),
      KOKKOS_LAMBDA(const long long r) {
        if (r == runs) {
          place(r) = 0;
          return;
        }
        // (Runs are duplicates of one entry, normally a handful.)
        S sum = 0;
        for (F q = run_start(r); q < run_start(r + 1); ++q) sum += va(perm(q));
        run_sum(r) = sum;
        place(r) = !(drop_zeros && sum == S(0));
      });
  const F total = exclusive_scan(space, place, runs);
  typename Matrix::row_map_type row_map(
      Kokkos::ViewAllocateWithoutInitializing("spk::coo_to_csr::row_map"), m + 1);
  // A row's entries start at bucket(i), the head of its first run (or of
  // the next row's, or nnz, when it has none).
  Kokkos::parallel_for(
      "spk::coo_to_csr::row_pointers", Kokkos::RangePolicy<ExecSpace>(space, 0, m + 1),
      KOKKOS_LAMBDA(const long long i) {
        const long long p = bucket(i);
        row_map(i) = p < nnz ? place(run_of(p)) : total;
      });
  const Matrix C = csr_for_row_map<Matrix>(A.num_rows(), A.num_cols(), row_map, total);
  auto cc = C.col_idx();
  auto cv = C.values();
  Kokkos::parallel_for(
      "spk::coo_to_csr::run_fill", Kokkos::RangePolicy<ExecSpace>(space, 0, runs),
      KOKKOS_LAMBDA(const long long r) {
        if (place(r + 1) == place(r)) return;  // dropped
        cc(place(r)) = ci(perm(run_start(r)));
        cv(place(r)) = run_sum(r);
      });
  return C;
}

/// COO -> CSR: entries bucketed by row and sorted by column (segmented
/// sort), then merged.  Rows longer than wide_len (GPUs: the segmented
/// sort's wide length) switch the merge from a thread per row to a thread
/// per run; the argument lets tests force either path.
template <class ExecSpace, class S, class O, class F, class D>
static CsrMatrix<S, O, F, D> coo_to_csr(const ExecSpace& space, const CooMatrix<S, O, F, D>& A,
                                        bool drop_zeros,
                                        long long wide_len = wide_segment_length<ExecSpace>()) {
  using Matrix = CsrMatrix<S, O, F, D>;
  const long long m = A.num_rows(), nnz = A.nnz();
  auto ci = A.col_idx();
  typename Matrix::row_map_type bucket("spk::coo_to_csr::bucket", m + 1);
  Kokkos::View<F*, D> perm(Kokkos::ViewAllocateWithoutInitializing("spk::coo_to_csr::perm"), nnz);
  const bool wide = bucket_entries(space, m, nnz, bucket, A.row_idx(), perm,
                                   KeyThenIndexLess<decltype(ci)>{ci}, wide_len);
  return wide ? merge_rows_by_run<ExecSpace, Matrix>(space, A, bucket, perm, drop_zeros)
              : merge_rows_by_row<ExecSpace, Matrix>(space, A, bucket, perm, drop_zeros);
}

// (No deduced return types around KOKKOS_LAMBDA: nvcc forbids them.)
template <class Ordinal, class Offset, class ExecSpace, class DenseView>
static CsrMatrix<typename DenseView::non_const_value_type, Ordinal, Offset,
                 typename DenseView::device_type>
dense_to_csr(const ExecSpace& space, const DenseView& dense) {
  using S = typename DenseView::non_const_value_type;
  using D = typename DenseView::device_type;
  using Matrix = CsrMatrix<S, Ordinal, Offset, D>;
  const long long m = dense.extent(0), n = dense.extent(1);
  SPK_REQUIRE(m <= std::numeric_limits<Ordinal>::max() && n <= std::numeric_limits<Ordinal>::max(),
              Overflow, "dense_to_csr: ", m, " x ", n, " does not fit the ordinal type");
  typename Matrix::row_map_type row_map("spk::dense_to_csr::row_map", m + 1);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int team = is_host_space_v<ExecSpace> ? 1 : 128;
  const int vec = 1;
  Kokkos::parallel_for(
      "spk::dense_to_csr::count", Policy(space, m, team, vec), KOKKOS_LAMBDA(const Member& t) {
        const long long i = t.league_rank();
        long long count = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(t, n),
            [&](const long long j, long long& c) { c += dense(i, j) != S(0); }, count);
        Kokkos::single(Kokkos::PerTeam(t), [&]() { row_map(i) = static_cast<Offset>(count); });
      });
  // Offsets may overflow: sum in 64 bits first.
  long long total = 0;
  Kokkos::parallel_reduce(
      "spk::dense_to_csr::total", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, long long& s) { s += row_map(i); }, total);
  SPK_REQUIRE(fits_integer<Offset>(total), Overflow, "dense_to_csr: ", total,
              " nonzeros do not fit the offset type (max ", +std::numeric_limits<Offset>::max(),
              ")");
  exclusive_scan(space, row_map, m);
  Matrix C(
      static_cast<Ordinal>(m), static_cast<Ordinal>(n), row_map,
      typename Matrix::index_type(Kokkos::ViewAllocateWithoutInitializing("csr.col_idx"), total),
      typename Matrix::values_type(Kokkos::ViewAllocateWithoutInitializing("csr.values"), total));
  auto cc = C.col_idx();
  auto cv = C.values();
  Kokkos::parallel_for(
      "spk::dense_to_csr::fill", Policy(space, m, team, vec), KOKKOS_LAMBDA(const Member& t) {
        const long long i = t.league_rank();
        const Offset base = row_map(i);
        // Ordered compaction: a team scan gives each nonzero its slot.
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(t, n),
                              [&](const long long j, long long& slot, const bool final) {
                                const S x = dense(i, j);
                                if (x != S(0)) {
                                  if (final) {
                                    cc(base + slot) = static_cast<Ordinal>(j);
                                    cv(base + slot) = x;
                                  }
                                  ++slot;
                                }
                              });
      });
  return C;
}

template <class ExecSpace, class S, class O, class F, class D>
static CooMatrix<S, O, F, D> csr_to_coo(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A) {
  CooMatrix<S, O, F, D> C("coo", A.num_rows(), A.num_cols(), A.nnz());
  auto rm = A.row_map();
  auto ri = C.row_idx();
  Kokkos::parallel_for(
      "spk::csr_to_coo::rows", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_rows()),
      KOKKOS_LAMBDA(const long long i) {
        for (F k = rm(i); k < rm(i + 1); ++k) ri(k) = static_cast<O>(i);
      });
  Kokkos::deep_copy(space, C.col_idx(), A.col_idx());
  Kokkos::deep_copy(space, C.values(), A.values());
  return C;
}

template <class Map, class Idx, class Val>
struct Compressed {
  Map map;
  Idx idx;
  Val val;
};

/// Host threads for transpose_compressed_host: at most the space's
/// concurrency, and few enough that their count arrays (one entry per minor
/// index each) cost no more than about four passes over the entries.
inline long long host_transpose_threads(long long threads, long long n_minor, long long nnz) {
  const long long by_memory = (4 * nnz + 65536) / (n_minor + 1);
  return std::max(1LL, std::min(threads, by_memory));
}

/// transpose_compressed on a host space, the way a serial transpose works
/// but over T blocks of major indices of about equal rows + entries
/// (row_block_start): each block
/// counts its entries per minor index, the counts are turned into each
/// block's write positions (block t's entries of minor j follow those of
/// blocks < t), and each block scatters its entries in major order.  No
/// atomics and no sort: every bucket comes out in ascending major order,
/// duplicates in their input order.  (The bucket path below, made for
/// GPUs, ran several times slower than the serial reference on 2 cores.)
template <class ExecSpace, class O, class Map, class Idx, class Val>
Compressed<Map, Idx, Val> transpose_compressed_host(const ExecSpace& space, O n_major, O n_minor,
                                                    const Map& map, const Idx& idx,
                                                    const Val& val) {
  using F = typename Map::non_const_value_type;
  const long long nnz = idx.extent(0), nj = n_minor;
  const long long T = host_transpose_threads(concurrency(space), nj, nnz);
  Map t_map(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::map"),
            static_cast<size_t>(nj) + 1);
  Idx t_idx(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::idx"), nnz);
  Val t_val(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::val"), nnz);
  // Block t is the major indices [first(t), first(t + 1)), of about equal
  // rows + entries.
  std::vector<long long> first(T + 1);
  for (long long t = 0; t <= T; ++t) first[t] = row_block_start(map, n_major, nnz, t, T);
  // Block t's counts, then its write positions, per minor index j:
  // pos[t * nj + j].
  Kokkos::View<F*, Kokkos::HostSpace> pos(
      Kokkos::ViewAllocateWithoutInitializing("spk::transpose::pos"), static_cast<size_t>(T * nj));
  const long long* fb = first.data();
  auto blocks = Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, T);
  Kokkos::parallel_for("spk::transpose::count", blocks, [=](const long long t) {
    F* cnt = pos.data() + t * nj;
    std::fill(cnt, cnt + nj, F(0));
    for (F k = map(fb[t]); k < map(fb[t + 1]); ++k) ++cnt[idx(k)];
  });
  // Column lengths, scanned into t_map; then each block's start per column.
  Kokkos::parallel_for("spk::transpose::lengths", Kokkos::RangePolicy<ExecSpace>(space, 0, nj + 1),
                       [=](const long long j) {
                         F len = 0;
                         if (j < nj)
                           for (long long t = 0; t < T; ++t) len += pos(t * nj + j);
                         t_map(j) = len;
                       });
  exclusive_scan(space, t_map, nj);
  Kokkos::parallel_for("spk::transpose::starts", Kokkos::RangePolicy<ExecSpace>(space, 0, nj),
                       [=](const long long j) {
                         F at = t_map(j);
                         for (long long t = 0; t < T; ++t) {
                           const F c = pos(t * nj + j);
                           pos(t * nj + j) = at;
                           at += c;
                         }
                       });
  Kokkos::parallel_for("spk::transpose::scatter", blocks, [=](const long long t) {
    F* next = pos.data() + t * nj;
    for (long long i = fb[t]; i < fb[t + 1]; ++i)
      for (F k = map(i); k < map(i + 1); ++k) {
        const F p = next[idx(k)]++;
        t_idx(p) = static_cast<typename Idx::non_const_value_type>(i);
        t_val(p) = val(k);
      }
  });
  space.fence();  // `first` goes out of scope
  return Compressed<Map, Idx, Val>{t_map, t_idx, t_val};
}

/// Transposes a compressed structure (n_major × n_minor, pointers over the
/// major index) into one over the minor index; minor-bucket entries come out
/// in ascending major order (stable for duplicates).
template <class ExecSpace, class O, class Map, class Idx, class Val>
static Compressed<Map, Idx, Val> transpose_compressed(const ExecSpace& space, O n_major, O n_minor,
                                                      const Map& map, const Idx& idx,
                                                      const Val& val) {
  using F = typename Map::non_const_value_type;
  using D = typename Map::device_type;
  if constexpr (is_host_space_v<ExecSpace>)
    return transpose_compressed_host(space, n_major, n_minor, map, idx, val);
  const long long nnz = idx.extent(0);
  Map t_map("spk::transpose::map", static_cast<size_t>(n_minor) + 1);
  Kokkos::View<F*, D> perm(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::perm"), nnz);
  bucket_entries(space, n_minor, nnz, t_map, idx, perm, IndexLess{});
  // Major index of each entry: expand the pointers, then gather.
  Idx major_of(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::major"), nnz);
  Kokkos::parallel_for(
      "spk::transpose::expand", Kokkos::RangePolicy<ExecSpace>(space, 0, n_major),
      KOKKOS_LAMBDA(const long long i) {
        for (F k = map(i); k < map(i + 1); ++k) major_of(k) = static_cast<O>(i);
      });
  Idx t_idx(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::idx"), nnz);
  Val t_val(Kokkos::ViewAllocateWithoutInitializing("spk::transpose::val"), nnz);
  Kokkos::parallel_for(
      "spk::transpose::gather", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long p) {
        const F k = perm(p);
        t_idx(p) = major_of(k);
        t_val(p) = val(k);
      });
  return Compressed<Map, Idx, Val>{t_map, t_idx, t_val};
}

template <class ExecSpace, class S, class O, class F, class D>
static Kokkos::View<S**, Kokkos::LayoutRight, typename CsrMatrix<S, O, F, D>::device_type>
csr_to_dense(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A) {
  Kokkos::View<S**, Kokkos::LayoutRight, typename CsrMatrix<S, O, F, D>::device_type> out(
      "dense", A.num_rows(), A.num_cols());
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  Kokkos::parallel_for(
      "spk::csr_to_dense", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_rows()),
      KOKKOS_LAMBDA(const long long i) {
        for (F k = rm(i); k < rm(i + 1); ++k) out(i, ci(k)) += va(k);
      });
  return out;
}

template <class ExecSpace, class O, class RowMap, class Idx, class Val>
static void sort_rows(const ExecSpace& space, O num_rows, const RowMap& rm, const Idx& ci,
                      const Val& va) {
  using F = typename RowMap::non_const_value_type;
  using D = typename RowMap::device_type;
  const long long nnz = ci.extent(0);
  if (num_rows == 0 || nnz == 0) return;
  Kokkos::View<F*, D> perm(Kokkos::ViewAllocateWithoutInitializing("spk::sort_rows::perm"), nnz);
  Kokkos::parallel_for(
      "spk::sort_rows::iota", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) { perm(k) = static_cast<F>(k); });
  segmented_sort(space, rm, num_rows, perm, KeyThenIndexLess<Idx>{ci});
  auto ci_old = Kokkos::create_mirror(typename D::memory_space(), ci);
  auto va_old = Kokkos::create_mirror(typename D::memory_space(), va);
  Kokkos::deep_copy(space, ci_old, ci);
  Kokkos::deep_copy(space, va_old, va);
  Kokkos::parallel_for(
      "spk::sort_rows::gather", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long p) {
        ci(p) = ci_old(perm(p));
        va(p) = va_old(perm(p));
      });
}

}  // namespace spk::Impl
