// The kernels cost model prices a quiet stretch of decode steps at once
// (KernelCostModel::decode_run_costs, sim/engine/decode_run.cpp): each step's cost must be
// step_cost's for that step's shape, field by field and bit for bit, wherever the stretch
// lies on the decode-attention curve (inside the measured lengths, across several of them,
// beyond the longest) and for batches inside and past the CUDA-graph sizes.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/hardware/kernel_cost_model.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/model_loader.h"
#include "cli/cli_test_util.h"
#include "hardware/same_step_cost.h"

namespace kernel_decode_run_test {

using namespace servesim;

namespace {

const std::string kRoot = std::string(SERVESIM_SOURCE_DIR) + "/data/kernels";

// Every step of runs of 64 from many starts, priced as a run and step by step, over the
// kernel set in `dir` (named `set`).
void check_runs_against_steps(const std::string& dir, const std::string& set) {
  const ModelSpec model = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const Deployment dep{};
  const auto tables = load_kernel_tables(dir, set, kernel_table_query(model, dep));
  for (const int graph_max : {0, 512}) {
    // Two models: the run's prices must not depend on what the step-by-step one cached.
    const KernelCostModel run_model(model, hw, dep, tables, graph_max);
    const KernelCostModel step_model(model, hw, dep, tables, graph_max);
    // Mean lengths from a few tokens to past any measured length (1M tokens a sequence),
    // each start just below a power of two, where the tables' lengths sit, so that a run
    // of 64 steps of one sequence crosses one.
    for (const std::int64_t seqs : {1, 3, 8, 37, 300, 600}) {
      for (const std::int64_t per_seq : {0, 100, 1000, 2040, 4090, 16370, 131060, 1000000}) {
        const std::int64_t context = seqs * per_seq + seqs / 2;
        std::vector<StepCost> costs(64);
        run_model.decode_run_costs(seqs, context, costs);
        for (std::size_t k = 0; k < costs.size(); ++k) {
          BatchShape b;
          b.decode_seqs = seqs;
          b.decode_context_sum = context + static_cast<std::int64_t>(k) * seqs;
          INFO(set << ", graphs " << graph_max << ", " << seqs << " sequences from " << context << ", step " << k);
          testing::require_same_step_cost(costs[k], step_model.step_cost(b));
        }
      }
    }
  }
}

// `from`'s kernel set copied to `to`, its decode attention measured at lengths 1 + 3 (s - 1)
// for the measured s (2, 4, 8, ... become 4, 10, 22, ...): widths that are not powers of two.
void copy_with_stretched_decode_lengths(const std::filesystem::path& from, const std::filesystem::path& to) {
  for (const auto& entry : std::filesystem::directory_iterator(from))
    if (entry.path().filename() != "generation_attention_perf.csv.gz")
      std::filesystem::copy_file(entry.path(), to / entry.path().filename());
  gzFile in = gzopen((from / "generation_attention_perf.csv.gz").c_str(), "rb");
  REQUIRE(in != nullptr);
  std::string text;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(got));
  gzclose(in);
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  std::vector<std::string> header;
  for (std::istringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  const auto step_at = static_cast<std::size_t>(std::find(header.begin(), header.end(), "step") - header.begin());
  REQUIRE(step_at < header.size());
  std::ostringstream out;
  out << text.substr(0, text.find('\n') + 1);
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    for (std::istringstream row(line); std::getline(row, line, ',');) cells.push_back(line);
    cells[step_at] = std::to_string(3 * std::stol(cells[step_at]));
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cells[i];
    out << '\n';
  }
  gzFile written = gzopen((to / "generation_attention_perf.csv.gz").c_str(), "wb");
  REQUIRE(written != nullptr);
  const std::string body = out.str();
  REQUIRE(gzwrite(written, body.data(), static_cast<unsigned>(body.size())) == static_cast<int>(body.size()));
  gzclose(written);
}

}  // namespace

TEST_CASE("kernels cost model: a decode run's costs are each step's own", "[hardware][kernels]") {
  // The tables' decode lengths sit at powers of two (isl 1 plus steps of 2^k - 1), so a
  // segment's width divides as its reciprocal multiplies.
  check_runs_against_steps(kRoot + "/h100_sxm/vllm-0.14.0", "h100_sxm/vllm-0.14.0");
  check_runs_against_steps(kRoot + "/h100_sxm/vllm-0.24.0", "h100_sxm/vllm-0.24.0");
}

TEST_CASE("kernels cost model: a decode run's costs are each step's own between lengths that are not powers of two",
          "[hardware][kernels]") {
  testing::TempDir dir("stretched-decode-lengths");
  copy_with_stretched_decode_lengths(kRoot + "/h100_sxm/vllm-0.24.0", dir.path);
  check_runs_against_steps(dir.path.string(), "h100_sxm/vllm-0.24.0");
}

}  // namespace kernel_decode_run_test
