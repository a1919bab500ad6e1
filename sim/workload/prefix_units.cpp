#include "sim/workload/prefix_units.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/prefix_trace.h"

namespace servesim {
namespace {

// Appends the blocks of `runs` (a partial last one included) and returns their range.
std::pair<std::uint32_t, std::uint32_t> append_units(PrefixUnitTrace& t, const std::vector<ContentRun>& runs,
                                                     const std::string& path) {
  const std::size_t begin = t.keys.size();
  const std::vector<std::uint64_t> keys = chained_block_hashes(runs, t.block_tokens, /*partial_last=*/true);
  std::int64_t left = total_tokens(runs);
  for (std::uint64_t k : keys) {
    t.keys.push_back(k);
    t.tokens.push_back(std::min(left, t.block_tokens));
    left -= t.block_tokens;
  }
  if (t.keys.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw ConfigError(path, 0, "trace", "too many prefix blocks for one replay (over 4 billion)");
  }
  return {static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(t.keys.size())};
}

}  // namespace

PrefixUnitTrace read_prefix_units(const std::string& path, const std::string& format,
                                  std::int64_t csv_hash_block_tokens) {
  PrefixUnitTrace t;
  t.block_tokens = trace_hash_block_tokens(format, csv_hash_block_tokens);
  const auto reader = open_prefix_trace(path, format, t.block_tokens);
  PrefixTraceRow row;
  while (reader->next(row)) {
    PrefixUnitTrace::Request r;
    r.prompt_tokens = row.prompt_tokens;
    std::tie(r.lookup_begin, r.lookup_end) = append_units(t, prefix_trace_runs(row, t.block_tokens, 0), path);
    const std::int64_t output = shareable_output_tokens(row);
    if (output > 1) {
      // A session's next turn repeats this output: what the engine computed (all but the
      // last output token) stays cached.
      std::tie(r.insert_begin, r.insert_end) =
          append_units(t, prefix_trace_runs(row, t.block_tokens, output - 1), path);
    } else {
      r.insert_begin = r.lookup_begin;
      r.insert_end = r.lookup_end;
    }
    t.total_prompt_tokens += row.prompt_tokens;
    t.requests.push_back(r);
  }
  assign_dense_ids(t);
  return t;
}

void assign_dense_ids(PrefixUnitTrace& t) {
  // Open addressing with linear probing, at most half full: a node-based map spends most
  // of a cache-curve run allocating here. The keys are already well mixed (block hashes).
  std::size_t slots = 16;
  while (slots < 2 * t.keys.size()) slots *= 2;
  constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint64_t> slot_key(slots);
  std::vector<std::uint32_t> slot_id(slots, kEmpty);
  const std::size_t mask = slots - 1;
  std::uint32_t next = 0;
  t.ids.resize(t.keys.size());
  for (std::size_t i = 0; i < t.keys.size(); ++i) {
    const std::uint64_t key = t.keys[i];
    std::size_t s = static_cast<std::size_t>(key ^ (key >> 32)) & mask;
    while (slot_id[s] != kEmpty && slot_key[s] != key) s = (s + 1) & mask;
    if (slot_id[s] == kEmpty) {
      slot_key[s] = key;
      slot_id[s] = next++;
    }
    t.ids[i] = slot_id[s];
  }
  t.distinct_keys = next;
}

}  // namespace servesim
