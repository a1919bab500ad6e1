#pragma once
// What defines a sweep, written in sweep.json's header as "defined_by", so that `merge`
// joins only shards of one sweep (docs/sweeps.md, "Shards"): the scenario file's content
// hash, the mode, every axis with its values, the --set overrides, the seed and the
// replicates. The shard itself is not part of it: every shard of a sweep, and the unsharded
// run, carry the same fingerprint, so the merged table equals the unsharded one byte for byte.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/sweep_spec.h"

namespace servesim {

// FNV-1a (64-bit) of a file's bytes, as 16 hex digits. A scenario's path may differ between
// the machines that run its shards; its text may not. Files the scenario names (traces,
// models) are not hashed: the scenario's text names them, their content is trusted to match.
// Throws ConfigError(path, 0, "", ...) when the file cannot be read.
std::string file_fnv1a64(const std::string& path);

// {"scenario_fnv1a64", "mode", "axes": {KEY: [VALUE, ...]}, "set": [...], "seed" (null: the
// scenario's), "replicates"}.
nlohmann::ordered_json sweep_fingerprint(const std::string& scenario_file, const std::vector<SweepAxis>& axes,
                                         SweepMode mode, const std::vector<std::string>& sets,
                                         std::optional<std::uint64_t> seed, int replicates);

// The keys where two fingerprints differ, each as "KEY is A here but B there"; empty when
// they agree.
std::vector<std::string> fingerprint_differences(const nlohmann::ordered_json& here,
                                                 const nlohmann::ordered_json& there);

}  // namespace servesim
