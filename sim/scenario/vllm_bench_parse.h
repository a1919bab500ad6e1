#pragma once
// Reads a workload class's `vllm_bench_serve:` value, the options of a `vllm bench serve`
// run to replay as the class's load (sim/workload/benchmark/vllm_bench_serve_source.h):
//
//   - class: bench
//     vllm_bench_serve: "--dataset-name random --random-input-len 1024 --request-rate 8"
//
//   - class: bench
//     vllm_bench_serve:
//       dataset_name: prefix_repetition
//       prefix_repetition_num_prefixes: 4
//       special_tokens: 1                # servesim's own: tokens the tokenizer adds (BOS)
//       args: "--max-concurrency 16"     # servesim's own: more options as a command line
//       lengths: sharegpt_lengths.csv    # servesim's own: sharegpt's lengths file
//
// Options are spelt as users paste them: `--random-input-len`, `--random_input_len` or
// `random_input_len`. Options that change nothing servesim models (where the server is,
// what is saved, sampling parameters, other datasets' options) are accepted and have no
// effect; options that change the load in a way servesim does not model (LoRA modules, beam
// search, batched embeddings, probe requests, another dataset) are refused, so a replay never
// silently differs from the run. Every mistake is a ConfigError at the value's file, line
// and key.
#include <string>
#include <vector>

#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/benchmark/vllm_bench_args.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// The trace (format "vllm-bench-serve") of class `cls`, whose `vllm_bench_serve` value is
// `value`. Refuses `arrival`, `input`, `output`, `prompt`, `session` and `trace` beside it:
// the command line gives the arrivals and the prompts.
TraceSpec parse_vllm_bench_serve(const Field& cls, const Field& value);

// The options of a command line, without any check (split as a POSIX shell splits words:
// quotes, backslash escapes, backslash-newline continuations). Fails at `at` on an
// unterminated quote.
std::vector<std::string> split_command_line(const std::string& text, const Field& at);

// "random: input 1024 (921 to 1127) + prefix 256, output 128, 1000 prompts; rate 8 req/s,
// burstiness 1, max concurrency 64", for `validate`'s summary.
std::string describe_vllm_bench_serve(const VllmBenchServeArgs& args);

}  // namespace servesim
