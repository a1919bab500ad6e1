// `servesim report DIR [-o report.html]`: one self-contained HTML page for a run or sweep
// folder (sim/report/html_report.h).
#include <boost/program_options.hpp>
#include <filesystem>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/atomic_write.h"
#include "sim/report/html_report.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

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
  if (out_path.empty()) out_path = (fs::path(dir) / "report.html").string();
  const std::string page = html_report(dir);
  write_file_atomically(out_path, "--out", [&](std::ostream& f) { f << page; });
  if (!vm.count("quiet")) {
    out << "wrote " << out_path << "\n";
    // A run's page leaves out the sections whose files the run did not write: say which,
    // and the output key that writes each, rather than let a missing chart pass unnoticed.
    const fs::path folder(dir);
    if (!fs::exists(folder / "sweep.json")) {
      std::string missing;
      if (!fs::exists(folder / "requests.csv"))
        missing = "no latency distributions (no requests.csv: outputs.requests_csv: true writes it)";
      if (!fs::exists(folder / "timeseries.csv"))
        missing += (missing.empty() ? "" : " and ") +
                   std::string("no timeline (no timeseries.csv: outputs.timeseries: true writes it)");
      if (!missing.empty()) out << "the page has " << missing << "\n";
    }
  }
  return 0;
}

}  // namespace servesim::cli
