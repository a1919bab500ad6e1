#pragma once
// Whether a benchmark file measured the deployment a scenario describes: its model (and the
// tokenizer its lengths were counted with), its serving engine and its parallelism, where
// the file states them (sim/workload/benchmark/benchmark_run.h). A 70B run replayed through
// an 8B scenario compares two different things, and calibration would fit overheads to the
// gap, so `replay` and `calibrate --from-benchmark` refuse a mismatch unless forced.
#include <string>
#include <vector>

#include "sim/model/model_spec.h"
#include "sim/scenario/scenario.h"
#include "sim/workload/benchmark/benchmark_run.h"

namespace servesim {

struct BenchmarkMatch {
  // Stated by the file and different in the scenario: each names the file's field and both
  // values. A replay would be wrong.
  std::vector<std::string> mismatches;
  // Stated by the file but not comparable with certainty (model names that neither match
  // nor differ in family or size): each says why. A replay goes on.
  std::vector<std::string> doubts;
};

BenchmarkMatch match_benchmark(const BenchmarkRun& bench, const Scenario& scenario);

enum class ModelVerdict { same, different, unsure };

// How a model name from a benchmark file ("meta-llama/Llama-3.1-70B-Instruct", a local
// path) compares with a model spec: the same normalised name (organisation, "Instruct",
// "-hf", release suffixes dropped) as the spec's name or the Hugging Face id in its source;
// else different when the families (llama, qwen, ...) or the sizes differ (the sizes the
// names state, or the name's size against the spec's parameter count); else unsure. `why`
// gets the reason in words for different and unsure.
ModelVerdict compare_model_name(const std::string& name, const ModelSpec& model, std::string* why);

}  // namespace servesim
