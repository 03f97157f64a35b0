// MPI helpers of the distributed layer: error checks, byte-wise point-to-point
// exchanges, and the decision whether device buffers may go to MPI directly.
#pragma once

#include <mpi.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_Query_cuda_support, MPIX_CUDA_AWARE_SUPPORT
#endif

#include <climits>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <spk_compat.hpp>
#include <spk_error.hpp>
#include <spk_settings.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace spk::dist {

/// An MPI call failed (the message names the call and MPI's error string).
class MpiError : public Error {
 public:
  using Error::Error;
};

namespace Impl {

/// Called with a stage's name after each stage, to time it (empty: no
/// timing).
using StepTimer = std::function<void(const char*)>;

/// Tag for DistCsrMatrix's constructor from blocks: the device ghost list
/// is complete (no kernel still writing it), so building the plan need not
/// fence first (spk::dist::spgemm builds C's plan while its numeric runs).
struct GhostListComplete {};

inline void mpi_check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw MpiError(std::string("spk::dist: ") + call + " failed: " + std::string(msg, len));
}

#define SPK_MPI(call) ::spk::dist::Impl::mpi_check((call), #call)

inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  SPK_MPI(MPI_Comm_rank(comm, &r));
  return r;
}
inline int comm_size(MPI_Comm comm) {
  int s = 0;
  SPK_MPI(MPI_Comm_size(comm, &s));
  return s;
}

/// An error one rank found, for throw_on_every_rank.
struct RankError {
  enum Kind { None, File, Other } kind = None;  // File: a MatrixMarketError at `line`
  long long line = 0;
  std::string what;
};

/// When any rank has an error, every rank throws the one of the lowest rank
/// that has one (a MatrixMarketError(file, line, what) for RankError::File,
/// else an spk::Error(what)), so that no rank is left waiting in a later
/// collective.  Collective.
inline void throw_on_every_rank(MPI_Comm comm, RankError e, const std::string& file) {
  const int p = comm_size(comm);
  int who = e.kind == RankError::None ? p : comm_rank(comm);
  SPK_MPI(MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, comm));
  if (who == p) return;
  long long head[3] = {static_cast<long long>(e.kind), e.line,
                       static_cast<long long>(e.what.size())};
  SPK_MPI(MPI_Bcast(head, 3, MPI_LONG_LONG, who, comm));
  e.what.resize(static_cast<size_t>(head[2]));
  if (head[2] > 0) SPK_MPI(MPI_Bcast(&e.what[0], static_cast<int>(head[2]), MPI_CHAR, who, comm));
  if (head[0] == RankError::File) throw MatrixMarketError(file, head[1], e.what);
  throw Error(e.what);
}

/// MPI counts are int: larger messages are an Overflow, not a silent wrap.
inline int mpi_count(long long n, const char* what) {
  SPK_REQUIRE(n >= 0 && n <= INT_MAX, Overflow, "spk::dist: ", what, " of ", n,
              " bytes does not fit an MPI count");
  return static_cast<int>(n);
}

/// The MPI datatype of a value (reductions; the exchanges move bytes).
template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  if constexpr (std::is_same_v<T, long long>) return MPI_LONG_LONG;
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  // Kokkos::complex<R> is laid out as C's R _Complex: {real, imaginary}.
  if constexpr (std::is_same_v<T, Kokkos::complex<double>>) return MPI_C_DOUBLE_COMPLEX;
  if constexpr (std::is_same_v<T, Kokkos::complex<float>>) return MPI_C_FLOAT_COMPLEX;
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float> ||
                    std::is_same_v<T, long long> || std::is_same_v<T, int> ||
                    std::is_same_v<T, Kokkos::complex<double>> ||
                    std::is_same_v<T, Kokkos::complex<float>>,
                "spk::dist::Impl::mpi_type: unsupported type");
  return MPI_DATATYPE_NULL;
}

template <class T>
T allreduce_sum(MPI_Comm comm, T v) {
  T r{};
  SPK_MPI(MPI_Allreduce(&v, &r, 1, mpi_type<T>(), MPI_SUM, comm));
  return r;
}
template <class T>
T allreduce_max(MPI_Comm comm, T v) {
  T r{};
  SPK_MPI(MPI_Allreduce(&v, &r, 1, mpi_type<T>(), MPI_MAX, comm));
  return r;
}

/// Whether this MPI library reads and writes CUDA device memory:
/// Settings::gpu_aware_mpi (environment SPK_GPU_AWARE_MPI=1 / 0) forces the
/// answer; otherwise Open MPI is asked at run time
/// (MPIX_Query_cuda_support), and any other MPI is taken as not CUDA-aware
/// (buffers are staged through host memory).
inline bool cuda_aware_mpi() {
  switch (settings().gpu_aware_mpi) {
    case GpuAwareMpi::Yes:
      return true;
    case GpuAwareMpi::No:
      return false;
    case GpuAwareMpi::Detect:
      break;
  }
  static const bool aware = [] {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    // Asked at run time, not from MPIX_CUDA_AWARE_SUPPORT: the library met
    // at run time may be CUDA-aware when the headers compiled against were
    // not (Debian's say 0).
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }();
  return aware;
}

/// Whether buffers in MemorySpace go to MPI as they are (host memory always;
/// device memory only with a CUDA-aware MPI), or are staged through host.
template <class MemorySpace>
bool mpi_reads_directly() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
    return true;
  else
    return cuda_aware_mpi();
}

/// Posts the receives and sends of one exchange of T between neighbours:
/// recv_ranks[n] sends recv_displs[n+1]-recv_displs[n] elements into
/// recv + recv_displs[n]; likewise for sends.  Pointers may be device
/// pointers only when mpi_reads_directly says so.  Requests are appended.
template <class T>
void post_exchange(MPI_Comm comm, int tag, const std::vector<int>& send_ranks,
                   const std::vector<long long>& send_displs, const T* send,
                   const std::vector<int>& recv_ranks, const std::vector<long long>& recv_displs,
                   T* recv, std::vector<MPI_Request>& requests) {
  for (size_t n = 0; n < recv_ranks.size(); ++n) {
    const long long count = recv_displs[n + 1] - recv_displs[n];
    if (count == 0) continue;
    requests.emplace_back();
    SPK_MPI(MPI_Irecv(recv + recv_displs[n], mpi_count(count * sizeof(T), "a receive"), MPI_BYTE,
                      recv_ranks[n], tag, comm, &requests.back()));
  }
  for (size_t n = 0; n < send_ranks.size(); ++n) {
    const long long count = send_displs[n + 1] - send_displs[n];
    if (count == 0) continue;
    requests.emplace_back();
    SPK_MPI(MPI_Isend(send + send_displs[n], mpi_count(count * sizeof(T), "a send"), MPI_BYTE,
                      send_ranks[n], tag, comm, &requests.back()));
  }
}

inline void wait_all(std::vector<MPI_Request>& requests) {
  if (!requests.empty())
    SPK_MPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  requests.clear();
}

}  // namespace Impl
}  // namespace spk::dist
