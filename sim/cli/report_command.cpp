// `servesim report DIR [-o report.html] [--scenario FILE [--set KEY=VALUE]...]`: one
// self-contained HTML page for a run or sweep folder (sim/report/html_report.h, written by
// sim/report/html_report_files.h); --scenario describes a run whose folder does not.
#include <boost/program_options.hpp>
#include <optional>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/html_report_files.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/scenario_context.h"

namespace po = boost::program_options;

namespace servesim::cli {

int report_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim report DIR [options]");
  std::string dir, out_path, scenario_path;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")
      ("out,o", po::value(&out_path), "the HTML file (default DIR/report.html)")
      ("scenario", po::value(&scenario_path),
       "the scenario the run simulated, for the page's header (workload, SLO targets, seed, KV capacity) "
       "when the folder has no run_context.json")
      ("set", po::value(&sets)->composing(), "with --scenario: an override the run was given, KEY=VALUE")
      ("quiet,q", "print nothing but errors");
  const char* about =
      "Writes one self-contained HTML page for a run folder (summary.json, requests.csv,\n"
      "timeseries.csv: latency distributions per class, attribution, timeline, cost and goodput)\n"
      "or a sweep folder (sweep.json: trade-off curves, Pareto front, saturated points).\n"
      "Interactive charts (hover, zoom, toggle series); no network needed to open it.\n"
      "The page opens with what was simulated: from run_context.json (written with\n"
      "outputs.html: true), sweep.json's context, or --scenario.\n";
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, about, Operands("dir", dir), vm, out, err)) return *done;
  if (dir.empty()) {
    err << "servesim report: give a run or sweep folder\n\n" << opts;
    return 2;
  }
  if (!sets.empty() && scenario_path.empty()) {
    err << "servesim report: --set needs --scenario (the overrides apply to it)\n";
    return 2;
  }
  std::optional<nlohmann::ordered_json> context;
  if (!scenario_path.empty()) context = scenario_context(load_scenario(scenario_path, sets));
  const HtmlReportFile page = write_html_report_file(dir, out_path, context ? &*context : nullptr);
  if (!vm.count("quiet")) {
    out << "wrote " << page.path << "\n";
    if (!page.missing.empty()) out << "the page has " << page.missing << "\n";
    if (!page.undescribed.empty()) out << "the page's header lacks " << page.undescribed << "\n";
  }
  return 0;
}

}  // namespace servesim::cli
