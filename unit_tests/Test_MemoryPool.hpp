// spk's temporaries (spk_memory_pool.hpp): blocks hold what kernels write,
// memory freed and taken again in stream order keeps each user's data, views
// are checked against their block, stream_wait orders two instances, and
// the host pool hands kept blocks out again, only once, as managed Views.
#include <cstdint>
#include <map>
#include <optional>
#include <spk_compat.hpp>
#include <spk_memory_pool.hpp>
#include <spk_settings.hpp>
#include <spk_test_utils.hpp>
#include <string>

namespace {

using ExecSpace = TEST_EXECSPACE;
using Dev = spk::device_t<ExecSpace>;

// Kernels live in functions: CUDA lambdas cannot sit in a test body.
inline void fill_affine(const ExecSpace& space, Kokkos::View<double*, Dev> v, double a, double b) {
  Kokkos::parallel_for(
      "pool_fill", Kokkos::RangePolicy<ExecSpace>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { v(i) = a * static_cast<double>(i) + b; });
}

inline void copy_plus_one(const ExecSpace& space, Kokkos::View<double*, Dev> from,
                          Kokkos::View<double*, Dev> to) {
  Kokkos::parallel_for(
      "pool_copy", Kokkos::RangePolicy<ExecSpace>(space, 0, to.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { to(i) = from(i) + 1.0; });
}

// Entries of v that differ from a·i + b (read on the host).
inline long long count_wrong(Kokkos::View<double*, Dev> v, double a, double b) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  long long wrong = 0;
  for (std::size_t i = 0; i < h.extent(0); ++i)
    if (h(i) != a * static_cast<double>(i) + b) ++wrong;
  return wrong;
}

// priority_instance's streams on CUDA: the side stream at the device's
// highest priority, the same one at every call, with bin streams of its own
// at that priority; spk's CUDA pool never lets one stream wait for another
// to reuse memory.  A template, so that the CUDA calls are compiled for
// Kokkos::Cuda alone (a discarded `if constexpr` branch outside a template is
// still compiled).
template <class Space>
void expect_priority_streams(const Space& space, const Space& side) {
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    EXPECT_NE(side.cuda_stream(), space.cuda_stream());
    EXPECT_EQ(spk::Impl::priority_instance(space).cuda_stream(), side.cuda_stream());
    int least = 0, greatest = 0, prio = 1;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    cudaStreamGetPriority(side.cuda_stream(), &prio);
    EXPECT_EQ(prio, greatest);
    const auto mine = spk::Impl::concurrent_instances(space, 4);
    const auto its = spk::Impl::concurrent_instances(side, 4);
    ASSERT_EQ(its.size(), 4u);
    for (const auto& x : its) {
      cudaStreamGetPriority(x.cuda_stream(), &prio);
      EXPECT_EQ(prio, greatest);
      EXPECT_NE(x.cuda_stream(), side.cuda_stream());
      for (const auto& y : mine) EXPECT_NE(x.cuda_stream(), y.cuda_stream());
    }
    if (spk::Impl::memory_pool_enabled()) {
      int internal = 1;
      cudaMemPoolGetAttribute(spk::Impl::cuda_memory_pool(space.cuda_device()),
                              cudaMemPoolReuseAllowInternalDependencies, &internal);
      EXPECT_EQ(internal, 0);
    }
    return;
  }
#endif
  (void)space;
  (void)side;
}

}  // namespace

TEST(TEST_CATEGORY, memory_pool_block) {
  const ExecSpace space;
  const spk::Impl::TempBlock<ExecSpace> block(space, "test::block", 4096 * sizeof(double) + 64);
  ASSERT_TRUE(block);
  EXPECT_EQ(block.bytes(), 4096 * sizeof(double) + 64);
  auto v = block.view<double>(4096);
  Kokkos::deep_copy(space, v, std::nan(""));  // poison
  fill_affine(space, v, 2.5, -1.0);
  EXPECT_EQ(count_wrong(v, 2.5, -1.0), 0);
  // A second view at an offset inside the block.
  auto w = block.view<double>(8, 4096 * sizeof(double));
  fill_affine(space, w, 1.0, 7.0);
  EXPECT_EQ(count_wrong(w, 1.0, 7.0), 0);
  EXPECT_EQ(count_wrong(v, 2.5, -1.0), 0);  // untouched by w
  // Views that leave the block, or misaligned ones, are refused.
  EXPECT_THROW(block.view<double>(4097, 64), spk::Error);
  EXPECT_THROW(block.view<double>(1, 4), spk::Error);
  // Empty blocks have no memory and give empty views.
  const spk::Impl::TempBlock<ExecSpace> empty(space, "test::empty", 0);
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.view<double>(0).extent(0), 0u);
  EXPECT_THROW(empty.view<double>(1), spk::Error);
}

// Freed memory is taken again by the next block in stream order: every
// generation must see only its own values.
TEST(TEST_CATEGORY, memory_pool_reuse_in_stream_order) {
  const ExecSpace space;
  // Sizes above 64 KiB: the host pool serves them too.
  Kokkos::View<double*, Dev> kept("test::kept", 200003);
  for (int gen = 0; gen < 20; ++gen) {
    const std::size_t n = 200003 + 977 * static_cast<std::size_t>(gen % 5);
    spk::Impl::TempView<double, ExecSpace> a(space, "test::a", n);
    fill_affine(space, a.view, 1.0, gen);
    spk::Impl::TempView<double, ExecSpace> b(space, "test::b", n);
    copy_plus_one(space, a.view, b.view);
    a = spk::Impl::TempView<double, ExecSpace>();  // freed while b's kernel may still run
    spk::Impl::TempView<double, ExecSpace> c(space, "test::c", n);
    fill_affine(space, c.view, -3.0, 0.5);
    copy_plus_one(space, Kokkos::subview(b.view, std::make_pair(std::size_t(0), kept.extent(0))),
                  kept);
    ASSERT_EQ(count_wrong(kept, 1.0, gen + 2.0), 0) << "generation " << gen;
    ASSERT_EQ(count_wrong(c.view, -3.0, 0.5), 0) << "generation " << gen;
  }
}

// pooled_view: the owners list keeps the memory as long as it lives.
TEST(TEST_CATEGORY, memory_pool_owners) {
  const ExecSpace space;
  std::vector<std::shared_ptr<void>> owners;
  auto v = spk::Impl::pooled_view<Kokkos::View<double*, Dev>>(space, owners, "test::owned", 5000);
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(v.extent(0), 5000u);
  fill_affine(space, v, 0.25, 3.0);
  // Other allocations while v's memory is owned must not overlap it.
  for (int k = 0; k < 4; ++k) {
    spk::Impl::TempView<double, ExecSpace> t(space, "test::other", 5000);
    fill_affine(space, t.view, -1.0, k);
  }
  EXPECT_EQ(count_wrong(v, 0.25, 3.0), 0);
  owners.clear();
  space.fence();
}

// stream_wait: the second instance's kernel runs after the first's.
TEST(TEST_CATEGORY, memory_pool_stream_wait) {
  const ExecSpace space;
  const auto inst = spk::Impl::concurrent_instances(space, 2);
  ASSERT_EQ(inst.size(), 2u);
  Kokkos::View<double*, Dev> x("test::x", 1 << 20), y("test::y", 1 << 20);
  space.fence();
  for (int rep = 0; rep < 5; ++rep) {
    fill_affine(inst[0], x, 3.0, rep);
    spk::Impl::stream_wait(inst[1], inst[0]);
    copy_plus_one(inst[1], x, y);
    inst[1].fence();
    ASSERT_EQ(count_wrong(y, 3.0, rep + 1.0), 0) << "repeat " << rep;
  }
}

// priority_instance: on CUDA (Kokkos 4) a stream of its own at the device's
// highest priority, the same one at every call, with bin streams of its own
// at that priority; elsewhere the instance itself.  Work on it ordered by
// stream_wait sees what the first instance wrote.  spk's CUDA pool never
// makes one stream wait for another to reuse memory.
TEST(TEST_CATEGORY, memory_pool_priority_instance) {
  const ExecSpace space;
  const ExecSpace side = spk::Impl::priority_instance(space);
  expect_priority_streams(space, side);
  Kokkos::View<double*, Dev> x("test::x", 1 << 20), y("test::y", 1 << 20);
  space.fence();
  for (int rep = 0; rep < 5; ++rep) {
    fill_affine(space, x, 2.0, rep);
    spk::Impl::stream_wait(side, space);
    copy_plus_one(side, x, y);
    side.fence();
    ASSERT_EQ(count_wrong(y, 2.0, rep + 1.0), 0) << "repeat " << rep;
  }
}

// The host pool: a result View of 64 KiB or more is a managed View over a
// pooled block (label, shared ownership); once its last copy goes, the next
// request of about its size gets the same block back, never while a View
// still holds it; trim_memory_pool gives kept blocks back.
TEST(TEST_CATEGORY, memory_pool_host_results) {
  using HostView = Kokkos::View<double*, Kokkos::HostSpace>;
  if (!spk::Impl::memory_pool_enabled() || !SPK_CAN_ADOPT_ALLOCATIONS)
    GTEST_SKIP() << "spk's pool is off (SPK_MEMORY_POOL=0) or cannot adopt memory";
  const Kokkos::DefaultHostExecutionSpace host;
  const std::size_t n = 300007;  // 2.4 MB
  auto& pool = spk::Impl::HostMemoryPool::instance();
  const std::size_t block_bytes = pool.block_bytes(n * sizeof(double));
  if (pool.keep_limit() < 2 * block_bytes)
    GTEST_SKIP() << "SPK_MEMORY_POOL_KEEP_BYTES keeps fewer than the test's two blocks";
  spk::trim_memory_pool();
  HostView a = spk::Impl::result_view<HostView>(host, "test::result_a", n, true);
  ASSERT_EQ(a.extent(0), n);
  EXPECT_EQ(a.label(), "test::result_a");
  EXPECT_EQ(a.use_count(), 1);
  for (std::size_t i = 0; i < n; ++i) a(i) = 0.5 * static_cast<double>(i);
  const double* block = a.data();
  const double* block_b = nullptr;
  {
    const HostView copy = a;
    EXPECT_EQ(a.use_count(), 2);
    a = HostView();  // the copy still holds the block
    const HostView b = spk::Impl::result_view<HostView>(host, "test::result_b", n, true);
    EXPECT_NE(b.data(), block);
    block_b = b.data();
    for (std::size_t i = 0; i < n; ++i) b(i) = -1.0;
    long long wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += copy(i) != 0.5 * static_cast<double>(i);
    EXPECT_EQ(wrong, 0);
  }
  // All copies gone: both blocks are kept, and a request a little smaller
  // gets one of them back.
  EXPECT_EQ(pool.kept_bytes(), 2 * block_bytes);
  const HostView c = spk::Impl::result_view<HostView>(host, "test::result_c", n - 1000, true);
  EXPECT_EQ(c.extent(0), n - 1000);
  EXPECT_EQ(c.use_count(), 1);
  EXPECT_TRUE(c.data() == block || c.data() == block_b);
  EXPECT_EQ(pool.kept_bytes(), block_bytes);
  spk::trim_memory_pool();
  EXPECT_EQ(pool.kept_bytes(), 0u);
  // Below a huge page, blocks are multiples of 64 KiB, kept as well.
  {
    const std::size_t n_mid = 20000;  // 160 KB: a block of 192 KiB
    EXPECT_EQ(pool.block_bytes(n_mid * sizeof(double)), std::size_t(192) << 10);
    HostView mid = spk::Impl::result_view<HostView>(host, "test::mid", n_mid, true);
    ASSERT_EQ(mid.extent(0), n_mid);
    EXPECT_EQ(pool.kept_bytes(), 0u);
    const double* mid_block = mid.data();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mid_block) % (std::size_t(64) << 10), 0u);
    for (std::size_t i = 0; i < n_mid; ++i) mid(i) = 2.0 * static_cast<double>(i);
    mid = HostView();
    EXPECT_EQ(pool.kept_bytes(), std::size_t(192) << 10);
    const HostView again = spk::Impl::result_view<HostView>(host, "test::mid2", n_mid - 10, true);
    EXPECT_EQ(again.data(), mid_block);
    EXPECT_EQ(pool.kept_bytes(), 0u);
  }
  spk::trim_memory_pool();
  // Pooled requests below 64 KiB, and unpooled ones, are Kokkos allocations.
  const HostView small = spk::Impl::result_view<HostView>(host, "test::small", 1000, true);
  EXPECT_EQ(small.label(), "test::small");
  const HostView own = spk::Impl::result_view<HostView>(host, "test::own", n, false);
  EXPECT_EQ(own.extent(0), n);
  EXPECT_EQ(pool.kept_bytes(), 0u);
}

namespace {

// Settings with the pool's controls changed for one test.
spk::Settings settings_with(void (*change)(spk::Settings&)) {
  spk::Settings s = spk::settings();
  change(s);
  return s;
}

// side_streams = CallerOnly: on CUDA every instance spk would use is the
// caller's stream; max_bin_streams caps the bin streams.  A template, so
// that the CUDA calls are compiled for Kokkos::Cuda alone.
template <class Space>
void expect_caller_only_streams(const Space& space) {
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    {
      const spk::ScopedSettings scoped(
          settings_with([](spk::Settings& s) { s.side_streams = spk::SideStreams::CallerOnly; }));
      for (const auto& x : spk::Impl::concurrent_instances(space, 4))
        EXPECT_EQ(x.cuda_stream(), space.cuda_stream());
      EXPECT_EQ(spk::Impl::priority_instance(space).cuda_stream(), space.cuda_stream());
      EXPECT_EQ(spk::Impl::helper_instance(space).cuda_stream(), space.cuda_stream());
    }
    const spk::ScopedSettings scoped(
        settings_with([](spk::Settings& s) { s.max_bin_streams = 2; }));
    const auto two = spk::Impl::concurrent_instances(space, 4);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_NE(two[0].cuda_stream(), two[1].cuda_stream());
    return;
  }
#endif
  const spk::ScopedSettings scoped(
      settings_with([](spk::Settings& s) { s.side_streams = spk::SideStreams::CallerOnly; }));
  EXPECT_FALSE(spk::Impl::concurrent_instances(space, 4).empty());
}

}  // namespace

// The environment's SPK_* variables override the defaults (read through a
// lookup, so the test needs no setenv); unknown or empty values leave them.
TEST(TEST_CATEGORY, settings_from_environment) {
  const std::map<std::string, std::string> env = {
      {"SPK_MEMORY_POOL", "0"},           {"SPK_MEMORY_POOL_KEEP_BYTES", "1000"},
      {"SPK_HOST_POOL_KEEP_BYTES", "77"}, {"SPK_SIDE_STREAMS", "0"},
      {"SPK_MAX_BIN_STREAMS", "2"},       {"SPK_DIST_IPC", "0"},
      {"SPK_GPU_AWARE_MPI", "1"},         {"SPK_POOLED_RESULTS", ""},
      {"SPK_SPGEMM_MAX_SLABS", "3"},      {"SPK_SPGEMM_WARP_SORT", "5:8:6:7:4"},
      {"SPK_SPGEMM_WARP_SORT_FEW", "0"},  {"SPK_SPGEMM_REGROUP", "3:1000:1:8:12.5"},
      {"SPK_SPGEMM_SAMPLE", "2.5"},       {"SPK_SPGEMM_WIDE_ROW", "16:4096"}};
  const auto lookup = [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const spk::Settings s = spk::Impl::settings_from_environment(spk::Settings(), lookup);
  EXPECT_FALSE(s.memory_pool);
  EXPECT_EQ(s.device_pool_keep_bytes, 1000u);
  EXPECT_EQ(s.host_pool_keep_bytes, 77u);  // the specific variable wins
  EXPECT_TRUE(s.pooled_results);           // empty: the default
  EXPECT_EQ(s.side_streams, spk::SideStreams::CallerOnly);
  EXPECT_EQ(s.max_bin_streams, 2);
  EXPECT_FALSE(s.dist_ipc);
  EXPECT_EQ(s.gpu_aware_mpi, spk::GpuAwareMpi::Yes);
  EXPECT_EQ(s.spgemm.max_slabs.value_or(-1), 3);
  EXPECT_FALSE(s.spgemm.long_b_row.has_value());
  EXPECT_EQ(s.spgemm.warp_sort_min_log2.value_or(-1), 5);
  EXPECT_EQ(s.spgemm.warp_sort_max_log2.value_or(-1), 8);
  EXPECT_EQ(s.spgemm.warp_sort_min_log2_sym.value_or(-1), 6);
  EXPECT_EQ(s.spgemm.warp_sort_max_log2_sym.value_or(-1), 7);
  EXPECT_EQ(s.spgemm.warp_sort_warps.value_or(-1), 4);
  EXPECT_FALSE(s.spgemm.warp_sort_slots.has_value());
  EXPECT_EQ(s.spgemm.warp_sort_few, std::optional<bool>(false));
  EXPECT_EQ(s.spgemm.regroup_shrink_log2.value_or(-1), 3);
  EXPECT_EQ(s.spgemm.regroup_min_products.value_or(0), 1000u);
  EXPECT_EQ(s.spgemm.regroup_warp_sorted, std::optional<bool>(true));
  EXPECT_EQ(s.spgemm.regroup_max_lane_products.value_or(0), 8u);
  EXPECT_EQ(s.spgemm.regroup_team_products_per_column.value_or(0), 12.5);
  EXPECT_EQ(s.spgemm.sample_compression.value_or(-1.0), 2.5);
  EXPECT_FALSE(s.spgemm.sample_min_products.has_value());
  EXPECT_EQ(s.spgemm.wide_row_words_per_column.value_or(0), 16u);
  EXPECT_EQ(s.spgemm.wide_row_max_bytes.value_or(0), 4096u);
  // Nothing set: the defaults.
  const spk::Settings d =
      spk::Impl::settings_from_environment(spk::Settings(), [](const char*) { return nullptr; });
  EXPECT_TRUE(d.memory_pool);
  EXPECT_EQ(d.device_pool_keep_bytes, 0u);
  EXPECT_EQ(d.side_streams, spk::SideStreams::Own);
  EXPECT_EQ(d.max_bin_streams, 4);
  EXPECT_EQ(d.gpu_aware_mpi, spk::GpuAwareMpi::Detect);
  EXPECT_FALSE(d.spgemm.warp_sort_min_log2.has_value());
  EXPECT_FALSE(d.spgemm.regroup_shrink_log2.has_value());
  EXPECT_FALSE(d.spgemm.sample_compression.has_value());
  EXPECT_FALSE(d.spgemm.wide_row_words_per_column.has_value());
  // Per-call overrides come before the settings'.
  spk::SpgemmTuningOverrides call;
  call.max_slabs = 9;
  call.regroup_shrink_log2 = 1;
  const auto merged = call.or_else(s.spgemm);
  EXPECT_EQ(merged.max_slabs.value_or(-1), 9);
  EXPECT_EQ(merged.warp_sort_max_log2.value_or(-1), 8);
  EXPECT_EQ(merged.regroup_shrink_log2.value_or(-1), 1);
  EXPECT_EQ(merged.regroup_min_products.value_or(0), 1000u);
  EXPECT_EQ(merged.sample_compression.value_or(-1.0), 2.5);
  EXPECT_EQ(merged.wide_row_max_bytes.value_or(0), 4096u);
}

// ScopedSettings puts the previous settings back; the pool follows what is
// installed now: off, Kokkos allocations; a host keep cap below a block,
// nothing kept; pooled_results off, results are Kokkos allocations.
TEST(TEST_CATEGORY, settings_drive_the_pools) {
  const spk::Settings before = spk::settings();
  if (!before.memory_pool) GTEST_SKIP() << "spk's pool is off (SPK_MEMORY_POOL=0)";
  using Host = Kokkos::DefaultHostExecutionSpace;
  using HostView = Kokkos::View<double*, Kokkos::HostSpace>;
  const Host host;
  auto& pool = spk::Impl::HostMemoryPool::instance();
  const std::size_t n = 300007;  // 2.4 MB: served by the host pool when it is on
  spk::trim_memory_pool();
  {
    const spk::ScopedSettings scoped(settings_with([](spk::Settings& s) {
      s.memory_pool = false;
      s.host_pool_keep_bytes = 12345;
    }));
    EXPECT_FALSE(spk::Impl::memory_pool_enabled());
    EXPECT_EQ(pool.keep_limit(), 12345u);
    {
      spk::Impl::TempView<double, Host> t(host, "test::unpooled", n);
      for (std::size_t i = 0; i < n; ++i) t.view(i) = 1.0;
    }
    EXPECT_EQ(pool.kept_bytes(), 0u);
  }
  EXPECT_EQ(spk::settings().memory_pool, before.memory_pool);
  EXPECT_EQ(spk::settings().host_pool_keep_bytes, before.host_pool_keep_bytes);
  {
    // A cap below one block: freed blocks go back to the system at once.
    const spk::ScopedSettings scoped(
        settings_with([](spk::Settings& s) { s.host_pool_keep_bytes = 4096; }));
    { spk::Impl::TempView<double, Host> t(host, "test::capped", n); }
    EXPECT_EQ(pool.kept_bytes(), 0u);
  }
  {
    // The default cap keeps the block.
    { spk::Impl::TempView<double, Host> t(host, "test::kept", n); }
    EXPECT_EQ(pool.kept_bytes(), pool.block_bytes(n * sizeof(double)));
    spk::trim_memory_pool();
  }
  {
    const spk::ScopedSettings scoped(
        settings_with([](spk::Settings& s) { s.pooled_results = false; }));
    { const auto r = spk::Impl::result_view<HostView>(host, "test::plain", n, true); }
    EXPECT_EQ(pool.kept_bytes(), 0u);
  }
  if (SPK_CAN_ADOPT_ALLOCATIONS) {
    { const auto r = spk::Impl::result_view<HostView>(host, "test::pooled", n, true); }
    EXPECT_EQ(pool.kept_bytes(), pool.block_bytes(n * sizeof(double)));
    spk::trim_memory_pool();
  }
}

// side_streams and max_bin_streams decide which instances spk runs on.
TEST(TEST_CATEGORY, settings_side_streams) { expect_caller_only_streams(ExecSpace()); }
