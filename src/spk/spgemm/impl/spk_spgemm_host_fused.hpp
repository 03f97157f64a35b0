// Fused single-pass SpGEMM for the one-call spk::spgemm on host spaces
// (Serial, OpenMP): no symbolic phase.  Rows are cut into blocks of about
// equal work (as ThreadDense) and each row's sorted columns and values come
// out of one Gustavson pass with the ThreadDense accumulators (bitset + dense
// values, or a hash table beyond the slab budget).  nnz(C) is unknown in
// advance; three ways to lay C out, the first that applies:
//
// 1. Ordered (C's arrays from spk's host pool, the usual case): C is held at
//    the bound sum_i min(products_i, columns of B) (address space; pages
//    only for what is written, the rest given back) and adopted at nnz(C).
//    Blocks of ~512 KiB of bound are computed into a per-thread staging
//    ring (each block kept at its length until placed) and copied into C,
//    in block order, by whichever thread completes the prefix of computed
//    blocks (streaming stores): no second pass over C.  Once every block
//    before it is placed, a block's offset is known: it copies what it
//    staged and writes its remaining rows straight into C with streaming
//    stores (with two threads, about half of C).
// 2. In place, when B's (word, mask) pairs are few: columns counted on the
//    pairs (popcount), row pointers scanned, C written in place.
// 3. A pool of pieces: threads append rows to a shared pool in chunks they
//    reserve with one atomic add and record each row's length; the pool is
//    sized from an estimate (5/8 of the bound first, capped; a row that finds
//    it exhausted is left, with the rest of its block, to a next round sized
//    from the fill observed so far); then one pass over the pieces turns the
//    lengths into row pointers and copies the entries into C, allocated
//    exactly.
//
// Before the kernel, one pass over A and B validates both, counts the
// products of every row (64 bits) and writes B's (word, mask) pairs at B's
// own row offsets (no count-then-fill, no scan).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <impl/spk_spgemm_common.hpp>
#include <impl/spk_spgemm_thread_dense.hpp>
#include <limits>
#include <memory>
#include <mutex>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_memory_pool.hpp>
#include <spk_spgemm_handle.hpp>
#include <spk_validate.hpp>
#include <thread>
#include <utility>
#include <vector>

namespace spk::Impl {

/// C's columns and values on the host, uninitialised: from spk's host pool
/// (pooled) or Kokkos, with huge pages asked for (they are written once,
/// right after).
template <class ExecSpace, class CI, class VA>
void allocate_host_entries(const ExecSpace& space, std::uint64_t nnz, bool pooled, CI& col_idx,
                           VA& values) {
  col_idx = result_view<CI>(space, "spk::spgemm::C.col_idx", nnz, pooled);
  values = result_view<VA>(space, "spk::spgemm::C.values", nnz, pooled);
  host_advise_result(col_idx, pooled);
  host_advise_result(values, pooled);
}

// Products counted first and C written in place (no pool) when B's pairs are
// at most this percentage of its entries: there counting on the pairs costs
// less than the pool's second pass over C (TSOPF, 16 % pairs).  Long rows
// (≥ 512 products on average) used to count first too, while the pool's
// pages were fresh on every call; with spk's host pool the pool path is
// faster there (2 threads, three runs in turn, median speed-up over Kokkos
// Kernels: rmat:14:8 2.13 → 2.30×, wiki-Vote 1.69 → 1.85×, Maragal_6
// 1.73 → 1.88×; docs/data/spgemm_openmp_pool/inplace).
inline constexpr std::uint64_t host_fused_max_pairs_pct = 25;

// (A namespace of their own: spk::Impl::swap would make std::sort's swap of
// them ambiguous.)
namespace HostFused {
/// Rows [row0, row1) whose entries lie contiguously in pool round `round`
/// from `start`, `count` of them.
struct Piece {
  std::int64_t row0, row1;
  int round;
  std::uint64_t start, count;
};

/// Rows of A (and C) still to compute.
struct Task {
  std::int64_t row0, row1;
};
}  // namespace HostFused

// The ordered path (3 below) stages blocks of rows of about this many
// bytes of C's bound per thread: well inside a core's L2, beside the dense
// accumulator.
inline constexpr std::uint64_t host_fused_stage_bytes = std::uint64_t(512) << 10;

/// Whether the ordered path can hold C at the bound (entries): its arrays
/// from the host pool (adopted into C's Views), the bound's offsets within F,
/// and the bound's bytes within what the pool keeps (address space is
/// reserved for all of it; pages only for what is written).
template <class S, class O, class F, class M>
bool host_fused_ordered_fits(std::uint64_t bound, bool pooled) {
  return host_result_pooled<M>(bound * sizeof(O), pooled) &&
         host_result_pooled<M>(bound * sizeof(S), pooled) &&
         bound <= static_cast<std::uint64_t>(std::numeric_limits<F>::max()) &&
         bound * (sizeof(O) + sizeof(S)) <= HostMemoryPool::instance().keep_limit();
}

/// Staging per thread of the ordered path, in blocks of the largest bound:
/// a thread goes on computing while what it staged (each block trimmed to
/// its length) waits behind a slower block before it.
inline constexpr int host_fused_slots = 4;

/// Spins (then yields) until `done()`.
template <class Done>
void host_spin_until(const Done& done) {
  for (int spins = 0; !done(); ++spins) {
    if (spins < 256) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }
}

/// One thread's staging of the ordered path: a ring of `capacity` entries
/// holding that thread's computed blocks, oldest first, each at its real
/// length.  A block reserves its bound (contiguous), is computed, then
/// trimmed; the ring takes back the oldest blocks once they are placed in
/// C.  Blocks of one thread are taken, and placed, in increasing order, so
/// a first-in first-out ring suffices.  Rings of skewed rows hold many
/// short blocks where fixed slots of the largest block's size held four:
/// a heavy row (an arrow's dense row, ten blocks of work) no longer leaves
/// the other threads waiting for a slot.  Used by its thread only.
class HostStageRing {
 public:
  explicit HostStageRing(std::uint64_t capacity) : capacity_(capacity) {}

  /// Drops the oldest blocks that are placed (`placed(block)`).
  template <class Placed>
  void reclaim(const Placed& placed) {
    while (!live_.empty() && placed(live_.front().block)) live_.pop_front();
  }

  /// Start of `need` free contiguous entries, or -1 while there are none.
  std::int64_t reserve(std::uint64_t need) const {
    if (need > capacity_) return -1;  // cannot happen: capacity covers the largest block
    if (live_.empty()) return 0;
    const std::uint64_t tail = live_.front().start;
    const std::uint64_t head = live_.back().start + live_.back().length;
    if (live_.back().start >= tail) {  // [tail, head) in use: room after head or before tail
      if (capacity_ - head >= need) return static_cast<std::int64_t>(head);
      return tail >= need ? 0 : -1;
    }
    // Wrapped: [tail, capacity) and [0, head) in use.
    return tail - head >= need ? static_cast<std::int64_t>(head) : -1;
  }

  /// Block `block` computed at `start`, `length` entries of it still staged
  /// (0: nothing to keep, as for a block written straight into C).
  void commit(std::int64_t block, std::uint64_t start, std::uint64_t length) {
    if (length > 0) live_.push_back({block, start, length});
  }

 private:
  struct Staged {
    std::int64_t block;
    std::uint64_t start, length;
  };
  std::uint64_t capacity_;
  std::deque<Staged> live_;
};

/// The ordered path's book of blocks: which are computed (length, where
/// staged) and how far the placed prefix reaches.
struct HostOrderedBlocks {
  std::atomic<std::int64_t> next{0};  // next block to compute
  std::mutex mutex;                   // guards the rest but `released`
  std::vector<std::int64_t> length, offset;
  std::vector<std::uint64_t> staged_at;  // entry of the staging arrays
  std::vector<char> computed;
  std::vector<char> in_c;  // computed straight into C (nothing to copy)
  // Blocks [0, placed) have offsets; they end at `end`.  Written under the
  // mutex; read without it by threads computing a block (offset_if_next).
  std::atomic<std::int64_t> placed{0}, end{0};
  // Per block: copied into C (its staging may be reused).
  std::unique_ptr<std::atomic<char>[]> released;

  explicit HostOrderedBlocks(std::int64_t nb)
      : length(nb),
        offset(nb),
        staged_at(nb),
        computed(nb, 0),
        in_c(nb, 0),
        released(new std::atomic<char>[static_cast<std::size_t>(nb)]) {
    for (std::int64_t b = 0; b < nb; ++b) released[b].store(0, std::memory_order_relaxed);
  }

  /// Where block b starts in C if every block before it is placed (its
  /// offset cannot change until b itself completes), else -1.
  std::int64_t offset_if_next(std::int64_t b) const {
    if (placed.load(std::memory_order_acquire) != b) return -1;
    return end.load(std::memory_order_relaxed);
  }

  /// Block b is computed (len entries staged at `at`, or already in C at its
  /// offset: `direct`): returns the blocks [q0, q1) that now have offsets,
  /// for the caller to place.
  std::pair<std::int64_t, std::int64_t> complete(std::int64_t b, std::int64_t len, std::uint64_t at,
                                                 bool direct) {
    const std::lock_guard<std::mutex> lock(mutex);
    length[b] = len;
    staged_at[b] = at;
    computed[b] = 1;
    in_c[b] = direct;
    const std::int64_t q0 = placed.load(std::memory_order_relaxed);
    const std::int64_t nb = static_cast<std::int64_t>(computed.size());
    std::int64_t q = q0, e = end.load(std::memory_order_relaxed);
    for (; q < nb && computed[q]; ++q) {
      offset[q] = e;
      e += length[q];
    }
    end.store(e, std::memory_order_relaxed);
    placed.store(q, std::memory_order_release);  // after `end`: offset_if_next reads both
    return {q0, q};
  }
};

/// C = A·B on a host space in one pass (see the top of this file).
template <class ExecSpace, class S, class O, class F, class DA, class DB>
CsrMatrix<S, O, F, device_t<ExecSpace>> spgemm_host_fused(const ExecSpace& space,
                                                          const CsrMatrix<S, O, F, DA>& A,
                                                          const CsrMatrix<S, O, F, DB>& B,
                                                          const SpgemmOptions& opt) {
  using Dev = device_t<ExecSpace>;
  using CMat = CsrMatrix<S, O, F, Dev>;
  using HostPiece = HostFused::Piece;
  using HostTask = HostFused::Task;
  const std::int64_t m = A.num_rows(), k = A.num_cols();
  const std::uint64_t ncols = static_cast<std::uint64_t>(B.num_cols());
  const std::int64_t nnz_a = static_cast<std::int64_t>(A.nnz());
  const std::int64_t nnz_b = static_cast<std::int64_t>(B.nnz());
  // Row pointer arrays of unexpected length (a default-constructed matrix):
  // the full check says what is wrong; the pass below needs m + 1 and k + 1.
  if (opt.validate_inputs && (A.row_map().extent(0) != static_cast<std::size_t>(m + 1) ||
                              B.row_map().extent(0) != static_cast<std::size_t>(k + 1))) {
    validate(space, A);
    validate(space, B);
  }
  // B is often A itself (C = A·A): then A's check covers it.
  const bool b_is_a = same_operand(A, B);
  const F* arm = A.row_map().data();
  const O* aci = A.col_idx().data();
  const S* av = A.values().data();
  const F* brm = B.row_map().data();
  const O* bci = B.col_idx().data();
  const S* bv = B.values().data();
  typename CMat::row_map_type row_map;
  typename CMat::index_type col_idx;
  typename CMat::values_type values;
  const bool sorted = opt.sort == SpgemmSort::Sorted;
  const std::size_t budget = opt.slab_budget_bytes ? opt.slab_budget_bytes : std::size_t(512) << 20;
  Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
  const int T = token.size();
  const bool dense = host_dense_fits<S>(ncols, T, budget);

  // 1. Validation, products per row, B's pairs: one pass.  The pairs cost
  // one write of B; they pay when they are clearly fewer than B's entries.
  const bool pooled = opt.result_memory == SpgemmResultMemory::Pool;
  std::vector<std::shared_ptr<void>> owners;  // the work arrays' pooled memory
  const auto products = host_work_view<std::uint64_t>(owners, "spk::spgemm::products", m);
  HostCompressedB<F> cb;
  // (Pairs above SpgemmHostPolicy::numeric_compress_pct would serve only the in-place
  // path of long rows: not worth a pass over B up front.)
  if (dense && m > 0)
    cb = host_compressed_b_arrays<F>(k, nnz_b, ncols, brm, bci,
                                     SpgemmHostPolicy::numeric_compress_pct, true);
  const HostSpgemmStats st =
      host_spgemm_analyze(space, m, k, ncols, arm, aci, nnz_a, brm, bci, nnz_b, opt.validate_inputs,
                          !b_is_a, cb, products.data());
  throw_if_invalid_rows(space, A, B, st.bad_a, st.bad_b, "spk::spgemm");
  row_map =
      result_view<typename CMat::row_map_type>(space, "spk::spgemm::C.row_map", m + 1, pooled);
  F* rm = row_map.data();
  rm[0] = 0;
  if (st.products == 0) {
    Kokkos::parallel_for("spk::spgemm::host_empty_rows",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, m),
                         [=](const std::int64_t i) { rm[i + 1] = 0; });
    space.fence();
    return CMat(A.num_rows(), B.num_cols(), row_map,
                typename CMat::index_type("spk::spgemm::C.col_idx", 0),
                typename CMat::values_type("spk::spgemm::C.values", 0));
  }
  const std::uint64_t max_need = std::min(st.max_products, ncols);
  std::uint64_t hash_capacity = 0;
  if (!dense) {
    hash_capacity = host_hash_capacity(max_need);
    SPK_REQUIRE(hash_capacity < (std::uint64_t(1) << 32), Overflow, "spk::spgemm: a row with ",
                st.max_products, " products needs a hash table of more than 2^32 entries");
  }
  // Numeric walks B twice when compressed (values, then pairs): worth it only
  // when the pairs are clearly fewer.
  const bool compressed =
      cb.word.extent(0) > 0 &&
      st.pairs * 100 <= SpgemmHostPolicy::numeric_compress_pct * std::uint64_t(nnz_b);

  // 2. Per-thread accumulators (as ThreadDense numeric), cleared by their
  // thread on first use.
  const std::uint64_t nw = dense ? (ncols + 63) / 64 : 0;
  const std::uint64_t ns = (nw + 63) / 64;  // words of the bitset's summary
  const HostThreadAccumulators<O, S> acc(T, dense, ncols, hash_capacity);

  const F* cbe = cb.end.data();
  const std::uint32_t* cbw = cb.word.data();
  const std::uint64_t* cbm = cb.mask.data();
  const std::int64_t a_end = host_a_entries(A.row_map());  // the kernels' look-ahead

#if SPK_CAN_ADOPT_ALLOCATIONS
  // 3. C at the bound, blocks in order: when C's arrays can come from the
  // host pool at the bound (a block of address space; only what is written
  // gets pages), each thread computes a block of rows into a small staging
  // slot of its own (hot in its cache).  A computed block is placed in C as
  // soon as every block before it is: whichever thread completes the prefix
  // of computed blocks takes their offsets and copies them.  No pool of
  // pieces and no second pass over C; a thread waits only when all its slots
  // hold blocks still behind a running one.
  if (host_fused_ordered_fits<S, O, F, typename Dev::memory_space>(st.bound, pooled)) {
    const std::uint64_t* opr = products.data();
    const std::int64_t min_blocks =
        static_cast<std::int64_t>(st.bound * (sizeof(O) + sizeof(S)) / host_fused_stage_bytes + 1);
    std::vector<std::uint64_t> obounds;  // per block: its entries of C at most
    const std::vector<std::int64_t> oblocks =
        host_row_blocks(m, products, st.products, T, min_blocks, ncols, &obounds);
    const std::int64_t nb = static_cast<std::int64_t>(oblocks.size()) - 1;
    const std::uint64_t stage =  // entries: the largest bound of a block
        std::max<std::uint64_t>(*std::max_element(obounds.begin(), obounds.end()), 1);
    // Each thread's ring holds host_fused_slots blocks of the largest bound.
    const std::uint64_t ring = host_fused_slots * stage;
    const std::uint64_t rc_stride = host_stride<O>(ring), rv_stride = host_stride<S>(ring);
    const auto stage_c = host_work_view<O>(owners, "spk::spgemm::stage_col_idx", T * rc_stride);
    const auto stage_v = host_work_view<S>(owners, "spk::spgemm::stage_values", T * rv_stride);
    HostPoolBlock c_block("spk::spgemm::C.col_idx", st.bound * sizeof(O));
    HostPoolBlock v_block("spk::spgemm::C.values", st.bound * sizeof(S));
    O* cci = static_cast<O*>(c_block.data());
    S* cv = static_cast<S*>(v_block.data());
    HostOrderedBlocks order(nb);
    HostOrderedBlocks* ord = &order;
    const std::int64_t* blk = oblocks.data();
    const std::uint64_t* bnd = obounds.data();
    O* sc0 = stage_c.data();
    S* sv0 = stage_v.data();
    // Places the claimed blocks [q0, q1): row pointers, entries, staging
    // released.  (The two staging arrays share entry numbers: thread t's
    // ring starts at t·rc_stride and t·rv_stride.)
    auto place = [=](const std::int64_t q0, const std::int64_t q1) {
      for (std::int64_t q = q0; q < q1; ++q) {
        const std::int64_t off = ord->offset[q], len = ord->length[q];
        F at = static_cast<F>(off);
        for (std::int64_t i = blk[q]; i < blk[q + 1]; ++i) {
          at += rm[i + 1];
          rm[i + 1] = at;
        }
        if (!ord->in_c[q] && len > 0) {
          const std::uint64_t t = ord->staged_at[q] / ring, e = ord->staged_at[q] % ring;
          host_stream_copy(cci + off, sc0 + t * rc_stride + e, len * sizeof(O));
          host_stream_copy(cv + off, sv0 + t * rv_stride + e, len * sizeof(S));
        }
        ord->released[q].store(1, std::memory_order_release);
      }
    };
    auto released = [=](const std::int64_t q) {
      return ord->released[q].load(std::memory_order_acquire) != 0;
    };
    // One work item per thread; each takes the next block until none is
    // left (blocks are taken in order, so a block waited for is always in
    // the hands of a running thread, whose own staged blocks all come
    // before it and can be placed).
    Kokkos::parallel_for(
        "spk::spgemm::host_fused_ordered", Kokkos::RangePolicy<ExecSpace>(space, 0, T),
        [=](const std::int64_t) {
          const int id = token.acquire();
          const auto mine = acc.claim(id);
          HostStageRing staging(ring);
          O* const rc = sc0 + id * rc_stride;
          S* const rv = sv0 + id * rv_stride;
          for (;;) {
            const std::int64_t b = ord->next.fetch_add(1, std::memory_order_relaxed);
            if (b >= nb) break;
            const std::uint64_t need = bnd[b];
            std::int64_t start = -1;
            host_spin_until([&] {
              staging.reclaim(released);
              start = staging.reserve(need);
              return start >= 0;
            });
            O* sc = rc + start;
            S* sv = rv + start;
            std::uint64_t pos = 0;
            bool direct = false;
            for (std::int64_t i = blk[b]; i < blk[b + 1]; ++i) {
              // Once every block before this one is placed, its offset is
              // known: what is staged goes to C, the rest is written there.
              if (!direct) {
                const std::int64_t off = ord->offset_if_next(b);
                if (off >= 0) {
                  host_stream_copy(cci + off, sc, pos * sizeof(O));
                  host_stream_copy(cv + off, sv, pos * sizeof(S));
                  sc = cci + off;
                  sv = cv + off;
                  direct = true;
                }
              }
              std::uint64_t len = 0;
              if (opr[i] == 0) {
              } else if (!dense) {
                len = host_numeric_hash(arm, aci, av, brm, bci, bv, i, pos, sc, sv, mine.keys,
                                        mine.hvals, host_hash_capacity(std::min(opr[i], ncols)),
                                        sorted);
              } else {
                len = host_numeric_dense_select(
                    compressed, direct, arm, aci, av, a_end, brm, bci, bv, brm, cbe, cbw, cbm, i,
                    pos, sc, sv, mine.bits, mine.bits + nw, mine.touched, mine.vals, ns, sorted);
              }
              rm[i + 1] = static_cast<F>(len);  // a length until the block is placed
              pos += len;
            }
            if (direct) host_stream_fence();  // before the block is published
            // Committed before completing: once complete, another thread
            // may place the block and release it.
            staging.commit(b, static_cast<std::uint64_t>(start), direct ? 0 : pos);
            const auto [q0, q1] =
                ord->complete(b, static_cast<std::int64_t>(pos),
                              static_cast<std::uint64_t>(id) * ring + start, direct);
            place(q0, q1);
          }
          token.release(id);
        });
    space.fence();
    const std::uint64_t nnz = static_cast<std::uint64_t>(order.end.load());
    require_fits_offset<F>(nnz, st.products, "spk::spgemm");
    col_idx = c_block.adopt<typename CMat::index_type>(nnz);
    values = v_block.adopt<typename CMat::values_type>(nnz);
    return CMat(A.num_rows(), B.num_cols(), row_map, col_idx, values);
  }
#endif

  // The other two paths cut rows into blocks of equal work (the ordered
  // path cuts its own, by bytes of the bound).
  const std::vector<std::int64_t> blocks = host_row_blocks(m, products, st.products, T);

  // Otherwise, a B that compresses very well: counting the columns on the pairs
  // (popcount) costs less than the pool's extra pass over C would, so count
  // first and write C in place.
  if (cb.word.extent(0) > 0 && st.pairs * 100 <= host_fused_max_pairs_pct * std::uint64_t(nnz_b)) {
    std::uint64_t* counts = products.data();  // products are no longer needed
    const std::int64_t* blk = blocks.data();
    const std::int64_t nblocks = static_cast<std::int64_t>(blocks.size()) - 1;
    const bool hw = host_has_popcnt();
    host_for_each_block(space, "spk::spgemm::host_count", blk, nblocks, token, acc,
                        [=](const auto& mine, const std::int64_t i0, const std::int64_t i1) {
                          for (std::int64_t i = i0; i < i1; ++i) {
                            if (counts[i] == 0) continue;  // no products: no columns
                            counts[i] = static_cast<std::uint64_t>(host_count_compressed_either(
                                hw, arm, aci, brm, cbe, cbw, cbm, i, mine.bits, mine.touched, nw));
                          }
                        });
    // Row pointers scanned in 64 bits; nnz(C) checked before C exists.
    std::int64_t nnz = 0;
    Kokkos::parallel_scan(
        "spk::spgemm::host_row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
        [=](const std::int64_t i, std::int64_t& sum, const bool final) {
          sum += static_cast<std::int64_t>(counts[i]);
          if (final) rm[i + 1] = static_cast<F>(sum);
        },
        nnz);
    require_fits_offset<F>(static_cast<std::uint64_t>(nnz), st.products, "spk::spgemm");
    allocate_host_entries(space, nnz, pooled, col_idx, values);
    O* cci = col_idx.data();
    S* cv = values.data();
    // (accumulators cleared here if this thread counted no block)
    host_for_each_block(space, "spk::spgemm::host_numeric_in_place", blk, nblocks, token, acc,
                        [=](const auto& mine, const std::int64_t i0, const std::int64_t i1) {
                          for (std::int64_t i = i0; i < i1; ++i)
                            if (rm[i + 1] != rm[i])
                              host_numeric_dense_either(compressed, arm, aci, av, a_end, brm, bci,
                                                        bv, brm, cbe, cbw, cbm, i, rm[i], cci, cv,
                                                        mine.bits, mine.bits + nw, mine.touched,
                                                        mine.vals, ns, sorted);
                        });
    space.fence();
    return CMat(A.num_rows(), B.num_cols(), row_map, col_idx, values);
  }

  // 4. Otherwise, rounds of the fused kernel (into a pool of pieces) until
  // every row is done.
  const std::uint64_t chunk =
      std::clamp<std::uint64_t>(st.bound / (64 * std::uint64_t(T)), 2048, std::uint64_t(1) << 18);
  std::vector<Kokkos::View<O*, Kokkos::HostSpace>> pool_cols;
  std::vector<Kokkos::View<S*, Kokkos::HostSpace>> pool_vals;
  std::vector<HostPiece> pieces;
  std::vector<HostTask> tasks(blocks.size() - 1);
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) tasks[b] = {blocks[b], blocks[b + 1]};
  // The first pool: 5/8 of the bound, but no more than a few times the
  // inputs (at least 16M entries) when the bound is huge: later rounds are
  // sized from the fill seen, so an underestimate costs a round (and the wait
  // for the last block at its end), not memory.  C = A·A of meshes and graphs
  // fills 40-60 % of the bound (the quick suite): half took two rounds on
  // half of it.
  const std::uint64_t first = std::min<std::uint64_t>(
      st.bound / 8 * 5, std::max<std::uint64_t>(4 * std::uint64_t(nnz_a + nnz_b), 1ull << 24));
  std::uint64_t bound_left = st.bound, cap = first + T * (chunk + max_need);
  std::vector<std::vector<HostPiece>> t_pieces(T);
  std::vector<std::vector<HostTask>> t_left(T);
  std::vector<std::uint64_t> t_pos(T), t_end(T);
  const std::uint64_t* pr = products.data();
  for (int round = 0; !tasks.empty(); ++round) {
    cap = std::min(cap, bound_left + T * chunk);
    pool_cols.push_back(host_work_view<O>(owners, "spk::spgemm::pool_col_idx", cap));
    pool_vals.push_back(host_work_view<S>(owners, "spk::spgemm::pool_values", cap));
    host_advise_unless_pooled(pool_cols.back().data(), cap * sizeof(O),
                              host_pool_serves<Kokkos::HostSpace>(cap * sizeof(O)));
    host_advise_unless_pooled(pool_vals.back().data(), cap * sizeof(S),
                              host_pool_serves<Kokkos::HostSpace>(cap * sizeof(S)));
    O* pc = pool_cols.back().data();
    S* pv = pool_vals.back().data();
    std::atomic<std::uint64_t> next(0);
    std::atomic<bool> exhausted(false);
    for (int t = 0; t < T; ++t) {
      t_pieces[t].clear();
      t_left[t].clear();
      t_pos[t] = t_end[t] = 0;
    }
    std::atomic<std::uint64_t>* next_p = &next;
    std::atomic<bool>* exhausted_p = &exhausted;
    std::vector<HostPiece>* pieces_p = t_pieces.data();
    std::vector<HostTask>* left_p = t_left.data();
    std::uint64_t* pos_p = t_pos.data();
    std::uint64_t* end_p = t_end.data();
    const HostTask* task_p = tasks.data();
    Kokkos::parallel_for(
        "spk::spgemm::host_fused",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
            space, 0, static_cast<std::int64_t>(tasks.size()))
            .set_chunk_size(1),
        [=](const std::int64_t t) {
          const std::int64_t r0 = task_p[t].row0, r1 = task_p[t].row1;
          if (exhausted_p->load(std::memory_order_relaxed)) {
            const int id = token.acquire();
            left_p[id].push_back({r0, r1});
            token.release(id);
            return;
          }
          const int id = token.acquire();
          const auto mine = acc.claim(id);
          std::uint64_t* my_bits = mine.bits;
          S* my_vals = mine.vals;
          O* my_keys = mine.keys;
          S* my_hvals = mine.hvals;
          std::uint32_t* touched = mine.touched;
          std::uint64_t pos = pos_p[id], end = end_p[id];
          HostPiece piece{r0, r0, round, pos, 0};
          std::int64_t i = r0;
          for (; i < r1; ++i) {
            const std::uint64_t p = pr[i];
            const std::uint64_t need = p < ncols ? p : ncols;
            if (pos + need > end) {
              // This chunk is full: close the piece, reserve another chunk.
              if (i > piece.row0) {
                piece.row1 = i;
                piece.count = pos - piece.start;
                pieces_p[id].push_back(piece);
              }
              const std::uint64_t size = need > chunk ? need : chunk;
              const std::uint64_t s = next_p->fetch_add(size, std::memory_order_relaxed);
              end = s < cap ? (s + size < cap ? s + size : cap) : s;
              pos = s;
              piece = HostPiece{i, i, round, pos, 0};
              if (pos + need > end) {
                exhausted_p->store(true, std::memory_order_relaxed);
                pos = end = 0;
                break;
              }
            }
            std::uint64_t len = 0;
            if (p == 0) {
            } else if (!dense) {
              len = host_numeric_hash(arm, aci, av, brm, bci, bv, i, pos, pc, pv, my_keys, my_hvals,
                                      host_hash_capacity(need), sorted);
            } else {
              len = host_numeric_dense_either(compressed, arm, aci, av, a_end, brm, bci, bv, brm,
                                              cbe, cbw, cbm, i, pos, pc, pv, my_bits, my_bits + nw,
                                              touched, my_vals, ns, sorted);
            }
            // Lengths as offsets: a wrapped one means nnz(C) does not fit
            // either, which is refused before it is used.
            rm[i + 1] = static_cast<F>(len);
            pos += len;
          }
          if (i > piece.row0) {
            piece.row1 = i;
            piece.count = pos - piece.start;
            pieces_p[id].push_back(piece);
          }
          if (i < r1) left_p[id].push_back({i, r1});
          pos_p[id] = pos;
          end_p[id] = end;
          token.release(id);
        });
    space.fence();
    // What this round wrote, for sizing the next one.
    std::uint64_t written = 0, left = 0;
    for (int t = 0; t < T; ++t)
      for (const HostPiece& p : t_pieces[t]) {
        written += p.count;
        pieces.push_back(p);
      }
    tasks.clear();
    for (int t = 0; t < T; ++t)
      for (const HostTask& a : t_left[t]) {
        tasks.push_back(a);
        for (std::int64_t i = a.row0; i < a.row1; ++i) left += std::min(pr[i], ncols);
      }
    if (tasks.empty()) break;
    // The next pool: the remaining bound at the fill seen so far, plus a
    // quarter, plus a chunk and a longest row per thread.
    const std::uint64_t done = bound_left - left;
    const double fill = done > 0 ? double(written) / double(done) : 1.0;
    bound_left = left;
    cap = static_cast<std::uint64_t>(std::min(1.0, 1.25 * fill + 0.01) * double(left)) +
          T * (chunk + max_need);
    std::sort(tasks.begin(), tasks.end(),
              [](const HostTask& a, const HostTask& b) { return a.row0 < b.row0; });
  }

  // 5. Offsets of the pieces in C, nnz(C) checked, C allocated, then one pass
  // turns the lengths into row pointers and copies the entries.
  std::sort(pieces.begin(), pieces.end(),
            [](const HostPiece& a, const HostPiece& b) { return a.row0 < b.row0; });
  std::vector<std::uint64_t> offset(pieces.size());
  std::uint64_t nnz = 0;
  for (std::size_t q = 0; q < pieces.size(); ++q) {
    offset[q] = nnz;
    nnz += pieces[q].count;
  }
  require_fits_offset<F>(nnz, st.products, "spk::spgemm");
  allocate_host_entries(space, nnz, pooled, col_idx, values);
  O* cci = col_idx.data();
  S* cv = values.data();
  const HostPiece* piece_p = pieces.data();
  const std::uint64_t* offset_p = offset.data();
  std::vector<O*> pcols(pool_cols.size());
  std::vector<S*> pvals(pool_vals.size());
  for (std::size_t r = 0; r < pool_cols.size(); ++r) {
    pcols[r] = pool_cols[r].data();
    pvals[r] = pool_vals[r].data();
  }
  O* const* pcols_p = pcols.data();
  S* const* pvals_p = pvals.data();
  Kokkos::parallel_for("spk::spgemm::host_gather",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
                           space, 0, static_cast<std::int64_t>(pieces.size()))
                           .set_chunk_size(1),
                       [=](const std::int64_t q) {
                         const HostPiece& p = piece_p[q];
                         std::uint64_t at = offset_p[q];
                         const std::uint64_t start = at;
                         for (std::int64_t i = p.row0; i < p.row1; ++i) {
                           at += static_cast<std::uint64_t>(rm[i + 1]);
                           rm[i + 1] = static_cast<F>(at);
                         }
                         std::memcpy(cci + start, pcols_p[p.round] + p.start, p.count * sizeof(O));
                         std::memcpy(cv + start, pvals_p[p.round] + p.start, p.count * sizeof(S));
                       });
  space.fence();
  return CMat(A.num_rows(), B.num_cols(), row_map, col_idx, values);
}

}  // namespace spk::Impl
