// `servesim compare BASELINE.json CANDIDATE.json [--tolerance 5%] [--tolerance-for F=P%]...`:
// per figure the change and whether it regressed beyond tolerance; exit 1 on a regression,
// so it can gate the CI of a scheduling-policy change (docs/sweeps.md). Summaries of
// different deployments are compared as a what-if with the difference stated first;
// `--same-deployment` refuses them (exit 2), for a gate that must compare like with like.
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

namespace {

// --same-deployment: the two summaries must record the same deployment. Throws ConfigError
// naming the file, the key and both values.
void check_same_deployment(const Comparison& cmp, const std::string& baseline, const std::string& candidate) {
  if (!cmp.deployment)
    throw ConfigError(candidate, 0, "--same-deployment",
                      "applies to summary.json files; sweep tables record no deployment");
  const DeploymentCheck& d = *cmp.deployment;
  if (!d.checked)
    throw ConfigError(candidate, 0, "deployment",
                      d.why_unchecked + ", so --same-deployment cannot check that both ran the same deployment");
  for (const DeploymentDifference& diff : d.differences) {
    if (diff.pool.empty()) continue;  // another scenario file name alone is no other deployment
    throw ConfigError(candidate, 0, "deployment.pools." + diff.pool + "." + diff.key,
                      "is " + diff.candidate + " but " + diff.baseline + " in " + baseline +
                          ": --same-deployment refuses runs of different deployments");
  }
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
      ("same-deployment", "refuse (exit 2) summaries whose model, hardware, engine, parallelism or replicas differ, "
                          "or that do not record them")
      ("json", "print the comparison as JSON")
      ("quiet,q", "print nothing; only the exit code tells");
  const char* about =
      "Compares two summary.json files (or two sweep.json tables, row by row) figure by\n"
      "figure. A figure regresses when it moves in its bad direction (latencies up;\n"
      "throughputs and completed down; rejected up) by more than its tolerance.\n"
      "Summaries of different models or hardware are compared as a what-if, the\n"
      "difference stated first (--same-deployment refuses them).\n"
      "Exit 0: no regression. Exit 1: a regression. Exit 2: bad input.\n";
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, about, Operands("file", files), vm, out, err)) return *done;
  if (files.size() != 2) {
    err << "servesim compare: give exactly two files, BASELINE and CANDIDATE\n\n" << opts;
    return 2;
  }
  Tolerances tol;
  tol.default_fraction = parse_percent_or_throw(tolerance, "--tolerance");
  for (const auto& item : per_field) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw option_error("--tolerance-for", item, "expected FIELD=PERCENT, e.g. p99_ttft_ms=10%");
    tol.per_field[item.substr(0, eq)] = parse_percent_or_throw(item.substr(eq + 1), "--tolerance-for");
  }

  const Comparison cmp = compare_files(files[0], files[1], tol);
  if (vm.count("same-deployment")) check_same_deployment(cmp, files[0], files[1]);
  for (const auto& line : comparison_warnings(cmp, files[0], files[1]))
    err << "servesim compare: warning: " << line << "\n";
  for (const auto& key : unused_tolerances(cmp, tol))
    err << "servesim compare: warning: --tolerance-for " << key << " matches no figure of the two files\n";
  for (const auto& key : ungated_tolerances(cmp, tol))
    err << "servesim compare: warning: --tolerance-for " << key
        << " names a figure that is reported, never gated (it has no bad direction), so its tolerance fails nothing\n";

  // What the two runs deployed differently comes first, where it is read: above the table,
  // in the JSON ("deployment"), or on stderr when nothing else is printed.
  const std::vector<std::string> deployment = deployment_lines(cmp, files[0], files[1]);
  if (vm.count("json")) {
    out << comparison_to_json(cmp).dump(2) << "\n";
  } else if (vm.count("quiet")) {
    for (const auto& line : deployment) err << "servesim compare: " << line << "\n";
  } else {
    for (const auto& line : deployment) out << line << "\n";
    print_comparison(cmp, vm.count("all") > 0, out);
  }
  return cmp.regressions > 0 ? 1 : 0;
}

}  // namespace servesim::cli
