// Row blocks of about equal work over a CSR row map (merge path): host
// SpMV's blocks, the host transpose's blocks, and CUDA merge-path SpMV.
#pragma once

#include <Kokkos_Core.hpp>

namespace spk::Impl {

/// Merge-path split of diagonal `diag` (Merrill & Garland): the number of
/// row ends among the first diag items of the merge of row_map(1..) with the
/// nonzero indices; the nonzeros consumed are diag minus that.
template <class RowMap>
KOKKOS_INLINE_FUNCTION long long merge_path_search(const RowMap& row_map, long long num_rows,
                                                   long long nnz, long long diag) {
  long long lo = diag - nnz > 0 ? diag - nnz : 0;
  long long hi = diag < num_rows ? diag : num_rows;
  while (lo < hi) {
    const long long mid = (lo + hi) / 2;
    if (static_cast<long long>(row_map(mid + 1)) <= diag - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// The first row of block t of `blocks` row blocks of about equal rows +
/// entries: the row in which the merge path's diagonal t·(rows + nnz) /
/// blocks lies (rows are never split).  Host SpMV's scalar blocks and the
/// host transpose's per-thread blocks.
template <class RowMap>
KOKKOS_INLINE_FUNCTION long long row_block_start(const RowMap& row_map, long long num_rows,
                                                 long long nnz, long long t, long long blocks) {
  const long long total = num_rows + nnz;
  // t·total / blocks without overflow.
  const long long diag = t >= blocks ? total : t * (total / blocks) + t * (total % blocks) / blocks;
  return merge_path_search(row_map, num_rows, nnz, diag);
}

}  // namespace spk::Impl
