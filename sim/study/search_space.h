#pragma once
// The candidate space of `servesim search` (docs/sweeps.md): a YAML file whose keys are
// scenario keys written as --set paths and whose values are lists of alternatives:
//
//     cluster.pools.0.hardware: [h100-sxm, a100-80g-sxm]
//     cluster.pools.0.replicas: [1, 2, 3, 4]
//     cluster.pools.0.engine.max_num_seqs: [128, 256]
//
// The candidates are the cartesian product, in the order of a sweep (the first key is the
// outermost loop). Each alternative may be any YAML value: a whole `cluster:` block or a
// pool, so pool splits are one key with one alternative per split.
#include <string>
#include <vector>

#include "sim/study/sweep_spec.h"

namespace servesim {

// Where an alternative is written in the space file, for error messages.
struct SpaceMark {
  int line = 0;  // 1-based
  int column = 0;
};

struct SearchSpace {
  std::string path;
  std::vector<SweepAxis> axes;                   // each value as flow YAML text, for --set
  std::vector<SpaceMark> key_marks;              // per axis: where its key is
  std::vector<std::vector<SpaceMark>> value_marks;  // per axis, per value
};

// The most candidates a space may hold: each is loaded and kept while the search runs.
inline constexpr std::size_t kMaxSearchCandidates = 10'000;

// Reads and checks a space file. Throws ConfigError(path, line, key, ...) when the file is
// missing or not YAML, is not a mapping, a key is empty or repeated, a value is not a
// non-empty list, or the product exceeds kMaxSearchCandidates.
SearchSpace load_search_space(const std::string& path);

// The axis (index) that produced a --set error on `error_key`: the longest axis key that is
// `error_key` or a dotted prefix of it; -1 when none.
int space_axis_of_key(const SearchSpace& space, const std::string& error_key);

}  // namespace servesim
