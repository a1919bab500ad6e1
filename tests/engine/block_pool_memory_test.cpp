// A block pool commits memory only for the records it writes (block_pool.h): a
// replica's pool holds tens of thousands of blocks, a run of 1,024 replicas uses a few
// thousand of each, and never-used blocks are plain, so taking them writes no record. The
// resident set is read from /proc/self/statm before and after allocating four million
// never-used blocks of a pool of 2^26: records written for them would be 64 MiB. KV tiers
// (kv_tiers.h) likewise pay for the slots they use, not for their capacity.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "sim/core/zeroed_array.h"
#include "sim/engine/block_pool.h"
#include "sim/engine/kv_tiers.h"

namespace block_pool_memory_test {

namespace {

// Resident pages of this process, or -1 where /proc is not there.
long resident_pages() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long size = 0, resident = -1;
  if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  std::fclose(f);
  return resident;
}

}  // namespace

TEST_CASE("block pool: allocating never-used blocks writes no records", "[prefix][engine][memory]") {
  using servesim::BlockPool;
  constexpr std::int64_t kPoolBlocks = std::int64_t{1} << 26;  // 1 GiB of records if all were written
  constexpr std::int64_t kTaken = std::int64_t{1} << 22;       // 64 MiB of their records, 16 MiB of ids
  BlockPool pool(kPoolBlocks);
  std::vector<std::int32_t> ids(static_cast<std::size_t>(kTaken), -1);  // committed before measuring
  ids.clear();
  const long before = resident_pages();
  pool.allocate_into(ids, kTaken);
  const long after = resident_pages();
  REQUIRE(ids.size() == static_cast<std::size_t>(kTaken));
  for (std::int64_t i = 0; i < kTaken; i += 4099) REQUIRE(ids[static_cast<std::size_t>(i)] == i);  // id order
  REQUIRE(ids.back() == kTaken - 1);
  CHECK(pool.num_free() == kPoolBlocks - kTaken);
  for (std::int32_t b = 0; b < 1000; ++b) REQUIRE(pool.ref_count(b) == 1);
  if (before < 0 || after < 0) SUCCEED("no /proc/self/statm: resident memory not checked");
  else {
    const double grown_mib = double(after - before) * 4096.0 / (1 << 20);
    INFO("resident memory grew by " << grown_mib << " MiB");
    CHECK(grown_mib < 8);  // writing the records would be 64 MiB
  }

  // The records read as plain blocks', and work as ever once a block gets a hash: it can
  // be hit after its release.
  REQUIRE_FALSE(pool.is_cached(12345));
  REQUIRE(pool.cache(12345, 0xabcdefULL));
  pool.release(12345);
  CHECK(pool.find_cached(0xabcdefULL) == 12345);
  CHECK(pool.num_cached() == 1);
}

TEST_CASE("zeroed array: every element reads zero whether small or mapped", "[core][memory]") {
  for (std::size_t n : {std::size_t{3}, std::size_t{1} << 20})
  for (const servesim::PageSize pages : {servesim::PageSize::base, servesim::PageSize::huge}) {
    servesim::ZeroedArray<std::uint64_t> a(n, pages);
    REQUIRE(a.size() == n);
    for (std::size_t i = 0; i < n; i += 511) REQUIRE(a[i] == 0);
    a[n - 1] = 7;
    servesim::ZeroedArray<std::uint64_t> moved(std::move(a));
    CHECK(moved[n - 1] == 7);
    CHECK(a.size() == 0);
  }
}

TEST_CASE("kv tiers: a vast tier costs memory only for the blocks it has held", "[kv_tiers][memory]") {
  // 2^28 blocks of disk (512 TiB of Llama-3-8B KV): 4 GiB of slots if they were written.
  const long before = resident_pages();
  servesim::KvTiers tiers(/*cpu_blocks=*/1000, /*disk_blocks=*/std::int64_t{1} << 28);
  for (std::uint64_t h = 1; h <= 5000; ++h) tiers.store(h);  // 4,000 of them on disk
  const long after = resident_pages();
  CHECK(tiers.used_blocks(servesim::KvTiers::kDisk) == 4000);
  CHECK(tiers.peek(1) == servesim::KvTiers::kDisk);
  CHECK(tiers.peek(5000) == servesim::KvTiers::kCpu);
  if (before < 0 || after < 0) SUCCEED("no /proc/self/statm: resident memory not checked");
  else {
    const double grown_mib = double(after - before) * 4096.0 / (1 << 20);
    INFO("resident memory grew by " << grown_mib << " MiB");
    CHECK(grown_mib < 16);  // a few huge pages at most
  }
}

}  // namespace block_pool_memory_test
