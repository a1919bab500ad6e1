#pragma once
// The options of a `vllm bench serve` command line that decide the load it sends, so that
// a scenario can replay the same load (`vllm_bench_serve:` in a workload class,
// docs/workload.md "vllm bench serve command lines"). Read from the scenario by
// sim/scenario/vllm_bench_parse.h; turned into requests by vllm_bench_serve_source.h.
// Defaults are the tool's own (vllm/benchmarks/datasets/arg_utils.py add_dataset_parser,
// vllm/benchmarks/serve.py add_cli_args).
#include <cstdint>
#include <optional>
#include <string>

namespace servesim {

struct VllmBenchServeArgs {
  enum class Dataset { random, prefix_repetition, sharegpt };
  enum class RampUp { none, linear, exponential };

  Dataset dataset = Dataset::random;        // --dataset-name (default random)
  std::int64_t num_prompts = 1000;           // --num-prompts
  std::int64_t seed = 0;                     // --seed
  // Traffic (serve.py get_request / benchmark).
  std::optional<double> request_rate_per_s;  // --request-rate; absent: inf (all at once)
  double burstiness = 1.0;                   // --burstiness: gamma shape of the gaps (inf allowed)
  std::optional<std::int64_t> max_concurrency;  // --max-concurrency: requests in flight at most
  RampUp ramp_up = RampUp::none;             // --ramp-up-strategy
  std::int64_t ramp_up_start_rps = 0;        // --ramp-up-start-rps
  std::int64_t ramp_up_end_rps = 0;          // --ramp-up-end-rps
  std::int64_t num_warmups = 0;              // --num-warmups: copies of the first prompt sent first
  // --ready-check-timeout-sec: above 0 the tool first sends the first prompt once and
  // waits for it (vllm's default was 600 before it became 0).
  std::int64_t ready_check_timeout_s = 0;
  // random (datasets/random.py RandomDataset).
  std::int64_t random_input_len = 1024;
  std::int64_t random_output_len = 128;
  double random_range_ratio = 0.0;
  std::int64_t random_prefix_len = 0;
  // prefix_repetition (datasets/prefix_repetition.py PrefixRepetitionRandomDataset).
  std::int64_t prefix_repetition_prefix_len = 256;
  std::int64_t prefix_repetition_suffix_len = 256;
  std::int64_t prefix_repetition_num_prefixes = 10;
  std::int64_t prefix_repetition_output_len = 128;
  // sharegpt (datasets/sharegpt.py ShareGPTDataset).
  std::optional<std::int64_t> sharegpt_output_len;
  bool no_oversample = false;    // --no-oversample
  bool disable_shuffle = false;  // --disable-shuffle
  // servesim's own: the tokens the model's tokenizer adds to every prompt
  // (tokenizer.num_special_tokens_to_add(): 1 for a BOS token as Llama's, 0 for Qwen's), and
  // for sharegpt the lengths file (columns num_prefill_tokens, num_decode_tokens) that
  // stands for the dataset, one row per conversation in the dataset's order.
  std::int64_t special_tokens = 0;
  std::string lengths_path;
  std::string command;  // the options as given, for the scenario summary
};

// The dataset's name as vllm spells it (random, prefix_repetition, sharegpt).
const char* vllm_bench_dataset_name(VllmBenchServeArgs::Dataset dataset);

}  // namespace servesim
