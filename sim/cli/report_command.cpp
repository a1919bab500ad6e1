// `servesim report DIR [-o report.html]`: one self-contained HTML page for a run or sweep
// folder (sim/report/html_report.h, written by sim/report/html_report_files.h).
#include <boost/program_options.hpp>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/html_report_files.h"

namespace po = boost::program_options;

namespace servesim::cli {

int report_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim report DIR [options]");
  std::string dir, out_path;
  opts.add_options()("help,h", "show this help")
      ("out,o", po::value(&out_path), "the HTML file (default DIR/report.html)")
      ("quiet,q", "print nothing but errors");
  po::options_description hidden;
  hidden.add_options()("dir", po::value(&dir));
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  if (!parse_options(args, opts, hidden, pos, vm, err)) return 2;
  if (vm.count("help")) {
    out << "Writes one self-contained HTML page for a run folder (summary.json, requests.csv,\n"
           "timeseries.csv: latency distributions per class, attribution, timeline, cost and goodput)\n"
           "or a sweep folder (sweep.json: trade-off curves, Pareto front, saturated points).\n"
           "Interactive charts (hover, zoom, toggle series); no network needed to open it.\n\n"
        << opts;
    return 0;
  }
  if (dir.empty()) {
    err << "servesim report: give a run or sweep folder\n\n" << opts;
    return 2;
  }
  const HtmlReportFile page = write_html_report_file(dir, out_path);
  if (!vm.count("quiet")) {
    out << "wrote " << page.path << "\n";
    if (!page.missing.empty()) out << "the page has " << page.missing << "\n";
  }
  return 0;
}

}  // namespace servesim::cli
