#pragma once
// The points of `servesim sweep` (docs/sweeps.md): axes over scenario keys, combined as a
// cartesian product or zipped, and the slice of them that one shard runs. Each point is
// the scenario with one `--set KEY=VALUE` per axis, so a swept value is validated exactly
// like one written in the file.
#include <cstddef>
#include <string>
#include <vector>

namespace servesim {

struct SweepAxis {
  std::string key;                  // dotted scenario path, as for --set
  std::vector<std::string> values;  // YAML text of each value, in the order given
};

// Parses "KEY=V1,V2,...". Values are split at commas outside brackets, braces and quotes,
// so `workload.0.output={fixed: 1},{uniform: [1, 9]}` has two values; each is trimmed.
// Throws option_error("--axis", text, ...) when '=' is missing, the key is empty, or a
// value is empty.
SweepAxis parse_axis(const std::string& text);

enum class SweepMode { product, zip };
const char* sweep_mode_name(SweepMode mode);  // "product" | "zip"

// The number of points: the product of the axes' lengths, or (zip) their common length.
// Throws ConfigError naming --axis when there is no axis, a key repeats, zipped axes
// differ in length, or the product exceeds kMaxSweepPoints.
std::size_t sweep_point_count(const std::vector<SweepAxis>& axes, SweepMode mode);

// `sweep`'s axes apply their overrides in --axis order, so of two axes whose keys are the
// same or one under the other (`stop` and `stop.requests`, `workload.0` and
// `workload.00.input`: list indices compare as numbers), the later overwrites the earlier on
// every point and one axis is swept in name only. Throws option_error("--axis", LATER, ...)
// naming both. (A search space layers a key under a template key on purpose: it does not
// call this.)
void check_axes_apart(const std::vector<SweepAxis>& axes);
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// The value index on each axis of point `index`. In a product the first axis is the
// outermost loop and the last axis varies fastest, as nested loops written in --axis order.
// REQUIRES: index < sweep_point_count(axes, mode).
std::vector<std::size_t> sweep_point_indices(const std::vector<SweepAxis>& axes, SweepMode mode,
                                             std::size_t index);

// The "KEY=VALUE" overrides that make point `index`, one per axis in axis order.
std::vector<std::string> sweep_point_overrides(const std::vector<SweepAxis>& axes, SweepMode mode,
                                               std::size_t index);

// `--shard I/N`: this process runs the points whose index % N == I. Round-robin rather than
// contiguous blocks, so each shard gets a fair mix of cheap and expensive points when an
// axis (such as the rate) makes later points slower.
struct SweepShard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool has(std::size_t point) const { return point % count == index; }
};

// Parses "I/N" with 0 <= I < N. Throws option_error("--shard", text, ...) otherwise.
SweepShard parse_shard(const std::string& text);

}  // namespace servesim
