// Reading a Matrix Market file on every rank at once: each rank parses its
// share of the file's bytes (cut at line ends), the entries go to the ranks
// that own their rows, and each rank builds its rows (duplicates summed, as
// the single-process reader does).  Rank 0 reads only the header.  Values
// are parsed as the single-process reader parses them: in the scalar's
// precision, complex for a complex file.  A gzip file cannot be read from
// the middle: the caller reads it on one rank.
#pragma once

#include <mpi.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <impl/spk_dist_mpi.hpp>
#include <limits>
#include <spk_convert.hpp>
#include <spk_dist_layout.hpp>
#include <spk_matrix_market.hpp>
#include <string>
#include <vector>

namespace spk::dist::Impl {

/// An open file read by byte ranges (closed with the object).
class ByteFile {
 public:
  explicit ByteFile(const std::string& path) : path_(path) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw MatrixMarketError(path, 0, "is a directory, not a Matrix Market file");
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_)
      throw MatrixMarketError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    if (::fstat(fileno(f_), &st) == 0 && S_ISREG(st.st_mode)) {
      regular_ = true;
      size_ = static_cast<long long>(st.st_size);
    }
  }
  /// Only regular files can be read by byte ranges (a pipe cannot seek).
  bool regular() const { return regular_; }
  ByteFile(const ByteFile&) = delete;
  ByteFile& operator=(const ByteFile&) = delete;
  ~ByteFile() { std::fclose(f_); }
  long long size() const { return size_; }
  /// Bytes [from, from + n) (fewer at the end of the file).
  std::string read(long long from, long long n) const {
    n = std::max(0LL, std::min(n, size_ - from));
    std::string out(static_cast<size_t>(n), '\0');
    if (n > 0 && (std::fseek(f_, from, SEEK_SET) != 0 ||
                  std::fread(&out[0], 1, out.size(), f_) != out.size()))
      throw MatrixMarketError(
          path_, 0,
          "cannot read bytes " + std::to_string(from) + " to " + std::to_string(from + n));
    return out;
  }
  /// The position just past the first '\n' at or after `pos` (the size of
  /// the file if there is none).
  long long line_start_after(long long pos) const {
    constexpr long long block = 1 << 16;
    for (long long p = std::max(0LL, pos); p < size_; p += block) {
      const std::string b = read(p, block);
      const size_t nl = b.find('\n');
      if (nl != std::string::npos) return p + static_cast<long long>(nl) + 1;
    }
    return size_;
  }
  bool gzip() const {
    const std::string m = read(0, 2);
    return m.size() == 2 && static_cast<unsigned char>(m[0]) == 0x1f &&
           static_cast<unsigned char>(m[1]) == 0x8b;
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  long long size_ = 0;
  bool regular_ = false;
};

/// What rank 0 learns from the header and every rank needs.
struct MMStart {
  MatrixMarketHeader header;
  long long data_begin = 0, data_line = 1, file_size = 0;
  int gzip = 0;  // read on one rank: gzip, or not a regular file (a pipe)
};

/// Rank 0 reads the banner and size line (the first 64 KiB, more while the
/// size line is not complete) and broadcasts them; every rank throws rank
/// 0's error.  Collective.
inline MMStart mm_start(MPI_Comm comm, const std::string& path) {
  MMStart st;
  RankError err;
  if (comm_rank(comm) == 0) {
    try {
      const ByteFile f(path);
      st.file_size = f.size();
      st.gzip = !f.regular() || f.gzip() ? 1 : 0;
      for (long long n = 1 << 16; !st.gzip; n *= 2) {
        const std::string text = f.read(0, n);
        const bool whole = static_cast<long long>(text.size()) >= f.size();
        try {
          const spk::Impl::ParsedHeader ph = spk::Impl::parse_header(path, text);
          // (a size line cut at the end of what was read may look complete)
          if (!whole && ph.data_begin >= text.size()) continue;
          st.header = ph.header;
          st.data_begin = static_cast<long long>(ph.data_begin);
          st.data_line = ph.data_line;
          break;
        } catch (const MatrixMarketError&) {
          if (whole) throw;
        }
      }
    } catch (const MatrixMarketError& e) {
      err = {RankError::File, e.line(), e.reason()};
    } catch (const std::exception& e) {
      err = {RankError::Other, 0, e.what()};
    }
  }
  throw_on_every_rank(comm, err, path);
  SPK_MPI(MPI_Bcast(&st, static_cast<int>(sizeof(MMStart)), MPI_BYTE, 0, comm));
  return st;
}

/// One entry on its way to the rank that owns its row (0-based), its value
/// V as parsed (real, or complex for a complex file).
template <class V>
struct MMTriplet {
  long long row, col;
  V value;
};

/// Every rank's `out`, cut into runs for each rank (send_count[r] items for
/// rank r, from send_at[r] on), to those ranks: returns what this rank gets,
/// rank by rank.  `what` names the data in an overflow error.  Collective.
template <class T>
std::vector<T> exchange_by_rank(MPI_Comm comm, const std::vector<T>& out,
                                const std::vector<long long>& send_count,
                                const std::vector<long long>& send_at, const char* what) {
  const int p = comm_size(comm);
  std::vector<long long> recv_count(p, 0);
  SPK_MPI(
      MPI_Alltoall(send_count.data(), 1, MPI_LONG_LONG, recv_count.data(), 1, MPI_LONG_LONG, comm));
  std::vector<int> sc(p), sd(p), rc(p), rd(p);
  long long nrecv = 0;
  const long long tb = static_cast<long long>(sizeof(T));
  for (int r = 0; r < p; ++r) {
    sc[r] = mpi_count(send_count[r] * tb, what);
    sd[r] = mpi_count(send_at[r] * tb, what);
    rc[r] = mpi_count(recv_count[r] * tb, what);
    rd[r] = mpi_count(nrecv * tb, what);
    nrecv += recv_count[r];
  }
  std::vector<T> in(static_cast<size_t>(nrecv));
  SPK_MPI(MPI_Alltoallv(out.data(), sc.data(), sd.data(), MPI_BYTE, in.data(), rc.data(), rd.data(),
                        MPI_BYTE, comm));
  return in;
}

/// The single-process reader's rule that a symmetric coordinate file stores
/// one triangle (spk::Impl::check_one_triangle), across ranks: when the file
/// has entries in both strict triangles (one allreduce tells), each
/// off-diagonal entry's unordered pair goes to rank (larger index mod P),
/// which finds the pairs stored in both triangles; the pair completed first
/// in file order is every rank's error, at the later entry's line.  first_line
/// and first_entry: the file's line and entry number of this rank's text.
template <class Entry>
void check_one_triangle_parallel(MPI_Comm comm, const std::string& path, const std::string& text,
                                 const spk::Impl::Chunks& ch, long long first_line,
                                 long long first_entry, const MatrixMarketHeader& h,
                                 const std::vector<Entry>& stored) {
  const int p = comm_size(comm);
  long long both[2] = {0, 0};  // entries above, below the diagonal
  for (const Entry& e : stored)
    if (!e.skip && e.row != e.col) both[e.row < e.col ? 0 : 1] = 1;
  SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_LONG_LONG, MPI_MAX, comm));
  if (!both[0] || !both[1]) return;
  using spk::Impl::TriangleKey;
  std::vector<long long> send_count(p, 0), send_at(p + 1, 0);
  for (const Entry& e : stored)
    if (!e.skip && e.row != e.col) ++send_count[std::max(e.row, e.col) % p];
  for (int r = 0; r < p; ++r) send_at[r + 1] = send_at[r] + send_count[r];
  std::vector<TriangleKey> out(static_cast<size_t>(send_at[p]));
  {
    std::vector<long long> at(send_at.begin(), send_at.end() - 1);
    for (size_t k = 0; k < stored.size(); ++k) {
      const Entry& e = stored[k];
      if (e.skip || e.row == e.col) continue;
      out[at[std::max(e.row, e.col) % p]++] =
          spk::Impl::triangle_key(e.row, e.col, first_entry + static_cast<long long>(k));
    }
  }
  std::vector<TriangleKey> in =
      exchange_by_rank(comm, out, send_count, send_at, "a Matrix Market read's mirrored pairs");
  const std::array<long long, 2> pair = spk::Impl::first_mirrored_pair(in);  // later, earlier
  long long later = pair[0];
  SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, &later, 1, MPI_LONG_LONG, MPI_MIN, comm));
  if (later == std::numeric_limits<long long>::max()) return;
  long long earlier = pair[0] == later ? pair[1] : -1;
  SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, &earlier, 1, MPI_LONG_LONG, MPI_MAX, comm));
  // Line, row and column of both entries, from the ranks that parsed them
  // (the others add zeros).
  long long where[6] = {0, 0, 0, 0, 0, 0};
  for (const long long k : {later, earlier}) {
    const long long local = k - first_entry;
    if (local < 0 || local >= static_cast<long long>(stored.size())) continue;
    long long* w = where + (k == later ? 0 : 3);
    w[0] = first_line + spk::Impl::line_of_entry(text, ch, local);
    w[1] = stored[local].row;
    w[2] = stored[local].col;
  }
  SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, where, 6, MPI_LONG_LONG, MPI_SUM, comm));
  throw MatrixMarketError(
      path, where[0],
      spk::Impl::mirrored_pair_reason(h, where[1], where[2], where[4], where[5], where[3]));
}

/// read_rows_parallel with the values parsed as V.
template <class V, class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> read_rows_parallel_as(MPI_Comm comm, const std::string& path,
                                                     const MMStart& st, bool by_nnz,
                                                     RowLayout& row_layout, RowLayout& col_layout) {
  const MatrixMarketHeader& h = st.header;
  const int p = comm_size(comm), me = comm_rank(comm);
  auto fail = [&](long long line, const std::string& what) {
    throw MatrixMarketError(path, line, what);
  };
  if (h.rows > static_cast<long long>(std::numeric_limits<O>::max()) ||
      h.cols > static_cast<long long>(std::numeric_limits<O>::max()))
    fail(st.data_line - 1, "size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                               " does not fit the ordinal type " + spk::Impl::type_name<O>());

  // 1. This rank's bytes: [data_begin + n·r/P, data_begin + n·(r+1)/P),
  // each end moved past the next line end (the same rule on both sides of
  // a cut, so every line is read by exactly one rank).
  std::string text;
  RankError io_error;
  try {
    const ByteFile f(path);
    const long long n = std::max(0LL, st.file_size - st.data_begin);
    const long long s = st.data_begin + n * me / p, e = st.data_begin + n * (me + 1) / p;
    const long long begin = me == 0 ? st.data_begin : f.line_start_after(s - 1);
    const long long end = me == p - 1 ? st.file_size : f.line_start_after(e - 1);
    text = f.read(begin, std::max(0LL, end - begin));
  } catch (const std::exception& x) {
    io_error = {RankError::File, 0, "rank " + std::to_string(me) + ": " + x.what()};
  }
  // (a rank that cannot read its part must not leave the others waiting)
  throw_on_every_rank(comm, io_error, path);

  // 2. Lines and entry lines before this rank's: its first line number and
  // entry index.  The rank's text is parsed in chunks by its host threads,
  // as the single-process reader parses the whole file.
  using Host = Kokkos::DefaultHostExecutionSpace;
  const spk::Impl::Chunks ch = spk::Impl::split_chunks(text, 0, 0);
  const int chunks = static_cast<int>(ch.begin.size()) - 1;
  long long counts[2] = {ch.first_line[chunks], ch.entry_lines};  // lines, entry lines
  long long before[2] = {0, 0}, total[2] = {0, 0};
  SPK_MPI(MPI_Exscan(counts, before, 2, MPI_LONG_LONG, MPI_SUM, comm));
  if (me == 0) before[0] = before[1] = 0;  // (MPI_Exscan leaves rank 0's undefined)
  SPK_MPI(MPI_Allreduce(counts, total, 2, MPI_LONG_LONG, MPI_SUM, comm));

  // 3. Parse; the error of the lowest line on any rank is everyone's.
  const long long first_entry = before[1];
  std::vector<spk::Impl::BasicMMEntry<V>> stored(
      static_cast<size_t>(std::max(0LL, std::min(counts[1], h.entries - first_entry))));
  std::vector<spk::Impl::ChunkError> errors(chunks);
  std::vector<spk::Impl::ChunkTally> tally(chunks);
  Kokkos::parallel_for(
      "spk::dist::mm_parse", Kokkos::RangePolicy<Host>(0, chunks), [&](const int c) {
        spk::Impl::parse_entry_lines(text.data() + ch.begin[c], text.data() + ch.begin[c + 1], h,
                                     st.data_line + before[0] + ch.first_line[c],
                                     first_entry + ch.first_entry[c], MatrixMarketReadOptions(),
                                     stored.data(), first_entry, errors[c], tally[c]);
      });
  Kokkos::fence();
  spk::Impl::ChunkError err;
  for (const auto& x : errors)
    if (x.line < err.line) err = x;
  long long first_bad = err.line;
  SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_LONG_LONG, MPI_MIN, comm));
  if (first_bad != std::numeric_limits<long long>::max() && err.line == first_bad)
    throw_on_every_rank(comm, {RankError::File, err.line, err.what}, path);
  else
    throw_on_every_rank(comm, {}, path);
  if (total[1] < h.entries)
    fail(st.data_line + total[0], "file ends after " + std::to_string(total[1]) + " of the " +
                                      std::to_string(h.entries) + " declared entries");

  // 4. The layouts (by rows, or by entries per row: counted on every rank).
  const bool mirror = h.symmetry != MatrixMarketSymmetry::General;
  if (mirror && h.format == MatrixMarketFormat::Coordinate)
    check_one_triangle_parallel(comm, path, text, ch, st.data_line + before[0], first_entry, h,
                                stored);
  if (by_nnz) {
    spk::Impl::check_declared_allocation(path, h, "the row counts",
                                         static_cast<long double>(h.rows) + 1, h.entries, 0,
                                         MatrixMarketReadOptions());
    std::vector<long long> rp(static_cast<size_t>(h.rows) + 1, 0);
    for (const auto& en : stored)
      if (!en.skip) {
        ++rp[en.row + 1];
        if (mirror && en.row != en.col) ++rp[en.col + 1];
      }
    SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, rp.data(), static_cast<int>(rp.size()), MPI_LONG_LONG,
                          MPI_SUM, comm));
    for (long long i = 0; i < h.rows; ++i) rp[i + 1] += rp[i];
    row_layout = RowLayout::by_nnz(comm, rp, 0);
  } else {
    row_layout = RowLayout::balanced(comm, h.rows);
  }
  col_layout = h.rows == h.cols ? row_layout : RowLayout::balanced(comm, h.cols);

  // 5. Entries (and their mirrors) to the owners of their rows, in file
  // order (rank by rank), so duplicates are summed in the same order as the
  // single-process reader sums them.
  std::vector<long long> send_count(p, 0);
  using Triplet = MMTriplet<V>;
  auto each = [&](auto&& emit) {
    for (const auto& en : stored) {
      if (en.skip) continue;
      emit(Triplet{en.row, en.col, en.value});
      if (mirror && en.row != en.col)
        emit(Triplet{en.col, en.row, spk::Impl::mirrored_value(en.value, h.symmetry)});
    }
  };
  each([&](const Triplet& t) { ++send_count[row_layout.owner(t.row)]; });
  std::vector<long long> send_at(p + 1, 0);
  for (int r = 0; r < p; ++r) send_at[r + 1] = send_at[r] + send_count[r];
  std::vector<Triplet> out(static_cast<size_t>(send_at[p]));
  {
    std::vector<long long> at(send_at.begin(), send_at.end() - 1);
    each([&](const Triplet& t) { out[at[row_layout.owner(t.row)]++] = t; });
  }
  const std::vector<Triplet> in =
      exchange_by_rank(comm, out, send_count, send_at, "a Matrix Market read's entries");
  const long long nrecv = static_cast<long long>(in.size());
  SPK_REQUIRE(spk::Impl::fits_integer<F>(nrecv), Overflow,
              "spk::dist::read_matrix_market_parallel: rank ", me, " gets ", nrecv,
              " entries, more than the offset type ", spk::Impl::type_name<F>(), " holds");

  // 6. This rank's rows: COO (rows local, columns global) to sorted CSR.
  const long long rb = row_layout.begin();
  CooMatrix<S, O, F, HostDevice> coo(path, static_cast<O>(row_layout.local_size()),
                                     static_cast<O>(h.cols), static_cast<F>(nrecv));
  for (long long k = 0; k < nrecv; ++k) {
    coo.row_idx()(k) = static_cast<O>(in[k].row - rb);
    coo.col_idx()(k) = static_cast<O>(in[k].col);
    coo.values()(k) = spk::Impl::to_matrix_scalar<S>(in[k].value);
  }
  return coo_to_csr(Kokkos::DefaultHostExecutionSpace(), coo);
}

/// This rank's rows of the file's matrix (host CSR, global columns, sorted,
/// duplicates summed) and the layouts, read in parallel (see the top of the
/// file).  st: mm_start's result, for an uncompressed file.  A complex file
/// needs a complex S (the single-process reader's rule; every rank has the
/// header, so every rank throws).  Collective; every rank throws the error
/// found first in the file.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> read_rows_parallel(MPI_Comm comm, const std::string& path,
                                                  const MMStart& st, bool by_nnz,
                                                  RowLayout& row_layout, RowLayout& col_layout) {
  spk::Impl::check_field_fits_scalar<S>(path, st.header, MatrixMarketReadOptions());
  using R = typename spk::Impl::MMScalar<S>::parse_real;
  if (st.header.field == MatrixMarketField::Complex)
    return read_rows_parallel_as<Kokkos::complex<R>, S, O, F>(comm, path, st, by_nnz, row_layout,
                                                              col_layout);
  return read_rows_parallel_as<R, S, O, F>(comm, path, st, by_nnz, row_layout, col_layout);
}

}  // namespace spk::dist::Impl
