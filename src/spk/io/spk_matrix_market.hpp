// Matrix Market (.mtx, .mtx.gz) reading and writing.
//
// Reads coordinate real / integer / pattern × general / symmetric /
// skew-symmetric, and array real / integer × general / symmetric /
// skew-symmetric.  Symmetric storage is expanded on read; explicit zeros and
// duplicates are kept (duplicates are summed when converting to CSR).
// Every error is a spk::MatrixMarketError "<file>:<line>: <what>".
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
};

struct MatrixMarketReadOptions {
  /// Skip entries whose indices fall outside the declared size instead of
  /// throwing (how the serial program of the background report treated its
  /// generator's bad indices); the count skipped is reported.
  bool drop_out_of_range = false;
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
Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> read_dense(const std::string& path);

/// Writes coordinate real general, 1-based, in the matrix's storage order;
/// gzip-compressed when path ends in .gz.  A (any memory space) is copied
/// to the host first.
template <class S, class O, class F, class D>
void write_matrix_market(const std::string& path, const CsrMatrix<S, O, F, D>& A);
template <class S, class O, class F, class D>
void write_matrix_market(const std::string& path, const CooMatrix<S, O, F, D>& A);

/// Writes a rank-1 (n × 1) or rank-2 View as array real general.
template <class View>
void write_matrix_market_array(const std::string& path, const View& v);

}  // namespace spk

#include <impl/spk_matrix_market_impl.hpp>
