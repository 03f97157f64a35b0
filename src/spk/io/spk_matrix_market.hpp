// Matrix Market (.mtx, .mtx.gz) reading and writing.
//
// Reads coordinate real / integer / pattern / complex × general / symmetric /
// skew-symmetric / hermitian (complex only), and array real / integer /
// complex with the same symmetries, into any scalar: float, double,
// Kokkos::complex<float>, Kokkos::complex<double>.  Integer and pattern
// files read into every scalar (a pattern entry is 1); a complex file reads
// into a real matrix only when MatrixMarketReadOptions::complex_to_real asks
// for the real parts.  Values are parsed in the scalar's precision, so a
// float is the correctly rounded value of the text.  Symmetric storage is
// expanded on read (the mirror of a hermitian entry is its conjugate, of a
// skew-symmetric one its negative); explicit zeros and duplicates are kept
// (duplicates are summed when converting to CSR).
// Every error is a spk::MatrixMarketError "<file>:<line>: <what>" (line 0:
// the whole file, e.g. it cannot be opened or its gzip data is truncated).
//
// The rules for input that is legal-looking but suspect (docs/io.md):
//  - Symmetric and skew-symmetric files must be square, and store one
//    triangle: a file holding both (i, j) and (j, i) is refused, naming both
//    lines (entries in both triangles are fine as long as no pair is stored
//    twice).  A repeated entry in one triangle is a duplicate, summed as in
//    a general file.
//  - Every number is one whole token: "1e999junk" and "+-3" are errors.
//    A complex entry has two numbers; a hermitian diagonal entry must be
//    real (a nonzero imaginary part is an error at its line).
//  - A file is read front to back without seeking, so pipes and other
//    streams read like files; a directory is refused by name.  gzip data is
//    recognised by its magic bytes; a truncated or corrupt stream is an
//    error, as are bytes after its end other than zero padding.
//  - Memory follows the data, not the claims: the text is held (its first
//    reservation is the file's size, for gzip at most 16 times the
//    compressed size), plus one record per entry line present.  What only
//    the size line declares is allocated when the entries justify it:
//    read_csr's row map (rows + 1 offsets) and read_dense's rows × cols
//    values are refused beyond max(declared_size_floor,
//    declared_size_per_entry × entries) elements unless
//    MatrixMarketReadOptions::trust_declared_size is set (an empty
//    2147483647 x 1 matrix is legal, and needs a 16 GiB row map in CSR).
#pragma once

#include <spk_coo_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_device.hpp>
#include <string>

namespace spk {

enum class MatrixMarketFormat { Coordinate, Array };
enum class MatrixMarketField { Real, Integer, Pattern, Complex };
enum class MatrixMarketSymmetry { General, Symmetric, SkewSymmetric, Hermitian };

inline const char* to_string(MatrixMarketFormat f);
inline const char* to_string(MatrixMarketField f);
inline const char* to_string(MatrixMarketSymmetry s);

/// What the banner and size line of a file declare.
struct MatrixMarketHeader {
  MatrixMarketFormat format = MatrixMarketFormat::Coordinate;
  MatrixMarketField field = MatrixMarketField::Real;
  MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::General;
  long long rows = 0;
  long long cols = 0;
  /// Entries stored in the file (for array files: the values listed).
  long long entries = 0;
  /// The 1-based line of the size line.
  long long size_line = 0;
};

/// Allocations sized by the size line alone (a CSR row map, a dense
/// matrix) are made up to max(declared_size_floor, declared_size_per_entry
/// × entries) elements; beyond that the reader asks for
/// MatrixMarketReadOptions::trust_declared_size.
inline constexpr long long declared_size_floor = 1LL << 22;
inline constexpr long long declared_size_per_entry = 16;

/// What reading a complex file into a real matrix does.
enum class ComplexPart {
  Refuse,  ///< a MatrixMarketError naming the file and its field
  Real     ///< keep the real part of every value
};

struct MatrixMarketReadOptions {
  /// Skip entries whose indices fall outside the declared size instead of
  /// throwing (how the serial program of the background report treated its
  /// generator's bad indices); the count skipped is reported.
  bool drop_out_of_range = false;
  /// Allocate what the size line declares even when the entries do not
  /// justify it (see declared_size_floor).
  bool trust_declared_size = false;
  /// When >= 0, the size line must declare this many rows; checked before
  /// any entry is parsed (a vector that must match a matrix), and counted
  /// as confirmed by the caller: read_dense allocates one column of it,
  /// read_csr a row map of it, whatever the entries.
  long long required_rows = -1;
  /// Reading a complex file into a real (float or double) matrix: refused
  /// unless this asks for the real parts.
  ComplexPart complex_to_real = ComplexPart::Refuse;
};

/// A file's contents as host COO (symmetric storage expanded).
template <class Scalar, class Ordinal = int, class Offset = int>
struct MatrixMarketContents {
  MatrixMarketHeader header;
  CooMatrix<Scalar, Ordinal, Offset, HostDevice> coo;
  /// Entries skipped under MatrixMarketReadOptions::drop_out_of_range.
  long long dropped_entries = 0;
};

/// Reads the banner and size line only.
inline MatrixMarketHeader read_matrix_market_header(const std::string& path);

/// Reads a file into host COO.  Array files give their nonzero values.
template <class Scalar = double, class Ordinal = int, class Offset = int>
MatrixMarketContents<Scalar, Ordinal, Offset> read_matrix_market(
    const std::string& path, const MatrixMarketReadOptions& options = {});

/// Reads a file into host CSR: sorted columns, duplicates summed.
template <class Scalar = double, class Ordinal = int, class Offset = int>
CsrMatrix<Scalar, Ordinal, Offset, HostDevice> read_csr(
    const std::string& path, const MatrixMarketReadOptions& options = {});

/// Reads a file (array or coordinate) into a dense host matrix.
template <class Scalar = double>
Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> read_dense(
    const std::string& path, const MatrixMarketReadOptions& options = {});

/// Writes coordinate real general (complex general for a complex matrix),
/// 1-based, in the matrix's storage order; gzip-compressed when path ends
/// in .gz.  Every value is written in the shortest text that reads back to
/// the same bits in its own type (float, double, or both parts of a
/// complex).  A (any memory space) is copied to the host first.
template <class S, class O, class F, class D>
void write_matrix_market(const std::string& path, const CsrMatrix<S, O, F, D>& A);
template <class S, class O, class F, class D>
void write_matrix_market(const std::string& path, const CooMatrix<S, O, F, D>& A);

/// Writes a rank-1 (n × 1) or rank-2 View as array real general (array
/// complex general for complex values).
template <class View>
void write_matrix_market_array(const std::string& path, const View& v);

}  // namespace spk

#include <impl/spk_matrix_market_impl.hpp>
