#pragma once
// The one-lever variants of `servesim explain` (docs/explain.md): each is the base scenario
// plus `--set` overrides that change one thing on every pool (one more replica: on one pool),
// tagged with the phase it acts on, so the report can say which phase owns a metric and
// which levers cannot help it.
#include <string>
#include <vector>

namespace servesim {

struct Scenario;

struct Lever {
  std::string name;                    // "weights fp8", "max_num_seqs x2", ...
  std::string phase;                   // "prefill" | "decode" | "capacity"
  std::vector<std::string> overrides;  // KEY=VALUE, applied after the user's --set
  std::string skip_reason;             // non-empty: the lever does not apply to this base
  // The lever turns off something the base has on (prefix caching off): how much worse it
  // makes a metric is how much that setting does for it, so that counts as its effect.
  bool undoes_base = false;
};

// Every lever, in a fixed order, for `base` (the scenario with the user's --set applied).
// Levers that cannot apply carry a skip_reason; those whose overrides fail to load or build
// are skipped later, with the error as the reason.
// `disaggregation` is the override that splits the pool into prefill and decode pools (see
// disaggregation_override), or empty with `disaggregation_skip` saying why it cannot.
std::vector<Lever> make_levers(const Scenario& base, const std::string& disaggregation = "",
                               const std::string& disaggregation_skip = "");

// The draft model speculative decoding is tried with (models/llama-3.2-1b.yaml).
inline constexpr const char* kExplainDraftModel = "llama-3.2-1b";

}  // namespace servesim
