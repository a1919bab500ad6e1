// `servesim sweep SCENARIO.yaml --axis KEY=V1,V2,... [--axis ...] [--zip] [--out DIR]
//  [--jobs N] [--shard I/N] [--set KEY=VALUE]...`: one full run per point, the results in
// one table (docs/sweeps.md). The study is sim/study/sweep_study.h.
#include <boost/program_options.hpp>
#include <ostream>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/core/errors.h"
#include "sim/report/sweep_files.h"
#include "sim/report/sweep_report.h"
#include "sim/scenario/set_overrides.h"
#include "sim/study/sweep_study.h"

namespace po = boost::program_options;

namespace servesim::cli {

namespace {

SweepRequest sweep_request(const std::string& scenario_path, const std::vector<std::string>& axis_texts,
                           const std::string& shard_text, const std::vector<std::string>& sets,
                           const std::string& pareto_text, int jobs, const po::variables_map& vm) {
  const int replicates = vm.count("replicates") ? vm["replicates"].as<int>() : 1;
  SweepRequest request;
  request.scenario_path = scenario_path;
  for (const auto& text : axis_texts) request.axes.push_back(parse_axis(text));
  request.mode = vm.count("zip") ? SweepMode::zip : SweepMode::product;
  if (!shard_text.empty()) request.shard = parse_shard(shard_text);
  request.sets = sets;
  if (vm.count("seed")) request.seed = vm["seed"].as<std::uint64_t>();
  if (request.seed) check_set_not_overwritten(sets, "seed", "the key --seed sets,");
  request.replicates = replicates;
  request.jobs = jobs;
  if (!pareto_text.empty()) {
    try {
      request.objectives = parse_objectives(pareto_text, "", "");
    } catch (const ConfigError& e) {
      throw option_error("--pareto", pareto_text, e.message());
    }
  }
  return request;
}

// The table with its Pareto front, the points that failed or ran too short, the files.
void print_sweep_outcome(const SweepStudy& study, const SweepFiles& files, std::ostream& out) {
  const SweepTable& table = study.table;
  out << "servesim sweep: " << table.scenario << ", " << table.rows.size() << " of " << table.points << " points ("
      << table.mode << ")";
  if (table.shard) out << ", shard " << table.shard->index << "/" << table.shard->count;
  out << "; * marks the Pareto front\n";
  print_sweep_table(table, out);
  if (study.failed)
    out << "warning: " << study.failed << (study.failed == 1 ? " point" : " points") << " could not run; see the error column\n";
  if (const std::string note = pareto_exclusion_note(table); !note.empty()) out << "note: " << note << "\n";
  for (const auto& t : study.too_short) {
    out << "note: point " << t.point << " is too short to judge whether it kept up";
    if (t.stop_key.empty()) out << "; give it a stop.requests or stop.time to lengthen it\n";
    else
      out << "; " << t.stop_key << "=" << t.stop_value
          << " or longer would judge it, as far as its own arrivals tell (capacity and explain lengthen runs so)\n";
  }
  out << "wrote " << files.json_path << ", " << files.csv_path << "\n";
}

}  // namespace

int sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim sweep SCENARIO.yaml --axis KEY=V1,V2,... [options]");
  std::string scenario_path, out_dir, shard_text, pareto_text;
  std::vector<std::string> axis_texts, sets;
  int jobs = default_jobs();
  opts.add_options()("help,h", "show this help")
      ("axis", po::value(&axis_texts)->composing(), "a scenario key and its values: --axis workload.0.arrival.rate=2,4,8")
      ("zip", "pair the i-th values of every axis instead of taking every combination")
      ("out,o", po::value(&out_dir), "output folder (default results/NAME-sweep, or .../shard-I-of-N)")
      ("jobs,j", po::value(&jobs), "points run at once on local cores (default: all hardware threads)")
      ("shard", po::value(&shard_text), "run only points whose index % N == I (I/N, from 0); join with merge")
      ("set", po::value(&sets)->composing(), "override a scenario key for every point: --set stop.requests=5000")
      ("seed", po::value<std::uint64_t>(), "override the scenario's seed (every point uses the same seed)")
      ("replicates", po::value<int>(),
       "run every point with K seeds and add each figure's 95% interval (columns FIELD_lo, FIELD_hi); the "
       "row's figures and the Pareto front are the first seed's")
      ("pareto", po::value(&pareto_text), "front objectives (default max:output_throughput,min:p99_ttft_ms,min:p99_itl_ms)")
      ("point-summaries", "also write each point's summary.json to OUT/points/INDEX/")
      ("quiet,q", "print nothing but errors");
  const char* about =
      "Runs the scenario once per point of the axes and writes sweep.csv and sweep.json:\n"
      "one row per point with its values, the summary figures and the Pareto front.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("sweep", args, opts, about, scenario_path, vm, out, err)) return *done;
  const SweepRequest request = sweep_request(scenario_path, axis_texts, shard_text, sets, pareto_text, jobs, vm);
  const bool quiet = vm.count("quiet") > 0;
  const bool point_summaries = vm.count("point-summaries") > 0;
  std::size_t done = 0, running = 0;
  const SweepStudy study = run_sweep(
      request,
      [&](const SweepTable& header) {
        if (out_dir.empty()) out_dir = default_sweep_dir(header);
        for (std::size_t p = 0; p < static_cast<std::size_t>(header.points); ++p)
          running += !header.shard || header.shard->has(p) ? 1 : 0;
      },
      [&](std::size_t point, const RunSummary* summary, const std::string& error) {
        if (point_summaries && summary) write_sweep_point_summary(out_dir, point, *summary);
        if (!quiet) err << "[" << ++done << "/" << running << "] point " << point << (summary ? "" : " failed: " + error) << "\n";
      },
      [&](const std::string& warning) { err << warning << "\n"; });

  const SweepFiles files = write_sweep_files(study.table, out_dir);
  if (!quiet) print_sweep_outcome(study, files, out);
  return 0;
}

}  // namespace servesim::cli
