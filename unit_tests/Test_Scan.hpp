// Exclusive prefix sums (spk_convert_impl.hpp: exclusive_scan, and
// exclusive_scan_queued, which leaves the total in v(n)), in place, against
// std::exclusive_scan on random counts, from empty to 33.5M values (the sizes
// that row maps and counts of the distributed product reach); the segmented
// sort of the conversions on each of its paths.
#include <algorithm>
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

// Segmented sort (core/impl/spk_segmented_sort.hpp) on every path: empty,
// short (one thread), long (one team) and wide segments (the whole device,
// forced here by a small wide_len on every backend), keys with ties broken
// by entry number, against std::sort per segment.
TEST(TEST_CATEGORY, segmented_sort_every_path) {
  const ExecSpace space;
  const std::vector<long long> lengths = {0,   1, 2,    31, 48,    49, 64,
                                          700, 0, 4097, 33, 12000, 3,  1500};
  std::vector<long long> off(lengths.size() + 1, 0);
  for (std::size_t s = 0; s < lengths.size(); ++s) off[s + 1] = off[s] + lengths[s];
  const long long nnz = off.back();
  std::mt19937 gen(11);
  std::vector<int> keys(nnz), perm(nnz);
  for (auto& k : keys) k = std::uniform_int_distribution<int>(0, 40)(gen);
  for (long long k = 0; k < nnz; ++k) perm[k] = static_cast<int>(k);
  for (std::size_t s = 0; s < lengths.size(); ++s)
    std::shuffle(perm.begin() + off[s], perm.begin() + off[s + 1], gen);
  auto want = perm;
  const auto less = [&](int a, int b) {
    return keys[a] < keys[b] || (keys[a] == keys[b] && a < b);
  };
  for (std::size_t s = 0; s < lengths.size(); ++s)
    std::sort(want.begin() + off[s], want.begin() + off[s + 1], less);
  auto d_keys = to_device(keys);
  Kokkos::View<long long*, Dev> d_off("scan.off", off.size());
  auto h_off = Kokkos::create_mirror_view(d_off);
  for (std::size_t s = 0; s < off.size(); ++s) h_off(s) = off[s];
  Kokkos::deep_copy(d_off, h_off);
  for (const long long wide_len : {1000LL, 100000LL, spk::Impl::wide_segment_length<ExecSpace>()}) {
    auto d_perm = to_device(perm);
    const bool wide =
        spk::Impl::segmented_sort(space, d_off, static_cast<long long>(lengths.size()), d_perm,
                                  spk::Impl::KeyThenIndexLess<decltype(d_keys)>{d_keys}, wide_len);
    EXPECT_EQ(to_host(d_perm), want) << "wide_len " << wide_len;
    EXPECT_EQ(wide, wide_len < 12000) << "wide_len " << wide_len;  // 12000: the longest
  }
}
