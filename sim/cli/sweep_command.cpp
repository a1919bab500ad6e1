// `servesim sweep SCENARIO.yaml --axis KEY=V1,V2,... [--axis ...] [--zip] [--out DIR]
//  [--jobs N] [--shard I/N] [--set KEY=VALUE]...`: one full run per point, the results in
// one table (docs/sweeps.md).
#include <boost/program_options.hpp>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cluster/parallel_runs.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/io/atomic_write.h"
#include "sim/io/scenario_loader.h"
#include "sim/io/summary_writer.h"
#include "sim/io/sweep_spec.h"
#include "sim/io/sweep_table.h"
#include "sim/study/replicates.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace servesim::cli {
namespace {

struct PointResult {
  std::optional<RunSummary> summary;
  std::string error;  // why the point could not run (its configuration cannot be built)
  std::optional<ReplicateIntervals> replicates;
};

std::string cell(const nlohmann::ordered_json& v, int precision) {
  if (v.is_null()) return "-";
  if (v.is_number_float()) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v.get<double>();
    return os.str();
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// A short console view of the table; sweep.csv and sweep.json hold everything.
void print_table(const SweepTable& t, std::ostream& out) {
  std::vector<std::string> head = {"point"};
  for (const auto& a : t.axes) head.push_back(a);
  for (const char* h : {"completed", "req/s", "out tok/s", "TTFT p99", "ITL p99", "pareto"}) head.push_back(h);
  std::vector<std::vector<std::string>> lines = {head};
  for (const auto& row : t.rows) {
    std::vector<std::string> line = {std::to_string(row["point"].get<std::int64_t>())};
    for (const auto& a : t.axes) line.push_back(cell(row["values"][a], 6));
    const auto& s = row["summary"];
    if (s.is_object()) {
      line.push_back(cell(s["completed"], 0));
      line.push_back(cell(s["request_throughput"], 2));
      line.push_back(cell(s["output_throughput"], 1));
      line.push_back(cell(s["p99_ttft_ms"], 2));
      line.push_back(cell(s["p99_itl_ms"], 2));
      line.push_back(row["pareto"].get<bool>() ? "*" : "");
    } else {
      line.push_back("error: " + row["error"].get<std::string>());
    }
    lines.push_back(std::move(line));
  }
  std::vector<std::size_t> widths(head.size(), 0);
  for (const auto& line : lines)
    for (std::size_t i = 0; i < line.size() && line.size() == head.size(); ++i)
      widths[i] = std::max(widths[i], line[i].size());
  for (const auto& line : lines) {
    // An error line has the point and its values, then the message, left unpadded.
    for (std::size_t i = 0; i < line.size(); ++i) {
      const bool last_of_error = line.size() != head.size() && i + 1 == line.size();
      out << (i ? "  " : "") << std::setw(last_of_error ? 0 : static_cast<int>(widths[i])) << line[i];
    }
    out << "\n";
  }
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
  if (jobs < 1) throw ConfigError("--jobs", 0, std::to_string(jobs), "must be at least 1");
  const int replicates = vm.count("replicates") ? vm["replicates"].as<int>() : 1;
  if (replicates < 1 || replicates > 1000)
    throw ConfigError("", 0, "--replicates", "must be a whole number from 1 to 1000, got " + std::to_string(replicates));

  std::vector<SweepAxis> axes;
  for (const auto& text : axis_texts) axes.push_back(parse_axis(text));
  const SweepMode mode = vm.count("zip") ? SweepMode::zip : SweepMode::product;
  const std::size_t total = sweep_point_count(axes, mode);
  std::optional<SweepShard> shard;
  if (!shard_text.empty()) shard = parse_shard(shard_text);

  SweepTable table;
  if (!pareto_text.empty()) table.objectives = parse_objectives(pareto_text, "--pareto", pareto_text);
  const Scenario base = load_scenario(scenario_path, sets);
  table.scenario = base.name;
  table.mode = sweep_mode_name(mode);
  for (const auto& a : axes) table.axes.push_back(a.key);
  table.points = static_cast<std::int64_t>(total);
  table.shard = shard;
  if (out_dir.empty()) {
    out_dir = "results/" + base.name + "-sweep";
    if (shard) out_dir += "/shard-" + std::to_string(shard->index) + "-of-" + std::to_string(shard->count);
  }

  // Every point is loaded (and so validated) before any runs: a bad value fails in seconds,
  // not after hours of the points before it.
  std::vector<std::size_t> indices;
  std::vector<Scenario> scenarios;
  for (std::size_t p = 0; p < total; ++p) {
    if (shard && !shard->has(p)) continue;
    std::vector<std::string> overrides = sets;
    for (auto& o : sweep_point_overrides(axes, mode, p)) overrides.push_back(std::move(o));
    scenarios.push_back(load_scenario(scenario_path, overrides));
    if (vm.count("seed")) scenarios.back().seed = vm["seed"].as<std::uint64_t>();
    indices.push_back(p);
  }

  const bool quiet = vm.count("quiet") > 0;
  const bool point_summaries = vm.count("point-summaries") > 0;
  std::vector<PointResult> results(indices.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  run_parallel(indices.size(), jobs, [&](std::size_t i) {
    const Scenario& s = scenarios[i];
    try {
      Simulation sim(s.seed, s.stop, s.workload, s.cluster);
      results[i].summary = sim.run().summary;
      if (replicates >= 2) results[i].replicates = run_replicates(s, *results[i].summary, replicates);
    } catch (const ConfigError& e) {
      // The configuration of this point cannot be built (weights larger than memory at this
      // tp, say): a fact about the point, recorded in its row, not a reason to stop the rest.
      results[i].error = format_config_error(e.file().empty() ? s.source_file : e.file(), e.line(), e.column(),
                                             e.key(), e.message());
    }
    if (point_summaries && results[i].summary) {
      const auto path = fs::path(out_dir) / "points" / std::to_string(indices[i]) / "summary.json";
      write_file_atomically(path.string(), "--out", [&](std::ostream& f) { write_summary_json(*results[i].summary, f); });
    }
    if (!quiet) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      err << "[" << ++done << "/" << indices.size() << "] point " << indices[i]
          << (results[i].summary ? "" : " failed: " + results[i].error) << "\n";
    }
  });

  std::size_t failed = 0;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const auto at = sweep_point_indices(axes, mode, indices[i]);
    std::vector<std::string> values;
    for (std::size_t a = 0; a < axes.size(); ++a) values.push_back(axes[a].values[at[a]]);
    const RunSummary* summary = results[i].summary ? &*results[i].summary : nullptr;
    failed += summary ? 0 : 1;
    table.rows.push_back(make_sweep_row(indices[i], table.axes, values, summary, results[i].error));
    if (results[i].replicates) add_sweep_replicates(table.rows.back(), *results[i].replicates);
  }
  mark_pareto(table);

  const std::string json_path = (fs::path(out_dir) / "sweep.json").string();
  const std::string csv_path = (fs::path(out_dir) / "sweep.csv").string();
  write_file_atomically(json_path, "--out", [&](std::ostream& f) { write_sweep_json(table, f); });
  write_file_atomically(csv_path, "--out", [&](std::ostream& f) { write_sweep_csv(table, f); });

  if (!quiet) {
    out << "servesim sweep: " << base.name << ", " << indices.size() << " of " << total << " points ("
        << table.mode << ")";
    if (shard) out << ", shard " << shard->index << "/" << shard->count;
    out << "; * marks the Pareto front\n";
    print_table(table, out);
    if (failed) out << "warning: " << failed << (failed == 1 ? " point" : " points") << " could not run; see the error column\n";
    out << "wrote " << json_path << ", " << csv_path << "\n";
  }
  return 0;
}

}  // namespace servesim::cli
