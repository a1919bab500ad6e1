// `servesim compare BASELINE.json CANDIDATE.json [--tolerance 5%] [--tolerance-for F=P%]...`:
// per figure the change and whether it regressed beyond tolerance; exit 1 on a regression,
// so it can gate the CI of a scheduling-policy change (docs/sweeps.md).
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/scenario/percent.h"
#include "sim/study/json_file.h"
#include "sim/study/summary_compare.h"

namespace po = boost::program_options;

namespace servesim::cli {
namespace {

std::string number(const std::optional<double>& v) {
  if (!v) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

std::string change_text(double change) {
  if (std::isnan(change)) return "n/a";
  if (std::isinf(change)) return change > 0 ? "+inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", change * 100);
  return buf;
}

const char* verdict(const FieldChange& c) {
  if (c.regression) return "REGRESSION";
  if (c.improved) return "improved";
  if (c.direction == Direction::neutral) return "(not gated)";
  return "ok";
}

void print_text(const Comparison& cmp, bool all, std::ostream& out) {
  std::vector<std::vector<std::string>> lines = {{"block", "field", "baseline", "candidate", "change", "tolerance", ""}};
  for (const auto& c : cmp.changes) {
    if (!all && !c.regression && !c.improved) continue;
    char tol[32];
    std::snprintf(tol, sizeof tol, "%g%%", c.tolerance * 100);
    lines.push_back({c.block, c.field, number(c.baseline), number(c.candidate), change_text(c.change),
                     c.direction == Direction::neutral ? "-" : tol, verdict(c)});
  }
  if (lines.size() > 1) {
    std::vector<std::size_t> w(lines[0].size(), 0);
    for (const auto& l : lines)
      for (std::size_t i = 0; i < l.size(); ++i) w[i] = std::max(w[i], l[i].size());
    for (const auto& l : lines) {
      for (std::size_t i = 0; i < l.size(); ++i)
        out << (i ? "  " : "") << (i < 2 || i + 1 == l.size() ? std::left : std::right)
            << std::setw(i + 1 == l.size() ? 0 : static_cast<int>(w[i])) << l[i];
      out << std::left << "\n";
    }
  }
  out << cmp.regressions << " regression" << (cmp.regressions == 1 ? "" : "s") << " beyond tolerance ("
      << cmp.compared << " gated figures compared)\n";
}

void print_json(const Comparison& cmp, std::ostream& out) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["regressions"] = cmp.regressions;
  j["compared"] = cmp.compared;
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const auto& c : cmp.changes) {
    nlohmann::ordered_json e = nlohmann::ordered_json::object();
    e["block"] = c.block;
    e["field"] = c.field;
    e["baseline"] = c.baseline ? nlohmann::ordered_json(*c.baseline) : nlohmann::ordered_json(nullptr);
    e["candidate"] = c.candidate ? nlohmann::ordered_json(*c.candidate) : nlohmann::ordered_json(nullptr);
    e["change"] = std::isfinite(c.change) ? nlohmann::ordered_json(c.change) : nlohmann::ordered_json(change_text(c.change));
    e["tolerance"] = c.tolerance;
    e["direction"] = c.direction == Direction::higher_is_worse ? "higher_is_worse"
                     : c.direction == Direction::lower_is_worse ? "lower_is_worse" : "neutral";
    e["verdict"] = c.regression ? "regression" : c.improved ? "improved" : "ok";
    changes.push_back(std::move(e));
  }
  j["changes"] = std::move(changes);
  out << j.dump(2) << "\n";
}

}  // namespace

int compare_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim compare BASELINE.json CANDIDATE.json [options]");
  std::vector<std::string> files, per_field;
  std::string tolerance = "5%";
  opts.add_options()("help,h", "show this help")
      ("tolerance", po::value(&tolerance), "allowed change in the bad direction, for every figure (default 5%)")
      ("tolerance-for", po::value(&per_field)->composing(),
       "allowed change for one figure: p99_ttft_ms=10% (every block) or classes.chat.p99_ttft_ms=10%")
      ("all", "list every figure, not only regressions and improvements")
      ("json", "print the comparison as JSON")
      ("quiet,q", "print nothing; only the exit code tells");
  po::options_description hidden;
  hidden.add_options()("file", po::value(&files)->composing());
  po::positional_options_description pos;
  pos.add("file", -1);

  po::variables_map vm;
  if (!parse_options(args, opts, hidden, pos, vm, err)) return 2;
  if (vm.count("help")) {
    out << "Compares two summary.json files (or two sweep.json tables, row by row) figure by\n"
           "figure. A figure regresses when it moves in its bad direction (latencies up;\n"
           "throughputs and completed down; rejected up) by more than its tolerance.\n"
           "Exit 0: no regression. Exit 1: a regression. Exit 2: bad input.\n\n"
        << opts;
    return 0;
  }
  if (files.size() != 2) {
    err << "servesim compare: give exactly two files, BASELINE and CANDIDATE\n\n" << opts;
    return 2;
  }
  Tolerances tol;
  tol.default_fraction = parse_percent_or_throw(tolerance, "--tolerance");
  for (const auto& item : per_field) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("--tolerance-for", 0, item, "expected FIELD=PERCENT, e.g. p99_ttft_ms=10%");
    tol.per_field[item.substr(0, eq)] = parse_percent_or_throw(item.substr(eq + 1), "--tolerance-for");
  }

  const auto base = read_json_file(files[0]);
  const auto cand = read_json_file(files[1]);
  Comparison cmp;
  if (is_sweep_table_json(base) || is_sweep_table_json(cand)) {
    if (!is_sweep_table_json(base) || !is_sweep_table_json(cand))
      throw ConfigError(files[is_sweep_table_json(base) ? 1 : 0], 0, "servesim_sweep",
                        "missing: one file is a sweep table and the other is not; compare like with like");
    cmp = compare_sweep_tables(sweep_table_from_json(base, files[0]), sweep_table_from_json(cand, files[1]), files[0],
                               files[1], tol);
  } else {
    cmp = compare_summaries(base, cand, files[0], files[1], tol);
  }
  for (const auto& key : unused_tolerances(cmp, tol))
    err << "servesim compare: warning: --tolerance-for " << key << " matches no figure of the two files\n";

  if (vm.count("json")) print_json(cmp, out);
  else if (!vm.count("quiet")) print_text(cmp, vm.count("all") > 0, out);
  return cmp.regressions > 0 ? 1 : 0;
}

}  // namespace servesim::cli
