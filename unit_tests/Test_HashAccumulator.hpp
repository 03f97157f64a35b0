// HashAccumulator: a hand-checkable insertion sequence, and concurrent
// accumulation from many threads.
#include <set>
#include <spk_hash_accumulator.hpp>
#include <spk_test_utils.hpp>

namespace {

using ExecSpace = TEST_EXECSPACE;
using Dev = spk::device_t<ExecSpace>;

// Kernels live in functions: CUDA lambdas cannot sit in a test body.
inline void run_tiny(Kokkos::View<int*, Dev> keys, Kokkos::View<double*, Dev> vals,
                     Kokkos::View<int*, Dev> info) {
  Kokkos::parallel_for(
      "hash_tiny", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(const int) {
        using Acc = spk::HashAccumulator<int, double>;
        const Acc h(keys.data(), vals.data(), 8);
        for (unsigned s = 0; s < 8; ++s) h.clear(s);
        const int k[5] = {3, 11, 3, 5, 19};
        const double v[5] = {1, 2, 3, 4, 5};
        for (int q = 0; q < 5; ++q) info(q) = h.accumulate(k[q], v[q]) ? 1 : 0;
        info(5) = static_cast<int>(h.find(19));
        info(6) = static_cast<int>(h.find(7));  // absent: capacity
        bool is_new = true;
        info(7) = static_cast<int>(h.insert(11, is_new)) + (is_new ? 100 : 0);
      });
}

// Two tables interleaved with stride 2 (slot s of table t at 2 * s + t),
// each owned by one thread (ExclusiveInsert): the tiny sequence in table 1,
// its negation in table 0.
inline void run_strided(Kokkos::View<int*, Dev> keys, Kokkos::View<double*, Dev> vals) {
  Kokkos::parallel_for(
      "hash_strided", Kokkos::RangePolicy<ExecSpace>(0, 2), KOKKOS_LAMBDA(const int t) {
        using Acc = spk::HashAccumulator<int, double, spk::HashMask, spk::LinearProbing,
                                         spk::ExclusiveInsert>;
        const Acc h(keys.data() + t, vals.data() + t, 8, 2);
        for (unsigned s = 0; s < 8; ++s) h.clear(s);
        const int k[5] = {3, 11, 3, 5, 19};
        const double v[5] = {1, 2, 3, 4, 5};
        for (int q = 0; q < 5; ++q) h.accumulate(k[q], t == 1 ? v[q] : -v[q]);
      });
}

/// n threads add 1 to key ((t * 7) % distinct) * stride of a cap-slot table.
template <class Hash, class Probing>
int run_concurrent(Kokkos::View<long*, Dev> keys, Kokkos::View<double*, Dev> vals, int n,
                   int distinct, int cap, long stride) {
  using Acc = spk::HashAccumulator<long, double, Hash, Probing>;
  Kokkos::parallel_for(
      "hash_clear", Kokkos::RangePolicy<ExecSpace>(0, cap),
      KOKKOS_LAMBDA(const int s) { Acc(keys.data(), vals.data(), cap).clear(s); });
  int fresh = 0;
  Kokkos::parallel_reduce(
      "hash_concurrent", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int t, int& count) {
        const Acc h(keys.data(), vals.data(), cap);
        count += h.accumulate((t * 7L) % distinct * stride, 1.0) ? 1 : 0;
      },
      fresh);
  return fresh;
}

TEST(TEST_CATEGORY, hash_accumulator_tiny) {
  // Capacity 8, HashMask + LinearProbing: 3 -> slot 3; 11 (11 & 7 = 3) -> 4;
  // 3 again adds to slot 3; 5 -> 5; 19 (19 & 7 = 3) -> 3, 4, 5 taken -> 6.
  Kokkos::View<int*, Dev> keys("keys", 8);
  Kokkos::View<double*, Dev> vals("vals", 8);
  Kokkos::View<int*, Dev> info("info", 8);
  spk_test::poison(vals);
  run_tiny(keys, vals, info);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vals);
  auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), info);
  const int empty = spk::HashAccumulator<int, double>::empty_key;
  EXPECT_EQ(empty, -1);
  const int expect_keys[8] = {empty, empty, empty, 3, 11, 5, 19, empty};
  const double expect_vals[8] = {0, 0, 0, 4, 2, 4, 5, 0};
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(hk(s), expect_keys[s]) << "slot " << s;
    EXPECT_EQ(hv(s), expect_vals[s]) << "slot " << s;
  }
  const int expect_new[5] = {1, 1, 0, 1, 1};
  for (int q = 0; q < 5; ++q) EXPECT_EQ(hi(q), expect_new[q]) << "insert " << q;
  EXPECT_EQ(hi(5), 6);
  EXPECT_EQ(hi(6), 8);
  EXPECT_EQ(hi(7), 4);  // found in slot 4, not new
}

TEST(TEST_CATEGORY, hash_accumulator_strided) {
  Kokkos::View<int*, Dev> keys("keys", 16);
  Kokkos::View<double*, Dev> vals("vals", 16);
  spk_test::poison(vals);
  run_strided(keys, vals);
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vals);
  const int empty = -1;
  const int expect_keys[8] = {empty, empty, empty, 3, 11, 5, 19, empty};
  const double expect_vals[8] = {0, 0, 0, 4, 2, 4, 5, 0};
  for (int s = 0; s < 8; ++s) {
    for (int t = 0; t < 2; ++t) {
      EXPECT_EQ(hk(2 * s + t), expect_keys[s]) << "slot " << s << " table " << t;
      EXPECT_EQ(hv(2 * s + t), t == 1 ? expect_vals[s] : -expect_vals[s])
          << "slot " << s << " table " << t;
    }
  }
}

/// Checks the table after run_concurrent: every key once, with its multiplicity.
inline void expect_concurrent_table(Kokkos::View<long*, Dev> keys, Kokkos::View<double*, Dev> vals,
                                    int n, int distinct, int cap, long stride) {
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vals);
  std::vector<double> got(distinct, 0);
  int occupied = 0;
  for (int s = 0; s < cap; ++s) {
    if (hk(s) == -1) continue;
    ++occupied;
    ASSERT_EQ(hk(s) % stride, 0);
    ASSERT_GE(hk(s), 0);
    ASSERT_LT(hk(s) / stride, distinct);
    got[hk(s) / stride] += hv(s);
  }
  EXPECT_EQ(occupied, distinct);
  for (int k = 0; k < distinct; ++k) {
    int mult = 0;
    for (int t = 0; t < n; ++t) mult += (t * 7L) % distinct == k;
    EXPECT_EQ(got[k], mult) << "key " << k * stride;
  }
}

TEST(TEST_CATEGORY, hash_accumulator_concurrent) {
  // 5000 threads add 1 to key (t * 7) % 97 in a 128-slot table: every key
  // ends with its multiplicity, and exactly 97 inserts report "new".
  constexpr int n = 5000, distinct = 97, cap = 128;
  Kokkos::View<long*, Dev> keys("keys", cap);
  Kokkos::View<double*, Dev> vals("vals", cap);
  const int fresh = run_concurrent<spk::HashMultiplicative, spk::QuadraticProbing>(
      keys, vals, n, distinct, cap, 1);
  EXPECT_EQ(fresh, distinct);
  expect_concurrent_table(keys, vals, n, distinct, cap, 1);
  // HashMix (the SpGEMM kernels' hash) on keys that all share their low 12
  // bits (and 64-bit keys above 2^32): the same result.
  for (const long stride : {4096L, (1L << 33) + 4096L}) {
    SCOPED_TRACE(stride);
    const int f =
        run_concurrent<spk::HashMix, spk::LinearProbing>(keys, vals, n, distinct, cap, stride);
    EXPECT_EQ(f, distinct);
    expect_concurrent_table(keys, vals, n, distinct, cap, stride);
  }
}

/// HashMix spreads keys whose low bits are all equal over the slots of a
/// table, where HashMask sends them all to one slot.
TEST(TEST_CATEGORY, hash_accumulator_mix_spreads) {
  std::set<std::uint32_t> slots_mask, slots_mix;
  for (int q = 0; q < 64; ++q) {
    slots_mask.insert(spk::HashMask::hash(q << 12) & 255u);
    slots_mix.insert(spk::HashMix::hash(q << 12) & 255u);
  }
  EXPECT_EQ(slots_mask.size(), 1u);
  EXPECT_GT(slots_mix.size(), 40u);
}

}  // namespace
