// `servesim compare BASELINE.json CANDIDATE.json [--tolerance 5%] [--tolerance-for F=P%]...`:
// per figure the change and whether it regressed beyond tolerance; exit 1 on a regression,
// so it can gate the CI of a scheduling-policy change (docs/sweeps.md).
#include <boost/program_options.hpp>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/scenario/percent.h"
#include "sim/report/compare_report.h"
#include "sim/study/compare_study.h"

namespace po = boost::program_options;

namespace servesim::cli {

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

  const Comparison cmp = compare_files(files[0], files[1], tol);
  for (const auto& line : comparison_warnings(cmp, files[0], files[1]))
    err << "servesim compare: warning: " << line << "\n";
  for (const auto& key : unused_tolerances(cmp, tol))
    err << "servesim compare: warning: --tolerance-for " << key << " matches no figure of the two files\n";
  for (const auto& key : ungated_tolerances(cmp, tol))
    err << "servesim compare: warning: --tolerance-for " << key
        << " names a figure that is reported, never gated (it has no bad direction), so its tolerance fails nothing\n";

  if (vm.count("json")) out << comparison_to_json(cmp).dump(2) << "\n";
  else if (!vm.count("quiet")) print_comparison(cmp, vm.count("all") > 0, out);
  return cmp.regressions > 0 ? 1 : 0;
}

}  // namespace servesim::cli
