#pragma once
// The Pareto front of a sweep: the points no other point beats on every objective at once
// (docs/sweeps.md). The default objectives are the latency/throughput trade-off: maximise
// output_throughput, minimise p99_ttft_ms and p99_itl_ms.
#include <optional>
#include <string>
#include <vector>

namespace servesim {

struct ParetoObjective {
  std::string field;  // a summary.json field name
  bool maximize = false;
};

// "max:output_throughput" or "min:p99_ttft_ms".
std::string objective_text(const ParetoObjective& o);

// Parses a comma-separated list of objective_text() items. Throws ConfigError(file, 0, key,
// ...) with the given file and key (e.g. "--pareto") on a malformed or empty list.
std::vector<ParetoObjective> parse_objectives(const std::string& text, const std::string& file,
                                              const std::string& key);

std::vector<ParetoObjective> default_objectives();

// Refuses an objective whose field is not one of `fields` (the table's columns): an
// objective no row has would leave every point off the front without a word. Throws
// option_error(option, text, ...) (`text`: the objectives as given to `option`, --pareto)
// with the nearest field ("did you mean 'p99_tpot_ms'?") or, when none is near, the list.
void check_objective_fields(const std::vector<ParetoObjective>& objectives, const std::vector<std::string>& fields,
                            const std::string& option, const std::string& text);

// values[row][k] is row's value of objective k, nullopt when it has none (a failed point,
// or a metric without samples). Returns, per row, whether it is on the front.
// Rule: an objective missing in every row is ignored (ITL when every output is one token);
// a row missing any remaining objective is off the front and dominates nothing. Row a
// dominates row b when a is at least as good on every objective and strictly better on
// one; the front is every row with a value that no row dominates, so equal rows are on it
// together. O(rows^2 * objectives).
std::vector<bool> pareto_front(const std::vector<std::vector<std::optional<double>>>& values,
                               const std::vector<ParetoObjective>& objectives);

}  // namespace servesim
