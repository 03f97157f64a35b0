// Exceptions thrown by spk.  Every message names what is wrong and where.
#pragma once

#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace spk {

/// Base of every exception spk throws.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A matrix (or vector) whose structure is invalid: bad row pointers,
/// indices out of range, mismatched sizes.
class InvalidMatrix : public Error {
 public:
  using Error::Error;
};

/// Operands whose shapes do not fit the operation (A is m×k, x has n≠k...).
class ShapeMismatch : public Error {
 public:
  using Error::Error;
};

/// A count that does not fit the chosen ordinal or offset type.
class Overflow : public Error {
 public:
  using Error::Error;
};

/// A Matrix Market file that cannot be read: the message has
/// "<file>:<line>: <what>" and the parts are kept for callers.
class MatrixMarketError : public Error {
 public:
  MatrixMarketError(std::string file, long long line, const std::string& what)
      : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what),
        file_(std::move(file)),
        line_(line),
        reason_(what) {}
  const std::string& file() const noexcept { return file_; }
  /// 1-based line number, or 0 when the error is not tied to a line.
  long long line() const noexcept { return line_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  long long line_;
  std::string reason_;
};

namespace Impl {

/// n < 0 without "comparison of unsigned with zero" warnings.
template <class N>
constexpr bool is_negative(N n) {
  if constexpr (std::is_signed_v<N>)
    return n < 0;
  else
    return false;
}

/// Whether a count v >= 0 fits the integer type T, signed or not (a 64-bit
/// unsigned maximum is compared unsigned, never as a negative long long).
template <class T>
constexpr bool fits_integer(long long v) {
  return v >= 0 && static_cast<unsigned long long>(v) <=
                       static_cast<unsigned long long>(std::numeric_limits<T>::max());
}

template <class... Args>
std::string concat(Args&&... args) {
  std::ostringstream s;
  (s << ... << std::forward<Args>(args));
  return s.str();
}

}  // namespace Impl
}  // namespace spk

/// Throws ExceptionType with the streamed message when cond is false.
#define SPK_REQUIRE(cond, ExceptionType, ...)                           \
  do {                                                                  \
    if (!(cond)) throw ExceptionType(::spk::Impl::concat(__VA_ARGS__)); \
  } while (0)
