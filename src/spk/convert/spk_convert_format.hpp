// Choosing a storage format by name ("csr", "ell", "hyb", "bsr:3",
// "sell:32:256") and converting a CSR matrix to it: what command lines and
// benchmarks use to run one code path over every format.
//
//   auto spec = spk::parse_format_spec("sell:32:256");
//   spk::with_format(space, A, spec, [&](const auto& M) { spk::spmv(space, M, x, y); });
#pragma once

#include <spk_convert_bsr.hpp>
#include <spk_convert_ell.hpp>
#include <spk_convert_sell.hpp>
#include <string>
#include <vector>

namespace spk {

enum class SparseFormat { csr, ell, hyb, bsr, sell };

/// A format and its parameters (0 or -1: the format's default).
struct FormatSpec {
  SparseFormat format = SparseFormat::csr;
  long long width = -1;  ///< ell, hyb: slots per row (-1: longest row / histogram)
  int block_size = 0;    ///< bsr: b (required)
  int slice_height = 0;  ///< sell: C (0: the backend's default)
  int sigma = 0;         ///< sell: σ (0: sell_default_sigma)
};

namespace Impl {

inline long long parse_format_number(const std::string& spec, const std::string& part,
                                     const char* what) {
  size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(part, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != part.size() || part.empty() || v < 0)
    throw Error("format '" + spec + "': " + what + " '" + part + "' is not a non-negative integer");
  return v;
}

}  // namespace Impl

/// Parses csr | ell[:WIDTH] | hyb[:WIDTH] | bsr:B | sell[:C[:SIGMA]].
inline FormatSpec parse_format_spec(const std::string& spec) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t e; (e = spec.find(':', b)) != std::string::npos; b = e + 1)
    parts.push_back(spec.substr(b, e - b));
  parts.push_back(spec.substr(b));
  const std::string& name = parts[0];
  const size_t extra = parts.size() - 1;
  auto number = [&](size_t i, const char* what) {
    return Impl::parse_format_number(spec, parts[i], what);
  };
  FormatSpec f;
  const char* usage = " (expected csr, ell[:WIDTH], hyb[:WIDTH], bsr:B or sell[:C[:SIGMA]])";
  if (name == "csr" && extra == 0) {
    f.format = SparseFormat::csr;
  } else if ((name == "ell" || name == "hyb") && extra <= 1) {
    f.format = name == "ell" ? SparseFormat::ell : SparseFormat::hyb;
    if (extra == 1) f.width = number(1, "width");
  } else if (name == "bsr" && extra == 1) {
    f.format = SparseFormat::bsr;
    f.block_size = static_cast<int>(std::min<long long>(number(1, "block size"), 1 << 30));
    if (f.block_size < 1 || f.block_size > bsr_max_block_size)
      throw Error("format '" + spec + "': block size " + parts[1] + " is outside [1, " +
                  std::to_string(bsr_max_block_size) + "]");
  } else if (name == "sell" && extra <= 2) {
    f.format = SparseFormat::sell;
    if (extra >= 1) f.slice_height = static_cast<int>(std::min<long long>(number(1, "C"), 1 << 30));
    if (extra >= 2) f.sigma = static_cast<int>(std::min<long long>(number(2, "sigma"), 1 << 30));
    if (f.slice_height > 1024)
      throw Error("format '" + spec + "': slice height " + parts[1] + " is above 1024");
  } else {
    throw Error("unknown format '" + spec + "'" + usage);
  }
  return f;
}

/// The canonical name of a spec ("bsr:3", "sell:32:256", "hyb").
inline std::string to_string(const FormatSpec& f) {
  switch (f.format) {
    case SparseFormat::csr:
      return "csr";
    case SparseFormat::ell:
      return f.width >= 0 ? "ell:" + std::to_string(f.width) : "ell";
    case SparseFormat::hyb:
      return f.width >= 0 ? "hyb:" + std::to_string(f.width) : "hyb";
    case SparseFormat::bsr:
      return "bsr:" + std::to_string(f.block_size);
    case SparseFormat::sell: {
      std::string s = "sell";
      if (f.slice_height > 0 || f.sigma > 0) s += ":" + std::to_string(f.slice_height);
      if (f.sigma > 0) s += ":" + std::to_string(f.sigma);
      return s;
    }
  }
  return "?";
}

/// Converts A to the format of spec on `space` and calls fn(matrix) with it
/// (the CsrMatrix itself for csr).
template <class ExecSpace, class S, class O, class F, class D, class Fn>
void with_format(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A, const FormatSpec& spec,
                 Fn&& fn) {
  switch (spec.format) {
    case SparseFormat::csr:
      fn(A);
      return;
    case SparseFormat::ell: {
      EllOptions o;
      o.width = spec.width;
      fn(csr_to_ell(space, A, o));
      return;
    }
    case SparseFormat::hyb: {
      HybOptions o;
      o.width = spec.width;
      fn(csr_to_hyb(space, A, o));
      return;
    }
    case SparseFormat::bsr:
      fn(csr_to_bsr(space, A, spec.block_size));
      return;
    case SparseFormat::sell: {
      SellOptions o;
      o.slice_height = spec.slice_height;
      o.sigma = spec.sigma;
      fn(csr_to_sell(space, A, o));
      return;
    }
  }
}

/// Back to CSR from any format (A itself for a CsrMatrix).
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> to_csr(const ExecSpace&, const CsrMatrix<S, O, F, D>& A) {
  return A;
}
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> to_csr(const ExecSpace& space, const EllMatrix<S, O, F, D>& A) {
  return ell_to_csr(space, A);
}
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> to_csr(const ExecSpace& space, const HybMatrix<S, O, F, D>& A) {
  return hyb_to_csr(space, A);
}
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> to_csr(const ExecSpace& space, const BsrMatrix<S, O, F, D>& A) {
  return bsr_to_csr(space, A);
}
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> to_csr(const ExecSpace& space, const SellMatrix<S, O, F, D>& A) {
  return sell_to_csr(space, A);
}

/// Scalars a matrix stores: nnz for CSR, padding and block fill included
/// for the others (their storage over nnz is the fill ratio).
template <class S, class O, class F, class D>
size_t stored_values(const CsrMatrix<S, O, F, D>& A) {
  return static_cast<size_t>(A.nnz());
}
template <class M>
size_t stored_values(const M& A) {
  return A.num_stored();
}

}  // namespace spk
