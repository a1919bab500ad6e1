#pragma once
// The results of `servesim cache-curve` (sim/study/cache_curve_study.h) as users read them:
// a JSON list with one object per cache size, or a console table under a line that says
// what was replayed.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "sim/study/cache_curve_study.h"

namespace servesim {

// One object per size, in the request's order: size_tokens (null for an unlimited cache),
// hit_ratio, hit_tokens, prompt_tokens, and with KV tiers below the caches
// cpu_hit_tokens and disk_hit_tokens.
nlohmann::ordered_json cache_curve_to_json(const CacheCurveRequest& request, const CacheCurveStudy& study);

// "cache-curve: N requests, T prompt tokens, blocks of B tokens[, R replicas (ROUTER)]
// [, KV tiers ...]", then a row per size: size_tokens, hit_ratio (4 decimals), hit_tokens,
// and with tiers the CPU and disk tiers' hit tokens.
void print_cache_curve_table(const CacheCurveRequest& request, const CacheCurveStudy& study, std::ostream& out);

}  // namespace servesim
