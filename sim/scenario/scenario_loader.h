#pragma once
// Reads and validates a scenario YAML (docs/scenario.md). `overrides` are "dotted.key=value"
// strings from --set, applied to the YAML tree before validation. Every error throws
// ConfigError with the file, line, column and dotted key, and for misspelt keys a
// "did you mean" suggestion.
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace servesim {

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// A scenario whose workload the caller replaces with a benchmark's requests (`servesim
// replay`, `calibrate --from-benchmark`): validated as load_scenario does, except that it
// needs no `stop:`, since the benchmark file says which requests arrive.
Scenario load_deployment(const std::string& path, const std::vector<std::string>& overrides = {});

// Parses "250ms", "2s", "1.5m", "1h", "300us", "10ns" (a bare number is seconds) into ns.
// Throws ConfigError(file, line, key, ...) on a malformed or negative value.
Tick parse_duration(const std::string& text, const std::string& file, int line, const std::string& key);

// The `--set` override (`cluster.pools=[...]`) that turns the scenario's single pool into a
// prefill pool and a decode pool with the same settings, splitting its replicas (the prefill
// pool gets the odd one): `servesim explain`'s disaggregation lever. Empty, with `why_not`
// set, when the scenario (after `overrides`) has several pools or fewer than 2 replicas.
std::string disaggregation_override(const std::string& path, const std::vector<std::string>& overrides,
                                    std::string& why_not);

}  // namespace servesim
