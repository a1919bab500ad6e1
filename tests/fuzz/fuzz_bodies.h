#pragma once
// What each libFuzzer target does with one input, as plain functions, so the same bodies
// also replay the seed corpora inside the ordinary test suite (tests/reliability/
// fuzz_corpus_test.cpp) on machines without clang. Each returns normally when the input was
// accepted or rejected with ConfigError; anything else escapes or aborts (fuzz_util.h).
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/scenario/measurements_csv.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/json_file.h"
#include "sim/study/summary_compare.h"
#include "sim/study/sweep_table.h"
#include "tests/fuzz/fuzz_util.h"

namespace servesim::fuzz {

// A trace file of `format` (azure | vidur | lengths | mooncake | csv): build the class's source through
// make_source, as a run does, and drain it, at speedup 1 (the exact integer path) and at a
// fractional speedup (the rounded path). A length-only trace takes a Poisson arrival.
inline void trace_input(const char* format, const std::uint8_t* data, std::size_t size) {
  static const TempFile file("trace.csv");
  file.write(data, size);
  for (double speedup : {1.0, 3.7}) {
    ClassSpec spec;
    spec.name = "fuzz";
    TraceSpec trace;
    trace.format = format;
    trace.path = file.path();
    trace.speedup = speedup;
    spec.trace = trace;
    // csv prefix ids: a hash block of 16 tokens (the KV block) as well as Mooncake's 512.
    if (std::string(format) == "csv" && speedup != 1.0) spec.trace->hash_block_tokens = 16;
    if (std::string(format) == "lengths") {
      spec.arrival = ArrivalSpec{};
      spec.arrival->process = ArrivalSpec::Process::poisson;
      spec.arrival->rate_per_s = 1000;
    }
    try {
      auto source = make_source(spec, 0, 1);
      drain(*source);
    } catch (const ConfigError&) {
      return;  // rejected with file:line: the outcome the contract allows
    }
  }
}

// A scenario YAML; comment lines at its top of the form `#set KEY=VALUE` are also applied as
// --set overrides. A scenario that loads is built into a Simulation (pools, memory plan,
// cost models, sources), which is what `servesim run` does next; it is not run, since a
// fuzzed workload can ask for any amount of simulated work.
inline void scenario_input(const std::uint8_t* data, std::size_t size) {
  static const TempFile file("scenario.yaml");
  file.write(data, size);
  std::vector<std::string> sets;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  while (std::getline(in, line) && line.rfind("#set ", 0) == 0) sets.push_back(line.substr(5));
  try {
    const Scenario s = load_scenario(file.path(), sets);
    Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  } catch (const ConfigError&) {
  }
}

// A Hugging Face config.json, through load_model on a .json path (as `--model cfg.json` and a
// scenario's `model:` do). A model that loads must have what the layers above rely on.
inline void hf_config_input(const std::uint8_t* data, std::size_t size) {
  static const TempFile file("config.json");
  file.write(data, size);
  try {
    const ModelSpec m = load_model(file.path());
    if (m.num_layers < 1 || m.hidden_size < 1 || m.num_attention_heads < 1 || m.num_kv_heads < 1 ||
        m.head_dim < 1 || m.intermediate_size < 1 || m.vocab_size < 1)
      finding("a loaded model has a size below 1");
    if (m.num_attention_heads % m.num_kv_heads != 0) finding("kv heads do not divide heads");
  } catch (const ConfigError&) {
  }
}

// A step-time measurement CSV (`calibrate --measurements`). Rows that load must be usable
// by the calibration: a positive, finite time and no negative sizes.
inline void measurements_input(const std::uint8_t* data, std::size_t size) {
  static const TempFile file("measurements.csv");
  file.write(data, size);
  try {
    for (const Measurement& m : read_measurements(file.path())) {
      if (!(m.ms > 0) || !std::isfinite(m.ms)) finding("a measurement row with a time that is not positive and finite");
      if (m.prefill_tokens < 0 || m.past_tokens < 0 || m.decode_batch < 0 || m.decode_context < 0 || m.gemm_m < 0 ||
          m.gemm_k < 0 || m.gemm_n < 0)
        finding("a measurement row with a negative size");
      if (m.line < 2) finding("a measurement row without its line");
    }
  } catch (const ConfigError&) {
  }
}

// A summary.json or sweep.json given to `compare` (and, for sweep tables, `merge`). The
// input is compared with itself (every field of a baseline checked) and, for a summary,
// as the candidate of a small valid baseline.
inline void compare_input(const std::uint8_t* data, std::size_t size) {
  static const TempFile file("candidate.json");
  file.write(data, size);
  static const nlohmann::ordered_json baseline = nlohmann::ordered_json::parse(
      R"({"completed": 10, "rejected": 0, "duration": 2.5, "request_throughput": 4.0, "mean_ttft_ms": 12.5,
          "p99_ttft_ms": 30, "mean_itl_ms": null, "classes": {"default": {"completed": 10, "p99_ttft_ms": 30}}})");
  const std::string& path = file.path();
  try {
    const nlohmann::ordered_json j = read_json_file(path);
    Tolerances tol;
    tol.per_field["p99_ttft_ms"] = 0.1;
    if (is_sweep_table_json(j)) {
      const SweepTable t = sweep_table_from_json(j, path);
      compare_sweep_tables(t, t, path, path, tol);
      SweepTable whole = merge_sweep_tables({t}, {path}, true);
      std::ostringstream json, csv;
      write_sweep_json(whole, json);
      write_sweep_csv(whole, csv);
    } else {
      compare_summaries(j, j, path, path, tol);
      compare_summaries(baseline, j, "baseline.json", path, tol);
    }
  } catch (const ConfigError&) {
  }
}

}  // namespace servesim::fuzz
