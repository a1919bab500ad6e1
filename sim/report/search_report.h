#pragma once
// The results of `servesim search` (sim/study/search_study.h) as users read them:
// search.json, search.csv and a console table of the winner and the runners-up.
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/search_study.h"

namespace servesim {

// "cluster.pools.0.replicas=3, cluster.pools.0.hardware=h100-sxm" (long values shortened).
std::string candidate_label(const SearchReport& report, std::size_t index);

// What ranked the winner, for its line: "" for the cost objective (its line shows the cost),
// else "; ranked by energy per output token (--objective energy): 0.061 J" or the like.
std::string search_objective_note(const SearchReport& report, const SearchCandidate& winner);

nlohmann::ordered_json search_report_to_json(const SearchReport& report);
// One line per candidate: candidate, each axis, status, rank, ran, gpus, cost_per_hour,
// cost_per_1m_output_tokens, cost_per_1m_total_tokens, offered_rate, served_rate (with
// cluster.energy: energy_kwh, energy_per_output_token_j, energy_cost_per_hour), reason, the
// sweep fields, then classes.NAME.FIELD (scenarios with two or more classes).
void write_search_csv(const nlohmann::ordered_json& report_json, std::ostream& out);
// The winner and up to top - 1 runners-up as a table (with --objective energy also J/out
// tok, mean W and kWh; with total-cost $/hour elec and mean W), then the candidates that are not
// feasible with their reasons (at most 20 lines; the files hold all).
void print_search_report(const SearchReport& report, std::size_t top, std::ostream& out);

}  // namespace servesim
