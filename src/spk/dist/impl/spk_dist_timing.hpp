// Wall-clock helpers of the distributed layer's phase timings (SpmvTimes,
// SpgemmTimes).
#pragma once

#include <chrono>

namespace spk::dist::Impl {

inline std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace spk::dist::Impl
