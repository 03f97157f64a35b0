// RowLayout: which contiguous block of global rows (or vector entries) each
// rank of a communicator owns.  Rows are never split between ranks.
#pragma once

#include <algorithm>
#include <impl/spk_dist_mpi.hpp>
#include <vector>

namespace spk::dist {

/// How a global matrix is cut into row blocks.
enum class Partition {
  Rows,  ///< equal numbers of rows (the PETSc / Tpetra default)
  Nnz    ///< about equal numbers of nonzeros, cut only between rows
};

/// Contiguous blocks: rank r owns global indices [offset(r), offset(r+1)).
/// Every rank holds all P + 1 offsets, so owner() needs no communication.
/// Ranks may own nothing (more ranks than rows, or by choice).
class RowLayout {
 public:
  RowLayout() = default;

  /// From explicit offsets (size P + 1, non-decreasing, starting at 0);
  /// identical on every rank (not checked across ranks).
  RowLayout(MPI_Comm comm, std::vector<long long> offsets)
      : comm_(comm), offsets_(std::move(offsets)) {
    rank_ = Impl::comm_rank(comm);
    const int p = Impl::comm_size(comm);
    SPK_REQUIRE(offsets_.size() == static_cast<size_t>(p) + 1 && offsets_[0] == 0, InvalidMatrix,
                "spk::dist::RowLayout: expected ", p + 1, " offsets starting at 0, got ",
                offsets_.size());
    for (int r = 0; r < p; ++r)
      SPK_REQUIRE(offsets_[r] <= offsets_[r + 1], InvalidMatrix,
                  "spk::dist::RowLayout: offsets decrease at rank ", r, " (", offsets_[r], " > ",
                  offsets_[r + 1], ")");
  }

  /// n rows split as evenly as possible by count (the first n % P ranks get
  /// one more).
  static RowLayout balanced(MPI_Comm comm, long long n) {
    SPK_REQUIRE(n >= 0, InvalidMatrix, "spk::dist::RowLayout: negative size ", n);
    const int p = Impl::comm_size(comm);
    std::vector<long long> off(p + 1, 0);
    for (int r = 0; r < p; ++r) off[r + 1] = off[r] + n / p + (r < n % p ? 1 : 0);
    return RowLayout(comm, std::move(off));
  }

  /// Each rank passes how many rows it owns (collective).
  static RowLayout from_local_size(MPI_Comm comm, long long local_size) {
    SPK_REQUIRE(local_size >= 0, InvalidMatrix, "spk::dist::RowLayout: negative local size ",
                local_size, " on rank ", Impl::comm_rank(comm));
    const int p = Impl::comm_size(comm);
    std::vector<long long> sizes(p);
    SPK_MPI(MPI_Allgather(&local_size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, comm));
    std::vector<long long> off(p + 1, 0);
    for (int r = 0; r < p; ++r) off[r + 1] = off[r] + sizes[r];
    return RowLayout(comm, std::move(off));
  }

  /// Cuts between rows so that each rank gets about nnz / P entries: rank r
  /// starts at the row boundary nearest to r·nnz/P.  `row_ptr` (n + 1
  /// entries, any integer type) is read on `root` only; the cut is
  /// broadcast (collective).  A matrix without entries is cut by rows.
  template <class RowPtr>
  static RowLayout by_nnz(MPI_Comm comm, const RowPtr& row_ptr, int root = 0) {
    const int p = Impl::comm_size(comm);
    std::vector<long long> off(p + 1, 0);
    if (Impl::comm_rank(comm) == root) {
      const long long n = static_cast<long long>(row_ptr.size()) - 1;
      const long long nnz = n >= 0 ? static_cast<long long>(row_ptr[n]) : 0;
      if (nnz == 0) {
        for (int r = 0; r < p; ++r) off[r + 1] = off[r] + n / p + (r < n % p ? 1 : 0);
      } else {
        for (int r = 1; r < p; ++r) {
          const long long target = static_cast<long long>((static_cast<double>(nnz) * r) / p);
          // First row boundary at or past the target, or the one just before
          // it when that is closer.
          long long lo = off[r - 1], hi = n;
          while (lo < hi) {
            const long long mid = lo + (hi - lo) / 2;
            if (static_cast<long long>(row_ptr[mid]) < target)
              lo = mid + 1;
            else
              hi = mid;
          }
          if (lo > off[r - 1] && target - static_cast<long long>(row_ptr[lo - 1]) <
                                     static_cast<long long>(row_ptr[lo]) - target)
            --lo;
          off[r] = lo;
        }
        off[p] = n;
      }
    }
    SPK_MPI(MPI_Bcast(off.data(), p + 1, MPI_LONG_LONG, root, comm));
    return RowLayout(comm, std::move(off));
  }

  MPI_Comm comm() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int num_ranks() const noexcept { return static_cast<int>(offsets_.size()) - 1; }
  long long global_size() const noexcept { return offsets_.empty() ? 0 : offsets_.back(); }
  /// First global index this rank owns, and how many.
  long long begin() const noexcept { return offsets_[rank_]; }
  long long end() const noexcept { return offsets_[rank_ + 1]; }
  long long local_size() const noexcept { return end() - begin(); }
  long long offset(int r) const noexcept { return offsets_[r]; }
  long long size_of(int r) const noexcept { return offsets_[r + 1] - offsets_[r]; }
  const std::vector<long long>& offsets() const noexcept { return offsets_; }
  bool owns(long long g) const noexcept { return g >= begin() && g < end(); }

  /// The rank owning global index g (the last of several empty ranks'
  /// neighbours: the rank whose block contains g).
  int owner(long long g) const {
    SPK_REQUIRE(g >= 0 && g < global_size(), InvalidMatrix, "spk::dist::RowLayout: index ", g,
                " outside [0, ", global_size(), ")");
    return static_cast<int>(std::upper_bound(offsets_.begin(), offsets_.end(), g) -
                            offsets_.begin()) -
           1;
  }

  friend bool operator==(const RowLayout& a, const RowLayout& b) {
    return a.offsets_ == b.offsets_;
  }
  friend bool operator!=(const RowLayout& a, const RowLayout& b) { return !(a == b); }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::vector<long long> offsets_{0, 0};
};

}  // namespace spk::dist
