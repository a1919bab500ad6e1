// The roofline with the hand-fitted H200 profile against every whole-model step measured on
// an H200 (data/measurements/h200_llama3_8b_steps.csv: Llama-3-8B shape, bf16, one GPU).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/hardware/cost_model_spec.h"
#include "sim/io/model_loader.h"

using namespace servesim;

namespace {

struct Row {
  std::string kind;
  BatchShape batch;
  std::string label;
  double measured_ms = 0;
};

// Only the `prefill` and `decode` rows; other rows carry commas in their model column.
std::vector<Row> read_step_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    if (f.size() != 11 || (f[0] != "prefill" && f[0] != "decode")) continue;
    Row r;
    r.kind = f[0];
    r.measured_ms = std::stod(f[10]);
    if (r.kind == "prefill") {
      r.batch.prefills.push_back({std::stoll(f[2]), std::stoll(f[3]), true});
      r.label = "prefill " + f[2];
    } else {
      r.batch.decode_seqs = std::stoll(f[4]);
      r.batch.decode_context_sum = r.batch.decode_seqs * std::stoll(f[5]);
      r.label = "decode " + f[4] + " x " + f[5];
    }
    rows.push_back(r);
  }
  return rows;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

TEST_CASE("roofline: the H200 profile predicts every measured Llama-3-8B prefill and decode step within tolerance", "[hardware]") {
  const auto rows = read_step_rows(std::string(SERVESIM_SOURCE_DIR) +
                                   "/data/measurements/h200_llama3_8b_steps.csv");
  // 8 prefill rows and 15 decode rows in the file.
  REQUIRE(rows.size() == 23);
  const auto cm = make_cost_model(CostModelSpec{}, load_model("llama-3-8b"), load_hardware("h200"),
                                  Deployment{});
  std::vector<double> errors;
  std::printf("\nH200 Llama-3-8B: roofline vs measured\n%-20s %12s %12s %8s\n", "step",
              "measured ms", "roofline ms", "error");
  for (const Row& r : rows) {
    const double predicted_ms = ms_from_ticks(cm->step_cost(r.batch).total_ns);
    const double error = (predicted_ms - r.measured_ms) / r.measured_ms;
    errors.push_back(std::fabs(error));
    std::printf("%-20s %12.3f %12.3f %+7.1f%%\n", r.label.c_str(), r.measured_ms, predicted_ms,
                100 * error);
  }
  const double med = median(errors);
  const double worst = *std::max_element(errors.begin(), errors.end());
  std::printf("median |error| %.1f%%, max |error| %.1f%%\n", 100 * med, 100 * worst);
  CHECK(med <= 0.10);
  CHECK(worst <= 0.25);
}
