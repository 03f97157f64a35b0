// ThreadDense SpGEMM (host spaces): Gustavson's algorithm, a row at a time per
// thread.  Rows are cut into blocks of about equal work (products plus a
// per-row cost) that the threads take dynamically.  Each thread owns, for
// the whole phase, a bitset over B's columns, the list of the bitset words a
// row touched, a summary bitset (one bit per word) and, in numeric, dense
// values over B's columns (all-zero between rows: a row reads back and
// resets only what it touched).
//  - Symbolic counts a row's distinct columns with the bitset, branch-free.
//    When B's rows compress well into (word, mask) pairs (banded, blocked and
//    many graph matrices), it ORs whole masks and counts new bits with
//    popcount.
//  - Numeric adds the products into the dense values and marks the bitset
//    (from the compressed pairs when B compresses; otherwise prefetching B's
//    rows a few entries of A ahead); the row comes out sorted without sorting
//    its columns: its touched words are insertion-sorted (up to 16), sorted
//    by an AVX-512 network (up to 64, where the CPU has it), or read off the
//    summary (O(columns / 4096 + entries); branch-free when it holds fewer
//    than 4 words per summary word).
// When the dense accumulators do not fit SpgemmOptions::slab_budget_bytes,
// every row uses a per-thread hash table instead (sized for the longest row;
// columns sorted at the end).  A per-row hash table for wide B was measured
// and lost to the dense values up to 490000 columns (random and Poisson).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <impl/spk_host_small_sort.hpp>
#include <memory>
#include <spk_error.hpp>
#include <spk_memory_pool.hpp>
#include <tuning/spk_spgemm_tuning.hpp>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

// Row kernels that must inline into their callers' loops: left to the
// compiler, the choice changed with unrelated code, and with it the speed
// (poisson2d's one call 3.57 -> 3.90 ms when the compressed variant stayed a
// call).
#if defined(__GNUC__)
#define SPK_HOST_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SPK_HOST_ALWAYS_INLINE inline
#endif

namespace spk::Impl {

// The tuning constants of these kernels are SpgemmHostPolicy's
// (spk_spgemm_tuning.hpp).

inline std::uint64_t host_pow2_at_least(std::uint64_t x) {
  std::uint64_t c = 1;
  while (c < x) c <<= 1;
  return c;
}

/// Hash capacity of a row with `bound` distinct columns at most: a power of
/// two, at least twice the bound (fill <= 1/2), at least 16.
inline std::uint64_t host_hash_capacity(std::uint64_t bound) {
  return std::max<std::uint64_t>(16, host_pow2_at_least(2 * bound));
}

/// Per-thread stride (in T) of an array of n T: whole 128-byte lines plus
/// one, so that threads never share a line (nor an adjacent-line prefetch).
template <class T>
inline std::uint64_t host_stride(std::uint64_t n) {
  const std::uint64_t per_line = 128 / sizeof(T);
  return n == 0 ? 0 : (n + per_line - 1) / per_line * per_line + per_line;
}

/// Per-thread "accumulator cleared" flags, all false (set on the host: no
/// parallel dispatch for a few bytes).
inline Kokkos::View<std::uint8_t*, Kokkos::HostSpace> host_flags(int n) {
  Kokkos::View<std::uint8_t*, Kokkos::HostSpace> f(
      Kokkos::ViewAllocateWithoutInitializing("spk::spgemm::thread_ready"), n);
  for (int t = 0; t < n; ++t) f(t) = 0;
  return f;
}

/// n values of T of host memory for one call's work, from spk's host pool
/// when large (spk_memory_pool.hpp): kept alive by `owners`.
template <class T>
Kokkos::View<T*, Kokkos::HostSpace> host_work_view(std::vector<std::shared_ptr<void>>& owners,
                                                   const char* label, std::size_t n) {
  return pooled_view<Kokkos::View<T*, Kokkos::HostSpace>>(Kokkos::DefaultHostExecutionSpace(),
                                                          owners, label, n);
}

/// Per-thread numeric accumulators of the host kernels, allocated once per
/// call: the bitset with its summary and list of touched words, and dense
/// values (dense mode), or a hash table (keys + values) of hash_capacity
/// slots.  Each thread's part starts on its own cache lines (host_stride)
/// and is cleared by that thread when it first claims it.
template <class O, class S>
struct HostThreadAccumulators {
  /// One thread's part.
  struct Part {
    std::uint64_t* bits;     // bitset (nw words), then its summary (ns words)
    std::uint32_t* touched;  // words of the bitset the row touched
    S* vals;                 // dense values (ncols)
    O* keys;                 // hash keys (hash_capacity)
    S* hvals;                // hash values
  };

  bool dense;
  std::uint64_t ncols, hash_capacity, nw, ns;
  std::uint64_t bits_stride, vals_stride, keys_stride, hvals_stride;
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> bits;
  Kokkos::View<S*, Kokkos::HostSpace> vals, hvals;
  Kokkos::View<O*, Kokkos::HostSpace> keys;
  Kokkos::View<std::uint8_t*, Kokkos::HostSpace> ready;  // cleared yet, per thread
  std::vector<std::shared_ptr<void>> owners;             // the memory of the above

  HostThreadAccumulators(int T, bool dense_, std::uint64_t ncols_, std::uint64_t hash_capacity_)
      : dense(dense_), ncols(ncols_), hash_capacity(hash_capacity_) {
    nw = (ncols + 63) / 64;
    ns = (nw + 63) / 64;
    // The touched list has at least nw + 5 slots: host_numeric_dense's sorted
    // pass writes up to 4 past its count.
    bits_stride = dense ? host_stride<std::uint64_t>(nw + ns + nw / 2 + 3) : 0;
    vals_stride = dense ? host_stride<S>(ncols) : 0;
    keys_stride = host_stride<O>(hash_capacity);
    hvals_stride = host_stride<S>(hash_capacity);
    bits = host_work_view<std::uint64_t>(owners, "spk::spgemm::thread_bits", T * bits_stride);
    vals = host_work_view<S>(owners, "spk::spgemm::thread_values", T * vals_stride);
    keys = host_work_view<O>(owners, "spk::spgemm::thread_keys", T * keys_stride);
    hvals = host_work_view<S>(owners, "spk::spgemm::thread_hash_values", T * hvals_stride);
    ready = host_flags(T);
  }

  /// Thread id's part (id from a UniqueToken), cleared on its first claim:
  /// the bitset, its summary and the dense values all zero, the hash keys
  /// empty.  Kernels keep them so between rows.
  Part claim(int id) const {
    Part p{bits.data() + id * bits_stride, nullptr, vals.data() + id * vals_stride,
           keys.data() + id * keys_stride, hvals.data() + id * hvals_stride};
    if (dense) p.touched = reinterpret_cast<std::uint32_t*>(p.bits + nw + ns);
    if (!ready(id)) {
      if (dense) {
        std::memset(p.bits, 0, (nw + ns) * sizeof(std::uint64_t));
        std::fill(p.vals, p.vals + ncols, S(0));
      }
      std::fill(p.keys, p.keys + hash_capacity, static_cast<O>(-1));
      ready(id) = 1;
    }
    return p;
  }
};

/// body(part, i0, i1) for each row block [blocks[b], blocks[b + 1]), b < nb,
/// blocks handed to threads one at a time; part is the running thread's
/// accumulators (HostThreadAccumulators::claim).
template <class ExecSpace, class Acc, class Body>
void host_for_each_block(const ExecSpace& space, const char* name, const std::int64_t* blocks,
                         std::int64_t nb, const Kokkos::Experimental::UniqueToken<ExecSpace>& token,
                         const Acc& acc, const Body& body) {
  Kokkos::parallel_for(
      name,
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, nb)
          .set_chunk_size(1),
      [=](const std::int64_t b) {
        const int id = token.acquire();
        body(acc.claim(id), blocks[b], blocks[b + 1]);
        token.release(id);
      });
}

/// Asks for transparent huge pages on a large host array that is about to be
/// written for the first time: with 4 KiB pages, the page faults of a fresh
/// C cost more than writing it (172 MB: 70 ms on 2 threads here, 20-30 ms
/// with huge pages).  Only changes how the kernel backs the range, and only
/// where THP is in "madvise" mode (with "always" it is already so).
inline void host_advise_huge_pages(const void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < (std::size_t(4) << 20)) return;
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t b = (a + page - 1) / page * page, e = (a + bytes) / page * page;
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice: errors ignored
#else
  (void)p;
  (void)bytes;
#endif
}

/// Orders the streaming stores before what follows (e.g. publishing the
/// block they wrote).
inline void host_stream_fence() {
#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
  _mm_sfence();
#endif
}

/// Copies `bytes` from src to dst with streaming stores where the CPU has
/// them (SSE2): the destination is written once and not read soon, so its
/// lines need not be read first nor kept in cache.  Ends with a store fence:
/// the copy is visible before the caller's next store (e.g. a release).
inline void host_stream_copy(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  if (bytes >= 4096) {
    const std::size_t head = (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15;
    std::memcpy(d, s, head);
    d += head;
    s += head;
    bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
      const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
      const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
      const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d), x0);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), x1);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), x2);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), x3);
    }
  }
  std::memcpy(d, s, bytes);
  _mm_sfence();
#else
  std::memcpy(dst, src, bytes);
#endif
}

/// host_advise_huge_pages for an array not taken from spk's host pool
/// (`from_pool`: it was; the pool advises its blocks once, when it makes
/// them, so a product need not repeat the system call on reused ones).
inline void host_advise_unless_pooled(const void* p, std::size_t bytes, bool from_pool) {
  if (!from_pool) host_advise_huge_pages(p, bytes);
}

/// Huge-page advice for an array of C made by result_view(…, pooled), unless
/// it came from the host pool.
template <class View>
void host_advise_result(const View& v, bool pooled) {
  const std::size_t bytes = v.extent(0) * sizeof(typename View::value_type);
  host_advise_unless_pooled(v.data(), bytes,
                            host_result_pooled<typename View::memory_space>(bytes, pooled));
}

template <class T>
inline void host_insertion_sort(T* a, std::int64_t n) {
  for (std::int64_t i = 1; i < n; ++i) {
    const T x = a[i];
    std::int64_t j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = x;
  }
}

template <class T>
inline void host_sort(T* a, std::int64_t n) {
  if (n <= 32)
    host_insertion_sort(a, n);
  else
    std::sort(a, a + n);
}

/// Zeroes the nt words listed in touched (the words a row made nonzero), or
/// the whole bitset when that is about as cheap.
inline void host_clear_words(std::uint64_t* bits, const std::uint32_t* touched, std::uint64_t nt,
                             std::uint64_t nw) {
  if (nw <= 16 * nt)
    std::memset(bits, 0, nw * sizeof(std::uint64_t));
  else
    for (std::uint64_t t = 0; t < nt; ++t) bits[touched[t]] = 0;
}

// ---- B compressed to (word, mask) pairs ---------------------------------------

/// B's rows with the columns that share a 64-bit word of the bitset merged
/// into one (word, mask) entry: symbolic ORs whole masks in and counts the
/// new bits with popcount, a few times fewer steps on banded and blocked
/// matrices.  The pairs of row r are stored at B's own offsets,
/// [brm[r], end[r]) of word/mask (at most as many as its entries), so that
/// the analysis pass writes them without counting first.
template <class F>
struct HostCompressedB {
  Kokkos::View<F*, Kokkos::HostSpace> end;
  Kokkos::View<std::uint32_t*, Kokkos::HostSpace> word;
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> mask;
  std::uint64_t pairs = 0;                    // how many there are
  bool used = false;                          // the kernels read the pairs
  std::vector<std::shared_ptr<void>> owners;  // pooled memory of the arrays
};

/// B's (word, mask) pairs per 100 entries, estimated on about 1024 rows
/// spread over B (rows with bad pointers skipped: the analysis reports them).
template <class F, class O>
std::uint64_t host_sample_pairs_pct(std::int64_t k, std::int64_t nnz_b, const F* brm,
                                    const O* bci) {
  const std::int64_t step = std::max<std::int64_t>(1, k / 1024);
  std::uint64_t entries = 0, pairs = 0;
  for (std::int64_t r = 0; r < k; r += step) {
    const std::int64_t b = static_cast<std::int64_t>(brm[r]);
    const std::int64_t e = static_cast<std::int64_t>(brm[r + 1]);
    if (b < 0 || b > e || e > nnz_b) continue;
    std::uint64_t prev = ~std::uint64_t(0);
    for (std::int64_t kb = b; kb < e; ++kb) {
      const std::uint64_t w = static_cast<std::uint64_t>(bci[kb]) >> 6;
      pairs += w != prev;
      prev = w;
    }
    entries += static_cast<std::uint64_t>(e - b);
  }
  return entries ? pairs * 100 / entries : 100;
}

/// Room for B's pairs (k rows, nnz_b entries) when the bitset's words can be
/// numbered in 32 bits and a sample of B's rows says that the pairs may be
/// few enough to be used (at most use_pct per 100 entries, plus a margin for
/// the sample); empty otherwise.  `pooled`: from spk's host pool, for the
/// pairs of one call (the handle keeps its own).
template <class F, class O>
HostCompressedB<F> host_compressed_b_arrays(std::int64_t k, std::int64_t nnz_b, std::uint64_t ncols,
                                            const F* brm, const O* bci, std::uint64_t use_pct,
                                            bool pooled = false) {
  HostCompressedB<F> cb;
  if (k == 0 || nnz_b == 0 || (ncols + 63) / 64 >= (std::uint64_t(1) << 32)) return cb;
  if (host_sample_pairs_pct(k, nnz_b, brm, bci) > use_pct + 5) return cb;
  auto array = [&](auto view_tag, const char* label, std::size_t n) {
    using V = decltype(view_tag);
    if (pooled) return host_work_view<typename V::value_type>(cb.owners, label, n);
    return V(Kokkos::ViewAllocateWithoutInitializing(label), n);
  };
  cb.end = array(decltype(cb.end)(), "spk::spgemm::pairs_b_end", k);
  cb.word = array(decltype(cb.word)(), "spk::spgemm::pairs_b_word", nnz_b);
  cb.mask = array(decltype(cb.mask)(), "spk::spgemm::pairs_b_mask", nnz_b);
  return cb;
}

/// What the analysis pass finds (join: sums, max, first bad row).
struct HostSpgemmStats {
  std::uint64_t products, max_products, bound, pairs;  // bound: sum of min(products, n)
  std::int64_t bad_a, bad_b;  // first invalid row of A / of B, or INT64_MAX
  HostSpgemmStats() : products(0), max_products(0), bound(0), pairs(0) {
    bad_a = bad_b = INT64_MAX;
  }
  void operator+=(const HostSpgemmStats& o) { join(*this, o); }
  // Kokkos 3.4 joins reductions through volatile references.
  void operator+=(const volatile HostSpgemmStats& o) volatile { join(*this, o); }

 private:
  template <class To, class From>
  static void join(To& a, From& o) {
    a.products += o.products;
    a.bound += o.bound;
    a.pairs += o.pairs;
    if (o.max_products > a.max_products) a.max_products = o.max_products;
    if (o.bad_a < a.bad_a) a.bad_a = o.bad_a;
    if (o.bad_b < a.bad_b) a.bad_b = o.bad_b;
  }
};

/// One pass over the rows of A, then of B: validates A's rows (pointers and
/// columns < k) and, when validate_b, B's (columns < ncols); products per row
/// of A into products; when cb has arrays, B's rows as (word, mask) pairs
/// (and their total).  Rows of B with bad pointers are skipped (reported
/// when validating; when B is A, A's check reports them).
template <class ExecSpace, class F, class O>
HostSpgemmStats host_spgemm_analyze(const ExecSpace& space, std::int64_t m, std::int64_t k,
                                    std::uint64_t ncols, const F* arm, const O* aci,
                                    std::int64_t nnz_a, const F* brm, const O* bci,
                                    std::int64_t nnz_b, bool validate, bool validate_b,
                                    const HostCompressedB<F>& cb, std::uint64_t* products) {
  HostSpgemmStats stats;
  const bool pairs = cb.word.extent(0) > 0;
  const std::int64_t range = m + ((validate && validate_b) || pairs ? k : 0);
  if (range == 0) return stats;
  F* cend = cb.end.data();
  std::uint32_t* word = cb.word.data();
  std::uint64_t* mask = cb.mask.data();
  Kokkos::parallel_reduce(
      "spk::spgemm::host_analyze",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, range)
          .set_chunk_size(256),
      [=](const std::int64_t r, HostSpgemmStats& s) {
        if (r < m) {
          const std::int64_t b = static_cast<std::int64_t>(arm[r]);
          const std::int64_t e = static_cast<std::int64_t>(arm[r + 1]);
          // Validation and the products in one branch-free pass over the
          // row (a bad column counts B's row 0 until the row is rejected;
          // with k = 0 any entry is bad and B has no row to read).
          bool ok = !validate || (b >= 0 && b <= e && e <= nnz_a && (r > 0 || b == 0) &&
                                  (r < m - 1 || e == nnz_a) && (k > 0 || b == e));
          std::uint64_t p = 0;
          if (ok) {
            for (std::int64_t ka = b; ka < e; ++ka) {
              const std::int64_t c = static_cast<std::int64_t>(aci[ka]);
              const bool in =
                  !validate || static_cast<std::uint64_t>(c) < static_cast<std::uint64_t>(k);
              ok &= in;
              const std::int64_t cc = in ? c : 0;
              p += static_cast<std::uint64_t>(brm[cc + 1] - brm[cc]);
            }
          }
          if (!ok) {
            if (r < s.bad_a) s.bad_a = r;
            products[r] = 0;
            return;
          }
          products[r] = p;
          s.products += p;
          s.bound += p < ncols ? p : ncols;
          if (p > s.max_products) s.max_products = p;
          return;
        }
        const std::int64_t row = r - m;
        const std::int64_t b = static_cast<std::int64_t>(brm[row]);
        const std::int64_t e = static_cast<std::int64_t>(brm[row + 1]);
        // The pointers are always checked: the pairs pass reads the row.
        bool ok =
            b >= 0 && b <= e && e <= nnz_b && (row > 0 || b == 0) && (row < k - 1 || e == nnz_b);
        if (validate && validate_b)
          for (std::int64_t kb = ok ? b : 0; ok && kb < e; ++kb) {
            const std::int64_t c = static_cast<std::int64_t>(bci[kb]);
            ok = c >= 0 && static_cast<std::uint64_t>(c) < ncols;
          }
        if (!ok) {
          if (validate && row < s.bad_b) s.bad_b = row;
          if (pairs) cend[row] = static_cast<F>(b);
          return;
        }
        if (!pairs) return;
        // Branch-free (a row's words change at unpredictable places): each
        // entry rewrites the current pair; a new word moves on to the next.
        std::int64_t q = b;
        if (b < e) {
          std::uint64_t prev = static_cast<std::uint64_t>(bci[b]) >> 6, mk = 0;
          for (std::int64_t kb = b; kb < e; ++kb) {
            const std::uint64_t c = static_cast<std::uint64_t>(bci[kb]);
            const std::uint64_t w = c >> 6;
            const std::uint64_t fresh = w != prev;
            q += static_cast<std::int64_t>(fresh);
            mk = (mk & (fresh - 1)) | (std::uint64_t(1) << (c & 63));
            word[q] = static_cast<std::uint32_t>(w);
            mask[q] = mk;
            prev = w;
          }
          ++q;
        }
        cend[row] = static_cast<F>(q);
        s.pairs += static_cast<std::uint64_t>(q - b);
      },
      stats);
  return stats;
}

/// Row blocks of about equal work (products + row cost): one sequential
/// walk over the rows, cutting where the running sum crosses multiples of
/// work / blocks (no buffer, no parallel dispatch for an O(rows) pass).
/// Rows [blocks[b], blocks[b + 1]) form block b.  `min_blocks`: at least
/// that many blocks (when there are rows enough), beyond
/// SpgemmHostPolicy::blocks_per_thread per thread.  With `bounds`, the same walk also
/// gives each block's sum of min(products, ncols): its entries of C at most.
template <class Products>
std::vector<std::int64_t> host_row_blocks(std::int64_t m, const Products& products,
                                          std::uint64_t total, int num_threads,
                                          std::int64_t min_blocks = 0, std::uint64_t ncols = 0,
                                          std::vector<std::uint64_t>* bounds = nullptr) {
  const std::int64_t nb = std::max<std::int64_t>(
      1, std::min<std::int64_t>(
             m, std::max<std::int64_t>(min_blocks,
                                       SpgemmHostPolicy::blocks_per_thread * num_threads)));
  const std::uint64_t work = total + SpgemmHostPolicy::row_cost * static_cast<std::uint64_t>(m);
  std::vector<std::int64_t> blocks(nb + 1, m);
  blocks[0] = 0;
  if (bounds) bounds->assign(static_cast<std::size_t>(nb), 0);
  std::uint64_t sum = 0, bound = 0;
  std::int64_t b = 1;
  auto cut = [&](std::int64_t j) { return work / nb * j + work % nb * j / nb; };
  std::uint64_t next = cut(1);
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint64_t p = products(i);
    bound += p < ncols ? p : ncols;
    if (b == nb) {
      if (!bounds) break;
      continue;  // the last block: only its bound is left to sum
    }
    sum += p + SpgemmHostPolicy::row_cost;
    while (sum >= next) {
      if (bounds) (*bounds)[static_cast<std::size_t>(b - 1)] = bound;
      blocks[b++] = i + 1;
      bound = 0;
      if (b == nb) break;
      next = cut(b);
    }
  }
  if (bounds) (*bounds)[static_cast<std::size_t>(b - 1)] += bound;
  blocks[nb] = m;
  return blocks;
}

/// Whether the dense accumulators (values and bitset over B's ncols columns)
/// of num_threads threads fit the budget.
template <class S>
bool host_dense_fits(std::uint64_t ncols, int num_threads, std::size_t budget) {
  return (ncols * sizeof(S) + (ncols + 63) / 64 * 8) * num_threads <= budget;
}

/// Per-thread accumulators of the host kernels, the row blocks and B
/// compressed (kept by the handle for numeric).
template <class F>
struct SpgemmHostPlan {
  std::vector<std::int64_t> blocks;  // rows [blocks[b], blocks[b + 1])
  bool dense = true;                 // bitset + dense values fit the budget
  std::uint64_t hash_capacity = 0;   // hash entries per thread (0: none)
  int num_threads = 1;
  HostCompressedB<F> cb;
};

// popcount: the popcnt instruction where the CPU has it (checked once at
// run time; the library is built for baseline x86-64), else the builtin.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define SPK_HOST_POPCNT_TARGET __attribute__((target("popcnt")))
inline bool host_has_popcnt() {
  static const bool has = __builtin_cpu_supports("popcnt");
  return has;
}
#else
#define SPK_HOST_POPCNT_TARGET
inline bool host_has_popcnt() { return false; }
#endif

/// Distinct columns of row i from compressed B with the bitset (left
/// all-zero again); B's compressed row k is [cbb[k], cbe[k]).
#define SPK_HOST_COUNT_COMPRESSED_BODY         \
  std::int64_t count = 0;                      \
  std::uint64_t nt = 0;                        \
  for (F ka = arm[i]; ka < arm[i + 1]; ++ka) { \
    const O k = aci[ka];                       \
    for (F kb = cbb[k]; kb < cbe[k]; ++kb) {   \
      const std::uint32_t w = cbw[kb];         \
      const std::uint64_t mk = cbm[kb];        \
      const std::uint64_t x = bits[w];         \
      count += __builtin_popcountll(mk & ~x);  \
      bits[w] = x | mk;                        \
      touched[nt] = w;                         \
      nt += x == 0;                            \
    }                                          \
  }                                            \
  host_clear_words(bits, touched, nt, nw);     \
  return count;

template <class F, class O>
SPK_HOST_POPCNT_TARGET inline std::int64_t host_count_compressed_hw(
    const F* arm, const O* aci, const F* cbb, const F* cbe, const std::uint32_t* cbw,
    const std::uint64_t* cbm, std::int64_t i, std::uint64_t* bits, std::uint32_t* touched,
    std::uint64_t nw) {
  SPK_HOST_COUNT_COMPRESSED_BODY
}

template <class F, class O>
inline std::int64_t host_count_compressed(const F* arm, const O* aci, const F* cbb, const F* cbe,
                                          const std::uint32_t* cbw, const std::uint64_t* cbm,
                                          std::int64_t i, std::uint64_t* bits,
                                          std::uint32_t* touched, std::uint64_t nw) {
  SPK_HOST_COUNT_COMPRESSED_BODY
}

/// host_count_compressed, with the popcnt instruction when the CPU has it
/// (hw = host_has_popcnt()).
template <class F, class O>
inline std::int64_t host_count_compressed_either(bool hw, const F* arm, const O* aci, const F* cbb,
                                                 const F* cbe, const std::uint32_t* cbw,
                                                 const std::uint64_t* cbm, std::int64_t i,
                                                 std::uint64_t* bits, std::uint32_t* touched,
                                                 std::uint64_t nw) {
  return hw ? host_count_compressed_hw(arm, aci, cbb, cbe, cbw, cbm, i, bits, touched, nw)
            : host_count_compressed(arm, aci, cbb, cbe, cbw, cbm, i, bits, touched, nw);
}
#undef SPK_HOST_COUNT_COMPRESSED_BODY

// ---- row kernels (raw pointers; one thread per row) --------------------------

/// Prefetches, from A's entry ka of a row kernel, the row of B that A's
/// entry ka + d names (its columns, and values unless V is void) and
/// the row pointer of entry ka + 2 d (d = SpgemmHostPolicy::prefetch_distance): over an
/// uncompressed B, the rows come from all over B.  Entries ahead may belong
/// to later rows; they are clamped to A's last, a_end - 1.
template <class F, class O, class V>
SPK_HOST_ALWAYS_INLINE void host_prefetch_b_row(const O* aci, std::int64_t a_end, const F* brm,
                                                const O* bci, const V* bv, std::int64_t ka) {
  constexpr std::int64_t d = SpgemmHostPolicy::prefetch_distance;
  const std::int64_t k1 = std::min<std::int64_t>(ka + 2 * d, a_end - 1);
  const std::int64_t k2 = std::min<std::int64_t>(ka + d, a_end - 1);
  __builtin_prefetch(brm + aci[k1]);
  const F b2 = brm[aci[k2]];
  __builtin_prefetch(bci + b2);
  if constexpr (!std::is_void_v<V>) __builtin_prefetch(bv + b2);
}

/// Distinct columns of row i with the bitset (left all-zero again); B's
/// rows prefetched as in host_numeric_dense (a_end: A's entries).
template <class F, class O>
inline std::int64_t host_count_bitset(const F* arm, const O* aci, std::int64_t a_end, const F* brm,
                                      const O* bci, std::int64_t i, std::uint64_t* bits,
                                      std::uint32_t* touched, std::uint64_t nw) {
  std::int64_t count = 0;
  std::uint64_t nt = 0;
  for (F ka = arm[i]; ka < arm[i + 1]; ++ka) {
    host_prefetch_b_row(aci, a_end, brm, bci, static_cast<const void*>(nullptr), ka);
    const O k = aci[ka];
    for (F kb = brm[k]; kb < brm[k + 1]; ++kb) {
      const std::uint64_t c = static_cast<std::uint64_t>(bci[kb]);
      const std::uint64_t bit = std::uint64_t(1) << (c & 63);
      const std::uint64_t x = bits[c >> 6];
      count += (x & bit) == 0;
      bits[c >> 6] = x | bit;
      touched[nt] = static_cast<std::uint32_t>(c >> 6);
      nt += x == 0;
    }
  }
  host_clear_words(bits, touched, nt, nw);
  return count;
}

/// Distinct columns of row i with a hash table of cap slots (left empty).
template <class F, class O>
inline std::int64_t host_count_hash(const F* arm, const O* aci, const F* brm, const O* bci,
                                    std::int64_t i, O* keys, std::uint64_t cap) {
  const O empty = static_cast<O>(-1);
  const std::uint64_t mask = cap - 1;
  std::int64_t count = 0;
  for (F ka = arm[i]; ka < arm[i + 1]; ++ka) {
    const O k = aci[ka];
    for (F kb = brm[k]; kb < brm[k + 1]; ++kb) {
      const O c = bci[kb];
      std::uint64_t s = static_cast<std::uint64_t>(c) & mask;
      while (keys[s] != c && keys[s] != empty) s = (s + 1) & mask;
      if (keys[s] == empty) {
        keys[s] = c;
        ++count;
      }
    }
  }
  std::fill(keys, keys + cap, empty);
  return count;
}

/// *p = v with a streaming (non-temporal) store where the CPU has one for
/// T's size: C's entries are written once and not read soon.
template <class T>
SPK_HOST_ALWAYS_INLINE void host_stream_store(T* p, const T& v) {
#if defined(__SSE2__) && defined(__x86_64__) && !defined(__CUDA_ARCH__)
  if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) == 4) {
    int x;
    std::memcpy(&x, &v, 4);
    _mm_stream_si32(reinterpret_cast<int*>(p), x);
  } else if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) == 8) {
    long long x;
    std::memcpy(&x, &v, 8);
    _mm_stream_si64(reinterpret_cast<long long*>(p), x);
  } else {
    *p = v;
  }
#else
  *p = v;
#endif
}

/// Row i of C with the bitset and dense values; writes cci/cv from start.
/// A summary bitset (one bit per word of the bitset) lets the row's columns
/// come out sorted by scanning the summary and then only the nonzero words:
/// O(columns / 4096 + entries), no sort.  The bitset, its summary and the
/// values are all-zero before and after.
/// The compressed row k of B is [cbb[k], cbe[k]) (a row map: cbe = cbb + 1).
/// Unsorted rows come out in the order their words were first touched.
/// Stream: the row is written with streaming stores (straight into C).
/// a_end: A's entries (its last row pointer); the prefetch over an
/// uncompressed B reads A's columns ahead of the row, below a_end.
/// Returns the row's length.
template <bool Compressed, bool Stream = false, class F, class O, class S, class P>
SPK_HOST_ALWAYS_INLINE std::uint64_t host_numeric_dense(
    const F* arm, const O* aci, const S* av, std::int64_t a_end, const F* brm, const O* bci,
    const S* bv, const F* cbb, const F* cbe, const std::uint32_t* cbw, const std::uint64_t* cbm,
    std::int64_t i, P start, O* cci, S* cv, std::uint64_t* bits, std::uint64_t* summary,
    std::uint32_t* touched, S* vals, std::uint64_t ns, bool sorted) {
  // The words the row makes nonzero are listed (a store to a new slot, no
  // read-modify-write chain through memory), then marked in the summary.
  std::uint64_t nt = 0;
  for (F ka = arm[i]; ka < arm[i + 1]; ++ka) {
    if constexpr (!Compressed) host_prefetch_b_row(aci, a_end, brm, bci, bv, ka);
    const O k = aci[ka];
    const S a = av[ka];
    if constexpr (Compressed) {
      // Values by column, the pattern by (word, mask).
      for (F kb = brm[k]; kb < brm[k + 1]; ++kb) vals[bci[kb]] += a * bv[kb];
      for (F q = cbb[k]; q < cbe[k]; ++q) {
        const std::uint32_t w = cbw[q];
        const std::uint64_t x = bits[w];
        bits[w] = x | cbm[q];
        touched[nt] = w;
        nt += x == 0;
      }
    } else {
      for (F kb = brm[k]; kb < brm[k + 1]; ++kb) {
        const std::uint64_t c = static_cast<std::uint64_t>(bci[kb]);
        const std::uint64_t w = c >> 6;
        vals[c] += a * bv[kb];
        const std::uint64_t x = bits[w];
        bits[w] = x | (std::uint64_t(1) << (c & 63));
        touched[nt] = static_cast<std::uint32_t>(w);
        nt += x == 0;
      }
    }
  }
  P pos = start;
  auto emit_word = [&](const std::uint64_t w) {
    std::uint64_t x = bits[w];
    bits[w] = 0;
    do {
      const std::uint64_t c = w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x));
      if constexpr (Stream) {
        host_stream_store(cci + pos, static_cast<O>(c));
        host_stream_store(cv + pos, vals[c]);
      } else {
        cci[pos] = static_cast<O>(c);
        cv[pos] = vals[c];
      }
      vals[c] = S(0);
      ++pos;
      x &= x - 1;
    } while (x);
  };
  // Up to 64 words where the CPU has AVX-512: a sorting network, no branch
  // on the keys (random rows, ~63 words: one call 35 -> 32 ms against the
  // summary scan below).
  const bool network = sorted && nt > SpgemmHostPolicy::sort_words && nt <= host_avx512_sort_max &&
                       host_use_avx512_sort;
  if (nt <= SpgemmHostPolicy::sort_words || !sorted || network) {
    // Few words: sort them.
    if (network)
      host_sort_u32_avx512(touched, nt);
    else if (sorted)
      host_insertion_sort(touched, static_cast<std::int64_t>(nt));
    for (std::uint64_t t = 0; t < nt; ++t) emit_word(touched[t]);
    return static_cast<std::uint64_t>(pos - start);
  }
  for (std::uint64_t t = 0; t < nt; ++t)
    summary[touched[t] >> 6] |= std::uint64_t(1) << (touched[t] & 63);
  if (nt < 4 * ns) {
    // Fewer than 4 words per summary word: the touched words again, in
    // order, read off the summary; a summary word's first four bits
    // branch-free (slots past its count are overwritten or unused), a loop
    // for the rest.  (Denser summaries: the loop below, emitting as it goes.)
    std::uint64_t n = 0;
    for (std::uint64_t z = 0; z < ns; ++z) {
      const std::uint64_t y0 = summary[z];
      summary[z] = 0;
      const std::uint64_t y1 = y0 & (y0 - 1), y2 = y1 & (y1 - 1), y3 = y2 & (y2 - 1);
      const std::uint32_t base = static_cast<std::uint32_t>(z * 64);
      constexpr std::uint64_t top = std::uint64_t(1) << 63;  // ctz(0) is undefined
      touched[n] = base + static_cast<std::uint32_t>(__builtin_ctzll(y0 | top));
      touched[n + 1] = base + static_cast<std::uint32_t>(__builtin_ctzll(y1 | top));
      touched[n + 2] = base + static_cast<std::uint32_t>(__builtin_ctzll(y2 | top));
      touched[n + 3] = base + static_cast<std::uint32_t>(__builtin_ctzll(y3 | top));
      n += (y0 != 0) + (y1 != 0) + (y2 != 0) + (y3 != 0);
      for (std::uint64_t y = y3 & (y3 - 1); y; y &= y - 1)
        touched[n++] = base + static_cast<std::uint32_t>(__builtin_ctzll(y));
    }
    for (std::uint64_t t = 0; t < nt; ++t) emit_word(touched[t]);
    return static_cast<std::uint64_t>(pos - start);
  }
  for (std::uint64_t z = 0; z < ns; ++z) {
    std::uint64_t y = summary[z];
    if (!y) continue;
    summary[z] = 0;
    do {
      emit_word(z * 64 + static_cast<std::uint64_t>(__builtin_ctzll(y)));
      y &= y - 1;
    } while (y);
  }
  return static_cast<std::uint64_t>(pos - start);
}

/// host_numeric_dense with B compressed or not, chosen at run time.
template <class... Args>
inline std::uint64_t host_numeric_dense_either(bool compressed, const Args&... args) {
  return compressed ? host_numeric_dense<true>(args...) : host_numeric_dense<false>(args...);
}

/// host_numeric_dense with B compressed or not, writing the row with
/// streaming stores when `stream`.
/// (All four kernels named here, not host_numeric_dense_either for the
/// regular stores: through it, g++ kept it as a call in the fused path and
/// poisson2d:300's one call took 3.65-3.83 instead of 3.14-3.34 ms.)
template <class... Args>
inline std::uint64_t host_numeric_dense_select(bool compressed, bool stream, const Args&... args) {
  if (stream)
    return compressed ? host_numeric_dense<true, true>(args...)
                      : host_numeric_dense<false, true>(args...);
  return compressed ? host_numeric_dense<true>(args...) : host_numeric_dense<false>(args...);
}

/// Row i of C with a hash table of cap slots (keys empty, left empty).
/// Returns the row's length.
template <class F, class O, class S, class P>
inline std::uint64_t host_numeric_hash(const F* arm, const O* aci, const S* av, const F* brm,
                                       const O* bci, const S* bv, std::int64_t i, P start, O* cci,
                                       S* cv, O* keys, S* hvals, std::uint64_t cap, bool sorted) {
  const O empty = static_cast<O>(-1);
  const std::uint64_t mask = cap - 1;
  for (F ka = arm[i]; ka < arm[i + 1]; ++ka) {
    const O k = aci[ka];
    const S a = av[ka];
    for (F kb = brm[k]; kb < brm[k + 1]; ++kb) {
      const O c = bci[kb];
      const S prod = a * bv[kb];
      std::uint64_t s = static_cast<std::uint64_t>(c) & mask;
      while (keys[s] != c && keys[s] != empty) s = (s + 1) & mask;
      if (keys[s] == empty) {
        keys[s] = c;
        hvals[s] = prod;
      } else {
        hvals[s] += prod;
      }
    }
  }
  P pos = start;
  if (!sorted) {
    for (std::uint64_t s = 0; s < cap; ++s)
      if (keys[s] != empty) {
        cci[pos] = keys[s];
        cv[pos] = hvals[s];
        ++pos;
        keys[s] = empty;
      }
    return static_cast<std::uint64_t>(pos - start);
  }
  for (std::uint64_t s = 0; s < cap; ++s)
    if (keys[s] != empty) cci[pos++] = keys[s];
  host_sort(cci + start, static_cast<std::int64_t>(pos - start));
  for (P q = start; q < pos; ++q) {
    const O c = cci[q];
    std::uint64_t s = static_cast<std::uint64_t>(c) & mask;
    while (keys[s] != c) s = (s + 1) & mask;
    cv[q] = hvals[s];
  }
  std::fill(keys, keys + cap, empty);
  return static_cast<std::uint64_t>(pos - start);
}

// ---- phases -------------------------------------------------------------------

/// A's entries by its last row pointer (host row map; 0 when empty): where
/// the kernels' look-ahead stops.
template <class RowMap>
std::int64_t host_a_entries(const RowMap& arm) {
  const std::size_t n = arm.extent(0);
  return n > 0 ? static_cast<std::int64_t>(arm.data()[n - 1]) : 0;
}

/// counts(i + 1) = distinct columns of row i of C.
template <class ExecSpace, class V, class F, class Products, class Counts>
void spgemm_host_symbolic(const ExecSpace& space, const V& v, std::uint64_t ncols,
                          const Products& products, const Counts& counts,
                          const SpgemmHostPlan<F>& p) {
  using O = typename decltype(v.cci)::non_const_value_type;
  const std::int64_t nb = static_cast<std::int64_t>(p.blocks.size()) - 1;
  if (nb <= 0) return;
  const std::uint64_t nw = (ncols + 63) / 64;
  const std::uint64_t per_thread = p.dense ? 0 : p.hash_capacity;
  // Per thread: the bitset, then the list of its touched words (uint32).
  const std::uint64_t bits_stride = p.dense ? host_stride<std::uint64_t>(nw + nw / 2 + 1) : 0;
  const std::uint64_t keys_stride = host_stride<O>(per_thread);
  // Bitsets (all-zero) or hash keys (all-empty), one per thread.
  std::vector<std::shared_ptr<void>> owners;
  const auto bits = host_work_view<std::uint64_t>(owners, "spk::spgemm::thread_bits",
                                                  p.num_threads * bits_stride);
  const auto keys =
      host_work_view<O>(owners, "spk::spgemm::thread_keys", p.num_threads * keys_stride);
  const auto ready = host_flags(p.num_threads);
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  const std::int64_t* blocks = p.blocks.data();
  const bool dense = p.dense;
  const F* arm = v.arm.data();
  const F* brm = v.brm.data();
  const O* aci = v.aci.data();
  const O* bci = v.bci.data();
  const std::int64_t a_end = host_a_entries(v.arm);
  const auto& cb = p.cb;
  const bool compressed = cb.used;
  const bool hw = host_has_popcnt();
  const F* cbe = cb.end.data();
  const std::uint32_t* cbw = cb.word.data();
  const std::uint64_t* cbm = cb.mask.data();
  Kokkos::parallel_for(
      "spk::spgemm::host_symbolic",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, nb)
          .set_chunk_size(1),
      [=](const std::int64_t b) {
        const int id = token.acquire();
        // First use by this thread: clear its accumulator (first touch).
        if (!ready(id)) {
          if (dense)
            std::memset(bits.data() + id * bits_stride, 0, nw * sizeof(std::uint64_t));
          else
            std::fill(keys.data() + id * keys_stride, keys.data() + id * keys_stride + per_thread,
                      static_cast<O>(-1));
          ready(id) = 1;
        }
        for (std::int64_t i = blocks[b]; i < blocks[b + 1]; ++i) {
          const std::uint64_t pr = products(i);
          std::int64_t count = 0;
          if (pr == 0) {
          } else if (compressed) {
            std::uint64_t* my_bits = bits.data() + id * bits_stride;
            std::uint32_t* touched = reinterpret_cast<std::uint32_t*>(my_bits + nw);
            count = host_count_compressed_either(hw, arm, aci, brm, cbe, cbw, cbm, i, my_bits,
                                                 touched, nw);
          } else if (dense) {
            std::uint64_t* my_bits = bits.data() + id * bits_stride;
            std::uint32_t* touched = reinterpret_cast<std::uint32_t*>(my_bits + nw);
            count = host_count_bitset(arm, aci, a_end, brm, bci, i, my_bits, touched, nw);
          } else {
            const std::uint64_t cap = host_hash_capacity(std::min(pr, ncols));
            count = host_count_hash(arm, aci, brm, bci, i, keys.data() + id * keys_stride, cap);
          }
          counts(i + 1) = count;
        }
        token.release(id);
      });
  space.fence();
}

/// Columns and values of C (row pointers from symbolic).
template <class ExecSpace, class V, class F>
void spgemm_host_numeric(const ExecSpace& space, const V& v, std::uint64_t ncols,
                         const SpgemmHostPlan<F>& p, bool sorted) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  const std::int64_t nb = static_cast<std::int64_t>(p.blocks.size()) - 1;
  if (nb <= 0) return;
  const std::uint64_t nw = (ncols + 63) / 64;
  const int T = p.num_threads;
  const std::uint64_t hcap = p.dense ? 0 : p.hash_capacity;
  const std::uint64_t ns = (nw + 63) / 64;  // words of the bitset's summary
  const HostThreadAccumulators<O, S> acc(T, p.dense, ncols, hcap);
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  const std::int64_t* blocks = p.blocks.data();
  const bool dense = p.dense;
  const F* arm = v.arm.data();
  const F* brm = v.brm.data();
  const F* crm = v.crm.data();
  const O* aci = v.aci.data();
  const O* bci = v.bci.data();
  const S* av = v.av.data();
  const std::int64_t a_end = host_a_entries(v.arm);
  const S* bv = v.bv.data();
  O* cci = v.cci.data();
  S* cv = v.cv.data();
  // Numeric walks B twice when compressed (values, then pairs): worth it only
  // when the pairs are clearly fewer.
  const bool compressed =
      p.cb.used && p.cb.pairs * 100 <= SpgemmHostPolicy::numeric_compress_pct * v.bci.extent(0);
  const F* cbe = p.cb.end.data();
  const std::uint32_t* cbw = p.cb.word.data();
  const std::uint64_t* cbm = p.cb.mask.data();
  host_for_each_block(space, "spk::spgemm::host_numeric", blocks, nb, token, acc,
                      [=](const auto& mine, const std::int64_t i0, const std::int64_t i1) {
                        for (std::int64_t i = i0; i < i1; ++i) {
                          const F start = crm[i], end = crm[i + 1];
                          const std::uint64_t u = static_cast<std::uint64_t>(end - start);
                          if (u == 0) continue;
                          if (!dense)
                            host_numeric_hash(arm, aci, av, brm, bci, bv, i, start, cci, cv,
                                              mine.keys, mine.hvals, host_hash_capacity(u), sorted);
                          else
                            host_numeric_dense_either(compressed, arm, aci, av, a_end, brm, bci, bv,
                                                      brm, cbe, cbw, cbm, i, start, cci, cv,
                                                      mine.bits, mine.bits + nw, mine.touched,
                                                      mine.vals, ns, sorted);
                        }
                      });
  space.fence();
}

}  // namespace spk::Impl
