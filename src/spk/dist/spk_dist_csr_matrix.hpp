// DistCsrMatrix: a CSR matrix distributed by contiguous row blocks.
#pragma once

#include <algorithm>
#include <impl/spk_dist_csr_blocks.hpp>
#include <impl/spk_dist_matrix_market.hpp>
#include <memory>
#include <spk_csr_matrix.hpp>
#include <spk_dist_comm_plan.hpp>
#include <spk_dist_layout.hpp>
#include <spk_matrix_market.hpp>
#include <spk_mirror.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace spk::dist {

/// A global num_rows × num_cols matrix whose rows are cut into contiguous
/// blocks (row_layout) and whose columns are owned the same way
/// (col_layout, which is how x of y = A·x is distributed; for a square
/// matrix usually the row layout).  Each rank stores its rows as
///  - local_block(): the columns it owns, numbered 0 .. col_layout.local_size()-1;
///  - ghost_block(): the other columns, numbered 0 .. num_ghosts()-1 in the
///    order of ghost_gids(), which is sorted and so grouped by owning rank
///    (PETSc MPIAIJ's A/B blocks, Tpetra's column map).
/// The communication plan for x's ghost entries is built once here and
/// reused by spmv and spgemm.  Like CsrMatrix, the object is a handle:
/// copies share the data.  Construction is collective.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class DistCsrMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using local_matrix_type = CsrMatrix<Scalar, Ordinal, Offset, device_type>;
  using host_matrix_type = CsrMatrix<Scalar, Ordinal, Offset, HostDevice>;

  DistCsrMatrix() = default;

  /// From each rank's own rows: `rows` is a host CSR of row_layout.local_size()
  /// rows and col_layout.global_size() columns with global column indices
  /// (any order, no duplicates).  Collective.
  DistCsrMatrix(const RowLayout& row_layout, const RowLayout& col_layout,
                const host_matrix_type& rows)
      : row_layout_(row_layout), col_layout_(col_layout) {
    const bool shape_ok =
        rows.num_rows() == row_layout.local_size() && rows.num_cols() == col_layout.global_size();
    SPK_REQUIRE(Impl::allreduce_max<int>(row_layout.comm(), shape_ok ? 0 : 1) == 0 || !shape_ok,
                ShapeMismatch,
                "spk::dist::DistCsrMatrix: another rank's rows have the wrong shape");
    SPK_REQUIRE(shape_ok, ShapeMismatch, "spk::dist::DistCsrMatrix: rank ", row_layout.rank(),
                " passed ", +rows.num_rows(), "x", +rows.num_cols(), " rows, its layout needs ",
                row_layout.local_size(), "x", col_layout.global_size());
    // Every rank learns whether any rank's rows are bad, so that all throw
    // instead of some waiting in a collective.
    Impl::ColumnSplit<Scalar, Ordinal, Offset> split;
    std::string err;
    try {
      split = Impl::split_columns<Scalar, Ordinal, Offset>(
          rows.num_rows(), rows.num_cols(), rows.row_map(), rows.col_idx(), rows.values(),
          col_layout.begin(), col_layout.end(), row_layout.rank());
    } catch (const InvalidMatrix& e) {
      err = e.what();
    }
    const int bad = Impl::allreduce_max<int>(row_layout.comm(), err.empty() ? 0 : 1);
    if (!err.empty()) throw InvalidMatrix(err);
    SPK_REQUIRE(!bad, InvalidMatrix, "spk::dist::DistCsrMatrix: another rank's rows are invalid");
    assemble(create_mirror_view_and_copy(device_type(), split.local),
             create_mirror_view_and_copy(device_type(), split.ghost), split.ghost_gids);
  }

  /// From blocks already split, in any memory space (spgemm passes device
  /// blocks, which are shared, not copied): the local block's columns are
  /// numbered from col_layout.begin(), the ghost block's index ghost_gids
  /// (sorted global columns none of which this rank owns; ghost_gids_device,
  /// if not empty, the same list already in device memory, which the matrix
  /// then shares; a kernel may still be writing it: this fences first).
  /// Collective.
  template <class D2>
  DistCsrMatrix(const RowLayout& row_layout, const RowLayout& col_layout,
                const CsrMatrix<Scalar, Ordinal, Offset, D2>& local,
                const CsrMatrix<Scalar, Ordinal, Offset, D2>& ghost,
                const std::vector<long long>& ghost_gids,
                const Kokkos::View<long long*, device_type>& ghost_gids_device = {})
      : DistCsrMatrix(Impl::GhostListComplete(), execution_space(), row_layout, col_layout, local,
                      ghost, ghost_gids, fenced(ghost_gids_device)) {}

  /// As above, for a ghost_gids_device that no kernel is still writing: no
  /// fence, and only the blocks' extents are read, so kernels may still be
  /// writing their columns and values (spk::dist::spgemm builds C's plan
  /// while the local block's numeric runs).  The plan's device work runs on
  /// `space`, the only instance it waits for.  step (optional) times the
  /// plan's stages.  Collective.
  template <class ExecSpace, class D2>
  DistCsrMatrix(Impl::GhostListComplete, const ExecSpace& space, const RowLayout& row_layout,
                const RowLayout& col_layout, const CsrMatrix<Scalar, Ordinal, Offset, D2>& local,
                const CsrMatrix<Scalar, Ordinal, Offset, D2>& ghost,
                const std::vector<long long>& ghost_gids,
                const Kokkos::View<long long*, device_type>& ghost_gids_device,
                const Impl::StepTimer& step = {})
      : row_layout_(row_layout), col_layout_(col_layout) {
    assemble(space, shared_or_copied(local), shared_or_copied(ghost), ghost_gids, ghost_gids_device,
             step);
  }

  /// Distributes a global host matrix held by `root` (the argument is
  /// ignored on other ranks) with the given layouts.  Collective.
  static DistCsrMatrix scatter(const host_matrix_type& global, const RowLayout& row_layout,
                               const RowLayout& col_layout, int root = 0) {
    MPI_Comm comm = row_layout.comm();
    const int p = row_layout.num_ranks(), me = row_layout.rank();
    std::vector<int> len_counts(p), len_displs(p), nz_counts(p), nz_displs(p);
    std::vector<long long> lengths;
    if (me == root) {
      SPK_REQUIRE(global.num_rows() == row_layout.global_size() &&
                      global.num_cols() == col_layout.global_size(),
                  ShapeMismatch, "spk::dist::scatter: matrix is ", +global.num_rows(), "x",
                  +global.num_cols(), ", layouts are ", row_layout.global_size(), "x",
                  col_layout.global_size());
      lengths.resize(global.num_rows());
      for (long long i = 0; i < global.num_rows(); ++i)
        lengths[i] = global.row_map()(i + 1) - global.row_map()(i);
      // A default 0 x 0 matrix may have an empty row_map.
      auto rp = [&](long long i) -> long long {
        return global.row_map().extent(0) > 0 ? static_cast<long long>(global.row_map()(i)) : 0;
      };
      for (int r = 0; r < p; ++r) {
        const long long b = row_layout.offset(r), e = row_layout.offset(r + 1);
        len_counts[r] = Impl::mpi_count(e - b, "a row count");
        len_displs[r] = Impl::mpi_count(b, "a row offset");
        nz_counts[r] = Impl::mpi_count(rp(e) - rp(b), "an nnz count");
        nz_displs[r] = Impl::mpi_count(rp(b), "an nnz offset");
      }
    }
    const long long nloc = row_layout.local_size();
    std::vector<long long> my_len(nloc);
    SPK_MPI(MPI_Scatterv(lengths.data(), len_counts.data(), len_displs.data(), MPI_LONG_LONG,
                         my_len.data(), Impl::mpi_count(nloc, "a row count"), MPI_LONG_LONG, root,
                         comm));
    long long my_nnz = 0;
    for (long long l : my_len) my_nnz += l;
    host_matrix_type rows("spk::dist::scattered", static_cast<Ordinal>(nloc),
                          static_cast<Ordinal>(col_layout.global_size()),
                          static_cast<Offset>(my_nnz));
    for (long long i = 0; i < nloc; ++i)
      rows.row_map()(i + 1) = static_cast<Offset>(rows.row_map()(i) + my_len[i]);
    scatter_entries(comm, root, me == root ? global.col_idx().data() : nullptr, nz_counts,
                    nz_displs, rows.col_idx().data(), my_nnz);
    scatter_entries(comm, root, me == root ? global.values().data() : nullptr, nz_counts, nz_displs,
                    rows.values().data(), my_nnz);
    return DistCsrMatrix(row_layout, col_layout, rows);
  }

  /// Distributes a global host matrix held by `root`, cutting its rows by
  /// `partition`.  Square matrices get the same layout for columns (x is
  /// distributed like y); rectangular ones get columns balanced by count.
  static DistCsrMatrix scatter(MPI_Comm comm, const host_matrix_type& global,
                               Partition partition = Partition::Rows, int root = 0) {
    long long shape[2] = {global.num_rows(), global.num_cols()};
    SPK_MPI(MPI_Bcast(shape, 2, MPI_LONG_LONG, root, comm));
    RowLayout rl;
    if (partition == Partition::Nnz) {
      std::vector<long long> rp;
      if (Impl::comm_rank(comm) == root) {
        rp.resize(shape[0] + 1, 0);
        for (long long i = 0; i <= shape[0] && global.row_map().extent(0) > 0; ++i)
          rp[i] = global.row_map()(i);
      }
      rl = RowLayout::by_nnz(comm, rp, root);
    } else {
      rl = RowLayout::balanced(comm, shape[0]);
    }
    const RowLayout cl = shape[0] == shape[1] ? rl : RowLayout::balanced(comm, shape[1]);
    return scatter(global, rl, cl, root);
  }

  /// Rank `root` reads a Matrix Market file and distributes it.  Every rank
  /// throws the reader's error (a MatrixMarketError with its line for a bad
  /// file), not only the reader, so that no one hangs.
  static DistCsrMatrix read_matrix_market(MPI_Comm comm, const std::string& path,
                                          Partition partition = Partition::Rows, int root = 0) {
    host_matrix_type A;
    Impl::RankError err;
    if (Impl::comm_rank(comm) == root) {
      try {
        A = read_csr<Scalar, Ordinal, Offset>(path);
      } catch (const MatrixMarketError& e) {
        err = {Impl::RankError::File, e.line(), e.reason()};
      } catch (const std::exception& e) {
        err = {Impl::RankError::Other, 0,
               std::string("spk::dist::read_matrix_market: ") + e.what()};
      }
    }
    Impl::throw_on_every_rank(comm, err, path);
    return scatter(comm, A, partition, root);
  }

  /// Every rank reads its share of an uncompressed Matrix Market file (its
  /// bytes cut at line ends) and sends each entry to the rank that owns its
  /// row: no rank holds the whole matrix, rank 0 reads only the header.  The
  /// result is read_matrix_market's (Partition::Nnz here counts entries as
  /// stored, before duplicates are summed; Partition::Nnz needs a count per
  /// row on every rank).  A gzip file cannot be read from the middle: rank 0
  /// reads it (read_matrix_market), as does a single rank.  Values are
  /// parsed as read_csr parses them (complex files into a complex Scalar
  /// only).  Collective; every rank throws the MatrixMarketError of the
  /// first bad line in the file.
  static DistCsrMatrix read_matrix_market_parallel(MPI_Comm comm, const std::string& path,
                                                   Partition partition = Partition::Rows) {
    const Impl::MMStart st = Impl::mm_start(comm, path);
    // (one rank: the single-process reader is the same and faster)
    if (st.gzip || Impl::comm_size(comm) == 1) return read_matrix_market(comm, path, partition);
    RowLayout rl, cl;
    const auto rows = Impl::read_rows_parallel<Scalar, Ordinal, Offset>(
        comm, path, st, partition == Partition::Nnz, rl, cl);
    return DistCsrMatrix(rl, cl, rows);
  }

  /// This rank's rows as host CSR with global column indices, columns
  /// sorted within each row.
  host_matrix_type local_rows_global() const {
    auto L = create_mirror_view_and_copy_host(local_);
    auto G = create_mirror_view_and_copy_host(ghost_);
    const long long n = L.num_rows();
    host_matrix_type R("spk::dist::rows", static_cast<Ordinal>(n), static_cast<Ordinal>(num_cols()),
                       L.nnz() + G.nnz());
    std::vector<std::pair<long long, Scalar>> row;
    long long q = 0;
    for (long long i = 0; i < n; ++i) {
      row.clear();
      for (long long k = L.row_map()(i); k < static_cast<long long>(L.row_map()(i + 1)); ++k)
        row.emplace_back(L.col_idx()(k) + col_layout_.begin(), L.values()(k));
      for (long long k = G.row_map()(i); k < static_cast<long long>(G.row_map()(i + 1)); ++k)
        row.emplace_back(ghost_gids_host_[G.col_idx()(k)], G.values()(k));
      std::stable_sort(row.begin(), row.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [c, v] : row) {
        R.col_idx()(q) = static_cast<Ordinal>(c);
        R.values()(q++) = v;
      }
      R.row_map()(i + 1) = static_cast<Offset>(q);
    }
    return R;
  }

  /// The global matrix on `root` (columns sorted within rows); other ranks
  /// get an empty 0 × 0 matrix.  Collective.
  host_matrix_type gather(int root = 0) const {
    MPI_Comm comm = row_layout_.comm();
    const int p = row_layout_.num_ranks(), me = row_layout_.rank();
    const auto R = local_rows_global();
    const long long n = R.num_rows(), nz = R.nnz();
    std::vector<long long> my_len(n);
    for (long long i = 0; i < n; ++i) my_len[i] = R.row_map()(i + 1) - R.row_map()(i);
    std::vector<long long> nzs(p);
    SPK_MPI(MPI_Gather(&nz, 1, MPI_LONG_LONG, nzs.data(), 1, MPI_LONG_LONG, root, comm));
    std::vector<int> len_counts(p), len_displs(p), nz_counts(p), nz_displs(p);
    long long total = 0;
    if (me == root)
      for (int r = 0; r < p; ++r) {
        len_counts[r] = Impl::mpi_count(row_layout_.size_of(r), "a row count");
        len_displs[r] = Impl::mpi_count(row_layout_.offset(r), "a row offset");
        nz_counts[r] = Impl::mpi_count(nzs[r], "an nnz count");
        nz_displs[r] = Impl::mpi_count(total, "an nnz offset");
        total += nzs[r];
      }
    std::vector<long long> lengths(me == root ? num_rows() : 0);
    SPK_MPI(MPI_Gatherv(my_len.data(), Impl::mpi_count(n, "a row count"), MPI_LONG_LONG,
                        lengths.data(), len_counts.data(), len_displs.data(), MPI_LONG_LONG, root,
                        comm));
    host_matrix_type A;
    if (me == root) {
      A = host_matrix_type("spk::dist::gathered", static_cast<Ordinal>(num_rows()),
                           static_cast<Ordinal>(num_cols()), static_cast<Offset>(total));
      for (long long i = 0; i < num_rows(); ++i)
        A.row_map()(i + 1) = static_cast<Offset>(A.row_map()(i) + lengths[i]);
    }
    gather_entries(comm, root, R.col_idx().data(), nz, nz_counts, nz_displs,
                   me == root ? A.col_idx().data() : nullptr);
    gather_entries(comm, root, R.values().data(), nz, nz_counts, nz_displs,
                   me == root ? A.values().data() : nullptr);
    return A;
  }

  MPI_Comm comm() const noexcept { return row_layout_.comm(); }
  long long num_rows() const noexcept { return row_layout_.global_size(); }
  long long num_cols() const noexcept { return col_layout_.global_size(); }
  long long global_nnz() const noexcept { return global_nnz_; }
  long long local_nnz() const noexcept { return local_.nnz() + ghost_.nnz(); }
  long long num_ghosts() const noexcept { return static_cast<long long>(ghost_gids_host_.size()); }
  const RowLayout& row_layout() const noexcept { return row_layout_; }
  const RowLayout& col_layout() const noexcept { return col_layout_; }
  const local_matrix_type& local_block() const noexcept { return local_; }
  const local_matrix_type& ghost_block() const noexcept { return ghost_; }
  /// The ghost block without its empty rows (shares its columns and
  /// values), and the local row of each of its rows.  Built at first use
  /// (the first spmv), on this rank alone.
  const local_matrix_type& ghost_compressed_block() const {
    return spmv_workspace().ghost_compressed;
  }
  const Kokkos::View<Ordinal*, device_type>& ghost_rows() const {
    return spmv_workspace().ghost_rows;
  }
  /// Global column of each ghost column, sorted (host and device copies).
  const std::vector<long long>& ghost_gids() const noexcept { return ghost_gids_host_; }
  const Kokkos::View<long long*, device_type>& ghost_gids_view() const noexcept {
    return ghost_gids_;
  }
  const CommPlan<device_type>& plan() const noexcept { return *plan_; }

  /// Scratch of spmv (x's ghost entries, the exchange buffers, the
  /// compressed ghost rows), made by the first spmv: a product such as
  /// spgemm's C need not pay for it unless it is used in an spmv.
  struct SpmvWorkspace {
    bool ready = false;
    Kokkos::View<Scalar*, device_type> x_ghost, y_ghost;
    HaloBuffers<Scalar, device_type> buffers;
    local_matrix_type ghost_compressed;
    Kokkos::View<Ordinal*, device_type> ghost_rows;
  };
  SpmvWorkspace& spmv_workspace() const {
    SpmvWorkspace& ws = *workspace_;
    if (!ws.ready) {
      // The rows that have ghost entries, as a compressed-row matrix sharing
      // the ghost block's columns and values (PETSc's "compressed row" B
      // block): the ghost product then runs over those rows only, not over
      // every local row.
      ws.ghost_compressed = Impl::nonempty_rows(execution_space(), ghost_, ws.ghost_rows);
      ws.x_ghost = Kokkos::View<Scalar*, device_type>("spk::dist::x_ghost", num_ghosts());
      ws.y_ghost =
          Kokkos::View<Scalar*, device_type>("spk::dist::y_ghost", ws.ghost_rows.extent(0));
      ws.ready = true;
    }
    return ws;
  }

 private:
  /// M in this matrix's memory: M's Views when they live there (without the
  /// fence of Kokkos::create_mirror_view_and_copy, which would wait for the
  /// kernels still writing M), else a copy.
  template <class D2>
  static local_matrix_type shared_or_copied(const CsrMatrix<Scalar, Ordinal, Offset, D2>& M) {
    if constexpr (std::is_same_v<typename CsrMatrix<Scalar, Ordinal, Offset, D2>::memory_space,
                                 memory_space>)
      return local_matrix_type(M.num_rows(), M.num_cols(), M.row_map(), M.col_idx(), M.values());
    else
      return create_mirror_view_and_copy(device_type(), M);
  }

  /// `list` once every kernel has finished (it may still be being written).
  static const Kokkos::View<long long*, device_type>& fenced(
      const Kokkos::View<long long*, device_type>& list) {
    if (list.extent(0) > 0) Kokkos::fence();
    return list;
  }

  void assemble(const local_matrix_type& local, const local_matrix_type& ghost,
                const std::vector<long long>& ghost_gids) {
    assemble(execution_space(), local, ghost, ghost_gids);
  }

  template <class ExecSpace>
  void assemble(const ExecSpace& space, const local_matrix_type& local,
                const local_matrix_type& ghost, const std::vector<long long>& ghost_gids,
                const Kokkos::View<long long*, device_type>& ghost_gids_device = {},
                const Impl::StepTimer& step = {}) {
    local_ = local;
    ghost_ = ghost;
    ghost_gids_host_ = ghost_gids;
    if (ghost_gids_device.extent(0) == ghost_gids.size() && ghost_gids.size() > 0) {
      ghost_gids_ = ghost_gids_device;
    } else if (ghost_gids.empty()) {
      // (no allocation, whose free would synchronise the device)
      ghost_gids_ = Kokkos::View<long long*, device_type>();
    } else {
      ghost_gids_ = Kokkos::View<long long*, device_type>(
          Kokkos::ViewAllocateWithoutInitializing("spk::dist::ghost_gids"), ghost_gids.size());
      Kokkos::View<const long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(
          ghost_gids.data(), ghost_gids.size());
      Kokkos::deep_copy(space, ghost_gids_, h);
      space.fence();  // h is the caller's
    }
    if (step) step("plan.ghost_gids");
    plan_ =
        std::make_shared<CommPlan<device_type>>(space, col_layout_, ghost_gids, ghost_gids_, step);
    global_nnz_ = Impl::allreduce_sum<long long>(comm(), local_nnz());
    workspace_ = std::make_shared<SpmvWorkspace>();
    if (step) step("plan.global_nnz");
  }

  template <class T>
  static void scatter_entries(MPI_Comm comm, int root, const T* send,
                              const std::vector<int>& counts, const std::vector<int>& displs,
                              T* recv, long long n) {
    // Whole entries as bytes: any Scalar type, counts scaled to bytes.
    std::vector<int> bc(counts.size()), bd(displs.size());
    for (size_t r = 0; r < counts.size(); ++r) {
      bc[r] = Impl::mpi_count(static_cast<long long>(counts[r]) * sizeof(T), "a scatter");
      bd[r] = Impl::mpi_count(static_cast<long long>(displs[r]) * sizeof(T), "a scatter offset");
    }
    SPK_MPI(MPI_Scatterv(send, bc.data(), bd.data(), MPI_BYTE, recv,
                         Impl::mpi_count(n * sizeof(T), "a scatter"), MPI_BYTE, root, comm));
  }

  template <class T>
  static void gather_entries(MPI_Comm comm, int root, const T* send, long long n,
                             const std::vector<int>& counts, const std::vector<int>& displs,
                             T* recv) {
    std::vector<int> bc(counts.size()), bd(displs.size());
    for (size_t r = 0; r < counts.size(); ++r) {
      bc[r] = Impl::mpi_count(static_cast<long long>(counts[r]) * sizeof(T), "a gather");
      bd[r] = Impl::mpi_count(static_cast<long long>(displs[r]) * sizeof(T), "a gather offset");
    }
    SPK_MPI(MPI_Gatherv(send, Impl::mpi_count(n * sizeof(T), "a gather"), MPI_BYTE, recv, bc.data(),
                        bd.data(), MPI_BYTE, root, comm));
  }

  RowLayout row_layout_, col_layout_;
  local_matrix_type local_, ghost_;
  std::vector<long long> ghost_gids_host_;
  Kokkos::View<long long*, device_type> ghost_gids_;
  std::shared_ptr<CommPlan<device_type>> plan_;
  std::shared_ptr<SpmvWorkspace> workspace_;
  long long global_nnz_ = 0;
};

}  // namespace spk::dist
