// Bad and suspect input (host only: io.bad_*, generators.bad_*): each test
// holds a reproducer of a way input once corrupted memory, passed silently
// or allocated what the data does not hold.  The small files are in
// unit_tests/data/bad/.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <spk_generators.hpp>
#include <spk_matrix_market.hpp>
#include <spk_validate.hpp>
#include <thread>

#include "spk_test_utils.hpp"

namespace {

std::string bad_file(const std::string& name) {
  return spk_test::join(spk_test::join(spk_test::data_dir(), "bad"), name);
}

/// Runs f, expecting a MatrixMarketError for `path` at `line` whose reason
/// contains `needle`.
template <class F>
void expect_mm_error(F&& f, const std::string& path, long long line, const std::string& needle) {
  try {
    f();
    FAIL() << "expected an error containing '" << needle << "' for " << path;
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_EQ(e.file(), path) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.reason().find(needle), std::string::npos) << e.what();
  }
}

void expect_read_error(const std::string& path, long long line, const std::string& needle) {
  expect_mm_error([&] { spk::read_matrix_market<double>(path); }, path, line, needle);
}

/// Writes text to a temporary file and expects reading it to fail.
void expect_text_error(const std::string& text, long long line, const std::string& needle) {
  spk_test::TempFile f;
  std::ofstream(f.path(), std::ios::binary) << text;
  expect_read_error(f.path(), line, needle);
}

std::string gzip_bytes(const std::string& text) {
  std::string out(compressBound(text.size()) + 64, '\0');
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kSymmetric = "%%MatrixMarket matrix coordinate real symmetric\n";

/// A general matrix's text with `n` entries (several 64 KiB chunks for n
/// in the tens of thousands).
std::string general_text(int rows, int n, unsigned seed) {
  std::string s =
      kGeneral + std::to_string(rows) + " " + std::to_string(rows) + " " + std::to_string(n) + "\n";
  spk::Impl::SplitMix64 rng(seed);
  for (int k = 0; k < n; ++k) {
    if (k % 97 == 0) s += "% a comment between entries\n";
    s += std::to_string(rng.below(rows) + 1) + " " + std::to_string(rng.below(rows) + 1) + " " +
         std::to_string(rng.uniform() - 0.5) + "\n";
  }
  return s;
}

}  // namespace

// Issue row 1: symmetric / skew-symmetric coordinate files must be square
// (read_dense used to write out of bounds).
TEST(io, bad_nonsquare_symmetric) {
  const std::string path = bad_file("nonsquare_symmetric.mtx");
  expect_read_error(path, 2, "symmetric matrix must be square, not 2 x 5");
  expect_mm_error([&] { spk::read_dense<double>(path); }, path, 2, "must be square");
  expect_text_error("%%MatrixMarket matrix coordinate real skew-symmetric\n3 2 1\n2 1 1\n", 2,
                    "skew-symmetric matrix must be square, not 3 x 2");
}

// Issue rows 2 and 3: every number token is consumed whole.
TEST(io, bad_number_tokens) {
  expect_read_error(bad_file("overflow_junk.mtx"), 3, "value '1e999junk' is not a number");
  expect_read_error(bad_file("double_sign.mtx"), 3, "value '+-3' is not a number");
  expect_text_error(kGeneral + "1 1 1\n1 1 1e-999x\n", 3, "value '1e-999x' is not a number");
  expect_text_error(kGeneral + "1 1 1\n1 1 ++3\n", 3, "value '++3' is not a number");
  expect_text_error(kGeneral + "1 1 1\n1 1 +\n", 3, "value '+' is not a number");
  expect_text_error(kGeneral + "1 1 1\n+-1 1 3\n", 3, "row index '+-1' is not an integer");
  expect_text_error(kGeneral + "+-1 1 1\n1 1 3\n", 2, "size line: '+-1' is not an integer");
  expect_text_error("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 +-3\n", 3,
                    "value '+-3' is not a number");
  expect_text_error("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1e999x\n", 3,
                    "value '1e999x' is not a number");
  // Whole tokens beyond double's range read as strtod reads them.
  spk_test::TempFile f;
  std::ofstream(f.path()) << kGeneral + "1 3 3\n1 1 1e999\n1 2 -1e999\n1 3 +1e-999\n";
  const auto c = spk::read_matrix_market<double>(f.path());
  EXPECT_EQ(c.coo.values()(0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.coo.values()(1), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.coo.values()(2), 0.0);
}

// Issue row 4: a truncated or corrupt gzip stream is an error naming the
// file, never a silently shorter text.
TEST(io, bad_gzip_streams) {
  expect_read_error(bad_file("truncated.mtx.gz"), 0, "truncated gzip file");
  expect_read_error(bad_file("cut_header.mtx.gz"), 0, "truncated gzip file");
  expect_read_error(bad_file("corrupt.mtx.gz"), 0, "corrupt gzip data");
  // Issue row 7: bytes after the stream (the size trailer is then
  // garbage, and no longer sizes a reservation).
  expect_read_error(bad_file("trailing_bytes.mtx.gz"), 0,
                    "unexpected data after the end of the gzip stream");
  EXPECT_LE(spk::Impl::gzip_initial_capacity(1970, 0x04030201u), 16u * 1970 + (1u << 16));
  // Zero padding after the stream is tolerated (tape blocks).
  EXPECT_EQ(spk::read_matrix_market<double>(bad_file("trailing_zeros.mtx.gz")).coo.nnz(), 400);
  // Concatenated gzip members are one stream, as gzip reads them.
  const std::string text = general_text(50, 300, 4);
  spk_test::TempFile f(".mtx.gz");
  {
    std::ofstream out(f.path(), std::ios::binary);
    out << gzip_bytes(text.substr(0, 1000)) << gzip_bytes(text.substr(1000));
  }
  EXPECT_EQ(spk::read_matrix_market<double>(f.path()).coo.nnz(), 300);
  // Every cut of a small gzip file is an error at line 0, never a read.
  const std::string gz = gzip_bytes(text);
  for (size_t cut = 0; cut < gz.size(); cut += 37) {
    {
      std::ofstream out(f.path(), std::ios::binary | std::ios::trunc);
      out << gz.substr(0, cut);
    }
    try {
      spk::read_matrix_market<double>(f.path());
      ADD_FAILURE() << "a gzip file cut at " << cut << " of " << gz.size() << " bytes was read";
    } catch (const spk::MatrixMarketError& e) {
      if (cut >= 2) {
        EXPECT_EQ(e.line(), 0) << e.what();
        EXPECT_NE(e.reason().find("truncated gzip file"), std::string::npos) << e.what();
      }
    }
  }
}

// Issue row 5: a vector's size line is checked against what it must match
// before its entries are parsed, and a dense allocation needs entries.
TEST(io, bad_dense_claims) {
  const std::string array = bad_file("x_huge_header.mtx");
  spk::MatrixMarketReadOptions need3;
  need3.required_rows = 3;
  expect_mm_error([&] { spk::read_dense<double>(array, need3); }, array, 2,
                  "the size line declares 100000 rows; 3 are required");
  // Without the requirement: the 10^10 values are not there.
  expect_mm_error([&] { spk::read_dense<double>(array); }, array, 3,
                  "file ends after 0 of the 10000000000 declared entries");
  const std::string coord = bad_file("x_huge_coordinate.mtx");
  expect_mm_error([&] { spk::read_dense<double>(coord); }, coord, 2,
                  "the dense matrix would need 10000000000 elements");
  // Confirmed rows (a matrix's size) count for one column.
  spk_test::TempFile f;
  std::ofstream(f.path()) << kGeneral + "5000000 1 1\n7 1 2.5\n";
  spk::MatrixMarketReadOptions need;
  need.required_rows = 5000000;
  const auto x = spk::read_dense<double>(f.path(), need);
  EXPECT_EQ(x.extent(0), 5000000u);
  EXPECT_EQ(x(6, 0), 2.5);
  expect_mm_error([&] { spk::read_dense<double>(f.path()); }, f.path(), 2,
                  "the dense matrix would need 5000000 elements");
}

// Issue row 9: a legal file declaring 2^31 - 1 empty rows reads as COO (it
// needs nothing) and is refused, by name, as CSR unless trusted.
TEST(io, bad_declared_rows_without_entries) {
  const std::string path = bad_file("empty_huge_rows.mtx");
  const auto c = spk::read_matrix_market<double>(path);
  EXPECT_EQ(c.coo.num_rows(), 2147483647);
  EXPECT_EQ(c.coo.nnz(), 0);
  expect_mm_error([&] { spk::read_csr<double>(path); }, path, 2,
                  "the CSR row map would need 2147483648 elements");
  spk_test::TempFile f;
  std::ofstream(f.path()) << kGeneral + "5000000 2 1\n4 2 1\n";
  expect_mm_error([&] { spk::read_csr<double>(f.path()); }, f.path(), 2, "trust_declared_size");
  spk::MatrixMarketReadOptions trust;
  trust.trust_declared_size = true;
  const auto A = spk::read_csr<double>(f.path(), trust);
  EXPECT_EQ(A.num_rows(), 5000000);
  EXPECT_EQ(A.row_map()(4), 1);
  // Within the floor, or justified by the entries: read.
  std::ofstream(f.path(), std::ios::trunc) << kGeneral + "4000000 2 1\n4 2 1\n";
  EXPECT_EQ(spk::read_csr<double>(f.path()).num_rows(), 4000000);
}

// Issue row 10: a symmetric file holding both (i, j) and (j, i) is refused
// with both lines; both triangles without a repeated pair are fine, and a
// repeat within one triangle is a duplicate (summed).
TEST(io, bad_symmetric_both_triangles) {
  expect_read_error(bad_file("symmetric_both_triangles.mtx"), 5,
                    "entry (1, 2) mirrors entry (2, 1) at line 4");
  expect_text_error(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n1 3 2\n"
      "% comment\n3 1 -2\n",
      5, "entry (3, 1) mirrors entry (1, 3) at line 3: a skew-symmetric file");
  spk_test::TempFile f;
  std::ofstream(f.path()) << kSymmetric + "3 3 3\n2 1 1\n1 3 4\n2 1 2\n";
  const auto A = spk::read_csr<double>(f.path());
  ASSERT_EQ(A.nnz(), 4);
  EXPECT_EQ(A.values()(0), 3.0);  // (0,1): the duplicate (2,1) summed, mirrored
  EXPECT_EQ(A.values()(1), 4.0);  // (0,2) from (1,3)
  // Across parse chunks: the lines are still right.
  std::string text = kSymmetric + "400 400 1000\n";
  for (int k = 0; k < 999; ++k)
    text += std::to_string(k % 400 + 1) + " " + std::to_string(k % 400 / 2 + 1) + " 1\n";
  text += "150 300 1\n";  // mirrors the line of k = 299: (300, 150)
  spk::Impl::ReaderTuning tiny;
  tiny.chunk_bytes = 97;
  tiny.max_chunks = 64;
  tiny.serial = true;
  expect_mm_error([&] { spk::Impl::parse_matrix_market<double, int, int>("t", text, {}, tiny); },
                  "t", 1002, "entry (150, 300) mirrors entry (300, 150) at line 302");
}

// Issue row 6: directories are refused by name; pipes are read front to
// back, plain and gzip.
TEST(io, bad_directory_and_pipes) {
  expect_read_error(spk_test::data_dir(), 0, "is a directory");
  expect_mm_error([&] { spk::read_matrix_market_header(spk_test::data_dir()); },
                  spk_test::data_dir(), 0, "is a directory");
  const std::string text = general_text(300, 20000, 7);  // several chunks
  for (const bool gz : {false, true}) {
    spk_test::TempFile fifo(gz ? ".fifo.gz" : ".fifo");
    ASSERT_EQ(::mkfifo(fifo.path().c_str(), 0600), 0);
    const std::string bytes = gz ? gzip_bytes(text) : text;
    std::thread writer([&] { std::ofstream(fifo.path(), std::ios::binary) << bytes; });
    const auto c = spk::read_matrix_market<double>(fifo.path());
    writer.join();
    EXPECT_EQ(c.coo.nnz(), 20000) << (gz ? "gzip" : "plain");
    EXPECT_EQ(c.coo.num_rows(), 300);
  }
}

// The line of every error lies in the input, also where the input ends
// without a final newline.
TEST(io, bad_error_lines_lie_in_the_input) {
  expect_text_error(kGeneral + "% only comments", 2, "missing size line");
  expect_text_error(kGeneral + "% only comments\n", 3, "missing size line");
  expect_text_error(kGeneral + "2 2 2\n1 1 1", 3, "file ends after 1 of the 2 declared");
  expect_text_error(kGeneral + "2 2 2\n1 1 1\n", 4, "file ends after 1 of the 2 declared");
  expect_text_error(kGeneral + "2 2 2", 2, "file ends after 0 of the 2 declared");
}

// Cutting the text into many small chunks (as the fuzz target does) gives
// the same matrix and the same first error as the default cut.
TEST(io, bad_input_chunking_is_invisible) {
  const std::string text = general_text(500, 3000, 11);
  const auto whole = spk::Impl::parse_matrix_market<double, int, int>("t", text, {});
  for (size_t bytes : {1, 13, 4096}) {
    spk::Impl::ReaderTuning t;
    t.chunk_bytes = bytes;
    t.max_chunks = 300;
    t.serial = bytes != 4096;
    const auto cut = spk::Impl::parse_matrix_market<double, int, int>("t", text, {}, t);
    ASSERT_EQ(cut.coo.nnz(), whole.coo.nnz());
    for (int k = 0; k < whole.coo.nnz(); ++k) {
      ASSERT_EQ(cut.coo.row_idx()(k), whole.coo.row_idx()(k)) << k;
      ASSERT_EQ(cut.coo.col_idx()(k), whole.coo.col_idx()(k)) << k;
      ASSERT_EQ(cut.coo.values()(k), whole.coo.values()(k)) << k;
    }
    std::string bad = text;
    bad.insert(bad.find('\n', bad.size() / 2) + 1, "1 1 oops\n");
    bad.replace(bad.find("3000\n"), 5, "3001\n");
    expect_mm_error([&] { spk::Impl::parse_matrix_market<double, int, int>("t", bad, {}, t); }, "t",
                    1 + std::count(bad.begin(), bad.begin() + bad.find("1 1 oops"), '\n'),
                    "value 'oops' is not a number");
  }
}

// Complex files: a hermitian matrix is square and its diagonal real; a
// complex entry has two numbers.  Each error names the file and the line,
// whatever the scalar the file is read into.
TEST(io, bad_complex_files) {
  using C = Kokkos::complex<double>;
  using CF = Kokkos::complex<float>;
  const std::string nonsquare = bad_file("hermitian_nonsquare.mtx");
  const std::string diagonal = bad_file("hermitian_imaginary_diagonal.mtx");
  const std::string one_number = bad_file("complex_one_number.mtx");
  spk::MatrixMarketReadOptions real_part;
  real_part.complex_to_real = spk::ComplexPart::Real;
  for (int scalar = 0; scalar < 3; ++scalar) {
    auto read = [&](const std::string& path) {
      if (scalar == 0) spk::read_csr<C>(path);
      if (scalar == 1) spk::read_csr<CF>(path);
      if (scalar == 2) spk::read_csr<double>(path, real_part);
    };
    expect_mm_error([&] { read(nonsquare); }, nonsquare, 2,
                    "hermitian matrix must be square, not 2 x 3");
    expect_mm_error([&] { read(diagonal); }, diagonal, 5,
                    "hermitian matrix has a diagonal entry (2, 2) with a nonzero imaginary part");
    expect_mm_error([&] { read(one_number); }, one_number, 4,
                    "complex entry has one number: expected the real and the imaginary part");
  }
  expect_mm_error([&] { spk::read_dense<C>(diagonal); }, diagonal, 5, "nonzero imaginary part");
  // A complex file in a real matrix names the field at the banner.
  expect_mm_error([&] { spk::read_csr<float>(one_number); }, one_number, 1,
                  "the field is 'complex' but the matrix's scalar type is real");
  // Symmetric and hermitian files store one triangle, complex or not.
  expect_mm_error(
      [&] {
        spk::Impl::parse_matrix_market<C, int, int>(
            "t", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n2 1 1 1\n1 2 1 -1\n",
            {});
      },
      "t", 4, "entry (1, 2) mirrors entry (2, 1) at line 3");
}

// The chunked parse of a complex hermitian file gives the same matrix and
// the same first error for any cut.
TEST(io, bad_complex_chunking_is_invisible) {
  using C = Kokkos::complex<double>;
  const int n = 300, entries = 2000;
  std::string text = "%%MatrixMarket matrix coordinate complex hermitian\n" + std::to_string(n) +
                     " " + std::to_string(n) + " " + std::to_string(entries) + "\n";
  spk::Impl::SplitMix64 rng(5);
  for (int k = 0; k < entries; ++k) {
    long long i = rng.below(n), j = rng.below(n);
    if (i < j) std::swap(i, j);
    const double im = i == j ? 0.0 : rng.uniform() - 0.5;
    text += std::to_string(i + 1) + " " + std::to_string(j + 1) + " " +
            std::to_string(rng.uniform() - 0.5) + " " + std::to_string(im) + "\n";
  }
  const auto whole = spk::Impl::parse_matrix_market<C, int, int>("t", text, {});
  for (size_t bytes : {1, 13, 4096}) {
    spk::Impl::ReaderTuning t;
    t.chunk_bytes = bytes;
    t.max_chunks = 300;
    t.serial = bytes != 4096;
    const auto cut = spk::Impl::parse_matrix_market<C, int, int>("t", text, {}, t);
    ASSERT_EQ(cut.coo.nnz(), whole.coo.nnz());
    for (int k = 0; k < whole.coo.nnz(); ++k) {
      ASSERT_EQ(cut.coo.row_idx()(k), whole.coo.row_idx()(k)) << k;
      ASSERT_EQ(cut.coo.values()(k), whole.coo.values()(k)) << k;
    }
    std::string bad = text;
    bad.insert(bad.find('\n', bad.size() / 2) + 1, "7 7 1 0.5\n");
    bad.replace(bad.find(" 2000\n"), 6, " 2001\n");
    expect_mm_error([&] { spk::Impl::parse_matrix_market<C, int, int>("t", bad, {}, t); }, "t",
                    1 + std::count(bad.begin(), bad.begin() + bad.find("7 7 1 0.5"), '\n'),
                    "hermitian matrix has a diagonal entry (7, 7) with a nonzero imaginary part");
  }
  // Expanded with the conjugate: the COO holds each stored entry followed
  // by its mirror, the conjugate.
  const auto& coo = whole.coo;
  long long mirrors = 0;
  for (int k = 0; k < coo.nnz(); ++k) {
    if (coo.row_idx()(k) == coo.col_idx()(k)) continue;
    ASSERT_LT(k + 1, coo.nnz());
    ASSERT_EQ(coo.row_idx()(k + 1), coo.col_idx()(k)) << k;
    ASSERT_EQ(coo.col_idx()(k + 1), coo.row_idx()(k)) << k;
    EXPECT_EQ(coo.values()(k + 1), C(coo.values()(k).real(), -coo.values()(k).imag())) << k;
    ++k;
    ++mirrors;
  }
  EXPECT_GT(mirrors, entries / 2);
}

// Issue row 8: generator specs whose sizes overflow, or that need more
// memory than the machine has, are refused with the size before anything is
// allocated.
TEST(generators, bad_specs_overflow) {
  auto expect_msg = [](const std::string& spec, const std::string& needle) {
    try {
      spk::generate<double, int, long long>(spec);
      ADD_FAILURE() << spec << " was generated";
    } catch (const spk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(spec), std::string::npos) << e.what();
    }
  };
  expect_msg("poisson2d:4294967296", "rows (N x N) = 4294967296 x 4294967296 overflows");
  expect_msg("poisson3d:4194304", "rows (N x N x N) = 17592186044416 x 4194304 overflows");
  expect_msg("poisson3d:2097152", "rows (N x N x N) = 4398046511104 x 2097152 overflows");
  expect_msg("rmat:4294967297:4", "SCALE must be in [0, 40]");
  expect_msg("rmat:20:17592186044417", "edges (EDGE_FACTOR x 2^SCALE) = 17592186044417 x 1048576");
  expect_msg("rmat:30:16", "GiB memory limit");
  expect_msg("rmat:30:16", "17179869184 nonzeros needs about");
  expect_msg("random:4000000000:4000000000:4000000000", "nonzeros (ROWS x PER_ROW)");
  expect_msg("random:2000000000:2000000000:100", "GiB memory limit");
  expect_msg("poisson2d:99999999999999999999", "is too large");
  expect_msg("poisson2d:+5", "is not an integer");
  expect_msg("poisson2d: 5", "is not an integer");
  expect_msg("poisson3d:2000", "does not fit the ordinal type");
  // A small memory limit (what the fuzz target sets) refuses even small
  // matrices by their size.
  auto& limit = spk::Impl::generator_memory_limit();
  const long long saved = limit.load();
  limit = 1 << 20;
  expect_msg("poisson2d:300", "a 90000 x 90000 matrix with 448800 nonzeros needs about");
  EXPECT_EQ(spk::generate<double>("poisson2d:30").nnz(), 4380);
  limit = saved;
}

// Found by fuzz_generator_spec: long sparse rows (random:1:3209715:20340)
// took time quadratic in PER_ROW.  Their columns come from the same
// rejection stream as before (checked against that algorithm here), only
// the membership test is a hash set.
TEST(generators, bad_spec_long_sparse_rows) {
  const long long rows = 3, cols = 100000, per_row = 300;
  const std::uint64_t seed = 5;
  const auto A = spk::random_uniform<double>(rows, cols, per_row, seed);
  spk::Impl::SplitMix64 rng(seed * 0x2545f4914f6cdd1dull + 7);  // random_uniform's stream
  for (long long r = 0; r < rows; ++r) {
    std::vector<long long> picked;
    while (static_cast<long long>(picked.size()) < per_row) {
      const long long c = static_cast<long long>(rng.below(cols));
      if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
    }
    std::sort(picked.begin(), picked.end());
    for (long long t = 0; t < per_row; ++t) {
      ASSERT_EQ(A.col_idx()(r * per_row + t), picked[t]) << r << " " << t;
      rng.uniform();  // (the value drawn for the entry)
    }
  }
  const auto B = spk::generate<double>("random:01:3209715:20340");
  EXPECT_EQ(B.nnz(), 20340);
  EXPECT_TRUE(spk::is_sorted_and_unique(Kokkos::DefaultHostExecutionSpace(), B));
}
