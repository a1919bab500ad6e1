#pragma once
// What each libFuzzer target does with one input, as plain functions, so the same bodies
// also replay the seed corpora inside the ordinary test suite (tests/reliability/
// fuzz_corpus_test.cpp) on machines without clang. Each returns normally when the input was
// accepted or rejected with ConfigError; anything else escapes or aborts (fuzz_util.h).
#include <sstream>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/io/model_loader.h"
#include "sim/io/scenario_loader.h"
#include "tests/fuzz/fuzz_util.h"

namespace servesim::fuzz {

// A trace file of `format` (azure | vidur | lengths): build the class's source through
// make_source, as a run does, and drain it, at speedup 1 (the exact integer path) and at a
// fractional speedup (the rounded path). A length-only trace takes a Poisson arrival.
inline void trace_input(const char* format, const std::uint8_t* data, std::size_t size) {
  static const TempFile file("trace.csv");
  file.write(data, size);
  for (double speedup : {1.0, 3.7}) {
    ClassSpec spec;
    spec.name = "fuzz";
    spec.trace = TraceSpec{format, file.path(), speedup};
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

}  // namespace servesim::fuzz
