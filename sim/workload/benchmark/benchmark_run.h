#pragma once
// The per-request results of a real serving benchmark (vllm bench serve --save-result
// --save-detailed, inference-perf's per-request lifecycle metrics, a GuideLLM report),
// read into one shape: what each request asked for, what the server measured for it, and
// how the tool generated the load when the file has no send times. A benchmark file is
// small (one run, thousands of requests), so it is read whole.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

struct BenchmarkRequest {
  // When the tool sent it, relative to the first request the file lists (first = 0);
  // absent when the file has no per-request send times (vllm bench serve).
  std::optional<Tick> start_ns;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;  // tokens the server returned (a replay generates as many)
  bool succeeded = true;
  std::string error;               // failed requests: the tool's error text ("" if none)
  Tick ttft_ns = -1;               // -1: not measured (failed, or no streaming)
  Tick e2el_ns = -1;
  std::vector<Tick> itl_ns;        // gaps between consecutive output tokens, when the file has them
  int stage = 0;                   // index into BenchmarkRun::stages
};

// One load level of the run: an inference-perf stage, a GuideLLM benchmark, or the single
// rate of a vllm bench serve run.
struct BenchmarkStage {
  std::string name;                     // e.g. "stage 0", "constant@5.00", "rate 4"
  std::optional<double> rate_per_s;     // requests/s the tool aimed at; absent: as fast as possible
  double burstiness = 1.0;              // gamma shape of the gaps (vllm --burstiness; 1: Poisson)
  std::optional<int> max_concurrency;   // at most this many requests in flight
  std::optional<double> duration_s;     // the tool's measured span of the stage
};

struct BenchmarkRun {
  std::string format;  // vllm-bench | inference-perf | guidellm
  std::string path;
  std::string model;   // the model id as the tool wrote it ("" if absent)
  // What else the file says about the deployment it measured, for replay to check against
  // the scenario (sim/study/benchmark_match.h); each "" or absent where the file is silent.
  std::string model_key;      // the file's field that named the model ("model_id", "args.model", ...)
  std::string tokenizer;      // the tokenizer the tool counted tokens with (vllm tokenizer_id, GuideLLM processor)
  std::string tokenizer_key;
  // The serving engine the tool was pointed at, when it names one (vllm bench serve
  // --backend sglang / tensorrt-llm ...): "sglang", "trtllm", "tgi", ... Never "vllm":
  // `--backend vllm` was the tool's default for any OpenAI-compatible server.
  std::string engine;
  std::string engine_key;
  std::optional<int> tp;      // tensor parallel size (vllm bench serve --metadata tp=N)
  std::optional<int> pp;      // pipeline parallel size (--metadata pp=N)
  std::optional<std::uint64_t> seed;
  std::vector<BenchmarkStage> stages;   // at least one
  std::vector<BenchmarkRequest> requests;  // in send order (file order where no times)
};

}  // namespace servesim
