// `servesim merge A.json B.json ... -o OUT [--allow-missing]`: joins the tables of the
// shards of one sweep (`sweep --shard I/N`) into the table the unsharded sweep writes.
#include <boost/program_options.hpp>
#include <filesystem>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/sweep_files.h"
#include "sim/study/sweep_table.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace servesim::cli {

int merge_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim merge SHARD.json... -o OUT [options]");
  std::vector<std::string> inputs;
  std::string out_path;
  opts.add_options()("help,h", "show this help")
      ("out,o", po::value(&out_path), "OUT.json (and OUT.csv beside it), or a folder for sweep.json and sweep.csv")
      ("allow-missing", "write the table even if some points are in no shard")
      ("quiet,q", "print nothing but errors");
  const char* about =
      "Joins the sweep.json tables of the shards of one sweep into one table, with the Pareto\n"
      "front recomputed over every point; the result equals the unsharded sweep's byte for\n"
      "byte. Inputs may be sweep.json files or the folders holding them.\n";
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, about, Operands("input", inputs), vm, out, err)) return *done;
  if (inputs.empty() || out_path.empty()) {
    err << "servesim merge: give the shard tables and -o OUT\n\n" << opts;
    return 2;
  }
  std::vector<SweepTable> tables;
  std::vector<std::string> paths;
  for (const auto& in : inputs) {
    tables.push_back(read_sweep_table(in));
    std::error_code ec;
    paths.push_back(fs::is_directory(in, ec) ? (fs::path(in) / "sweep.json").string() : in);
  }
  std::vector<std::string> warnings;
  const SweepTable merged = merge_sweep_tables(tables, paths, vm.count("allow-missing") > 0, &warnings);
  for (const auto& w : warnings) err << "warning: " << w << "\n";

  const SweepFiles files = write_merged_sweep_files(merged, out_path);
  if (!vm.count("quiet")) {
    std::size_t front = 0;
    for (const auto& row : merged.rows) front += row["pareto"].get<bool>() ? 1 : 0;
    out << "servesim merge: " << tables.size() << " tables, " << merged.rows.size() << " of " << merged.points
        << " points, " << front << " on the Pareto front\nwrote " << files.json_path << ", " << files.csv_path << "\n";
    if (const std::string note = pareto_exclusion_note(merged); !note.empty()) out << "note: " << note << "\n";
  }
  return 0;
}

}  // namespace servesim::cli
