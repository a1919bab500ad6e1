#pragma once
// An inference-perf run's config.yaml (kubernetes-sigs/inference-perf), read as the load it
// describes: `trace: {format: inference-perf-config, path: config.yaml}` generates the
// requests that tool would send (inference_perf_config_source.h). Only what shapes the load
// is kept; each field names the inference-perf source it follows (paths under
// inference_perf/ at the tool's main branch, where config/ was split out of config.py).
//
// Supported: load.type constant | poisson | concurrent (config/loadgen/config.py LoadType);
// data.type shared_prefix | random | synthetic (config/datagen/config.py DataGenType) with
// the completion API. Everything else that would change the load servesim generates is a
// ConfigError naming the file, line and key (a dataset, a trace, a sweep, a chat template,
// LoRA splits, a client timeout, ignore_eos false, multi-turn or multimodal prompts); keys
// that only configure the client's reports, metrics or connection are accepted.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace servesim {

// A length as inference-perf samples it (config/common.py Distribution; defaults min 10,
// max 1024, mean 512, std_dev 200, type normal, skew 0).
struct InferencePerfLength {
  enum class Kind { fixed, normal, skew_normal, lognormal, uniform, poisson };
  Kind kind = Kind::normal;
  std::int64_t min = 10;
  std::int64_t max = 1024;
  double mean = 512;
  double std_dev = 200;
  double skew = 0;
  // A bare integer (shared_prefix's `system_prompt_len: 100`): exactly that many.
  static InferencePerfLength exactly(std::int64_t tokens);
};

struct InferencePerfStage {
  double rate_per_s = 0;          // constant, poisson: stage rate
  std::int64_t duration_s = 0;    // constant, poisson: whole seconds (the schema's int)
  std::int64_t num_requests = 0;  // concurrent
  std::int64_t concurrency = 0;   // concurrent: concurrency_level
  int line = 0;                   // of the stage in config.yaml
};

struct InferencePerfLoad {
  std::string path;
  enum class LoadType { constant, poisson, concurrent };
  LoadType load_type = LoadType::constant;  // LoadConfig.type default
  std::vector<InferencePerfStage> stages;   // at least one
  double interval_s = 1.0;                  // LoadConfig.interval default
  // LoadConfig.num_workers (default: the CPU count of the machine that ran the tool, which
  // the file does not say) and worker_max_concurrency (default 100).
  std::optional<std::int64_t> num_workers;
  std::int64_t worker_max_concurrency = 100;

  enum class DataType { shared_prefix, random, synthetic };
  DataType data_type = DataType::shared_prefix;
  // shared_prefix (config/datagen/config.py SharedPrefix; defaults 10, 10, 100, 50, 50).
  std::int64_t num_groups = 10;
  std::int64_t prompts_per_group = 10;
  InferencePerfLength system_prompt = InferencePerfLength::exactly(100);
  InferencePerfLength question = InferencePerfLength::exactly(50);
  InferencePerfLength output = InferencePerfLength::exactly(50);
  // random, synthetic: data.input_distribution / output_distribution (both required).
  InferencePerfLength input_dist;
  InferencePerfLength output_dist;

  // Requests of stage `s` (int(rate x duration), or num_requests for concurrent).
  std::int64_t requests_of_stage(std::size_t s) const;
  // The concurrency cap of stage `s`: concurrency_level (concurrent), num_workers x
  // worker_max_concurrency (constant, poisson, when num_workers is given), else none.
  std::optional<std::int64_t> cap_of_stage(std::size_t s) const;
};

// The most prompts a shared_prefix config may build (num_groups x prompts per group): they
// are held in memory, as inference-perf holds them.
inline constexpr std::int64_t kMaxInferencePerfPrompts = 10'000'000;

// Reads and checks `path`. Throws ConfigError(path, line, dotted key, message) for a file
// that is not YAML, a key inference-perf does not have, a value it would refuse, or a
// setting servesim does not reproduce (the message says what is supported).
InferencePerfLoad read_inference_perf_config(const std::string& path);

// One line for `validate` and run headers: "constant, 2 stages (1 req/s x 30 s, ...),
// interval 15 s; shared_prefix: 10 groups x 10 prompts, system prompt 100, question 50, output 50 tokens".
std::string describe_inference_perf_load(const InferencePerfLoad& load);

const char* inference_perf_load_type_name(InferencePerfLoad::LoadType type);
const char* inference_perf_data_type_name(InferencePerfLoad::DataType type);

}  // namespace servesim
