#pragma once
// Reads a class's `prompt:` list (structured prompts) and `session:` block (multi-turn
// sessions); docs/prefix-caching.md defines both.
#include <string>
#include <vector>

#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// [{shared: NAME, tokens: N}, {pool: NAME, count: N, zipf: S, tokens: DIST},
//  {unique: true, tokens: DIST}, ...]. Throws ConfigError at the offending key.
std::vector<PromptSegmentSpec> parse_prompt(const Field& f);

// {turns: DIST, think_time: DIST, new_input: DIST, max_history_tokens: N}.
SessionSpec parse_session(const Field& f);

// "shared system (1500) + pool docs (200 documents, zipf 1.1, fixed 3000) + unique
// lognormal(...)", and "turns uniform(3, 12), think exponential(mean 5s), new input ...",
// for `validate`'s summary.
std::string describe_prompt(const std::vector<PromptSegmentSpec>& segments);
std::string describe_session(const SessionSpec& session);

}  // namespace servesim
