// Exclusive prefix sums (spk_convert_impl.hpp: exclusive_scan, and
// exclusive_scan_queued, which leaves the total in v(n)), in place, against
// std::exclusive_scan on random counts, from empty to 33.5M values (the sizes
// that row maps and counts of the distributed product reach).
#include <numeric>
#include <random>
#include <spk_convert.hpp>
#include <spk_test_utils.hpp>
#include <vector>

namespace {

using ExecSpace = TEST_EXECSPACE;
using Dev = spk::device_t<ExecSpace>;

// n random counts in [0, 9] (a row-length-like input), and 0 after them.
inline std::vector<int> random_counts(long long n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(0, 9);
  std::vector<int> v(n + 1, 0);
  for (long long i = 0; i < n; ++i) v[i] = d(gen);
  return v;
}

inline Kokkos::View<int*, Dev> to_device(const std::vector<int>& h) {
  Kokkos::View<int*, Dev> v("scan.v", h.size());
  auto m = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < h.size(); ++i) m(i) = h[i];
  Kokkos::deep_copy(v, m);
  return v;
}

inline std::vector<int> to_host(const Kokkos::View<int*, Dev>& v) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<int>(m.data(), m.data() + m.extent(0));
}

}  // namespace

TEST(TEST_CATEGORY, scan_exclusive) {
  const ExecSpace space;
  for (long long n : {0LL, 1LL, 4095LL, 4096LL, 4097LL, 100003LL, 8192LL * 4096 + 12345}) {
    const auto h = random_counts(n, static_cast<unsigned>(n) + 3);
    std::vector<int> want(n + 1);
    std::exclusive_scan(h.begin(), h.end(), want.begin(), 0);
    const int want_total = want[n] + h[n];
    auto v = to_device(h);
    EXPECT_EQ(spk::Impl::exclusive_scan(space, v, n), want_total) << "n = " << n;
    EXPECT_EQ(to_host(v), want) << "n = " << n;
    // Queued: the same values, the total in v(n).
    auto q = to_device(h);
    spk::Impl::exclusive_scan_queued(space, q, n);
    space.fence();
    EXPECT_EQ(to_host(q), want) << "n = " << n;
  }
}
