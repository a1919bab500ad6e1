// make_source: picks the source of one workload class from its spec.
//   trace azure | vidur       -> CsvTraceSource (the file's own timestamps; no `arrival`)
//   trace mooncake | csv      -> PrefixTraceSource (timestamps, lengths and prefix hashes)
//   trace vllm-bench | inference-perf | guidellm | benchmark
//                             -> BenchmarkSource (a benchmark run's succeeded requests, at
//                                its send times or its tool's pacing; no `arrival`)
//   trace inference-perf-config
//                             -> InferencePerfConfigSource (the load an inference-perf
//                                config.yaml describes; no `arrival`)
//   vllm_bench_serve (a trace of format vllm-bench-serve)
//                             -> VllmBenchServeSource (the load of a vllm bench serve
//                                command line; no `arrival`)
//   trace lengths             -> the file's lengths with the class's `arrival` (required):
//                                open loop (SyntheticSource) or closed loop
//   no trace, arrival closed  -> ClosedLoopSource with sampled lengths
//   no trace, otherwise       -> SyntheticSource with sampled lengths
//   `prompt:` structure        -> lengths and block hashes from its segments (StructuredLengths)
//   `session:`                 -> SessionSource: arrivals start sessions, turns follow completions
// Random streams are named "workload/<class>/arrival", ".../input", ".../output" and
// ".../think", so changing one distribution never shifts another's draws.
#include <string>

#include "sim/core/errors.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/azure_trace_source.h"
#include "sim/workload/benchmark/benchmark_source.h"
#include "sim/workload/benchmark/vllm_bench_serve_source.h"
#include "sim/workload/benchmark/inference_perf_config_source.h"
#include "sim/workload/closed_loop_source.h"
#include "sim/workload/lengths_file.h"
#include "sim/workload/lora_demand.h"
#include "sim/workload/prefix_trace_source.h"
#include "sim/workload/prompt_structure.h"
#include "sim/workload/session_source.h"
#include "sim/workload/sampled_lengths.h"
#include "sim/workload/synthetic_source.h"
#include "sim/workload/time_warp.h"
#include "sim/workload/vidur_trace_source.h"

namespace servesim {
namespace {

std::string stream(const ClassSpec& spec, const char* what) { return "workload/" + spec.name + "/" + what; }

std::string key(const ClassSpec& spec, const std::string& field) { return "workload." + spec.name + "." + field; }

std::unique_ptr<LengthSource> sampled_lengths(const ClassSpec& spec, std::uint64_t seed) {
  if (!spec.prompt.empty()) {
    if (!spec.output) throw ConfigError("", 0, key(spec, "output"), "is required for a class without a trace");
    return std::make_unique<StructuredLengths>(PromptGenerator(spec.prompt, spec.name, seed),
                                               make_distribution(*spec.output), Rng(seed, stream(spec, "output")),
                                               spec.block_tokens);
  }
  if (!spec.input) throw ConfigError("", 0, key(spec, "input"), "is required for a class without a trace");
  if (!spec.output) throw ConfigError("", 0, key(spec, "output"), "is required for a class without a trace");
  return std::make_unique<SampledLengths>(make_distribution(*spec.input), make_distribution(*spec.output),
                                          Rng(seed, stream(spec, "input")), Rng(seed, stream(spec, "output")));
}

// Combines an arrival pattern (open or closed) with a length origin.
std::unique_ptr<RequestSource> with_arrivals(const ClassSpec& spec, int class_index, std::uint64_t seed,
                                             std::unique_ptr<LengthSource> lengths) {
  const ArrivalSpec& arrival = *spec.arrival;
  if (arrival.process == ArrivalSpec::Process::closed) {
    if (arrival.concurrency < 1) {
      throw ConfigError("", 0, key(spec, "arrival.concurrency"), "a closed loop needs at least one user");
    }
    std::unique_ptr<Distribution> think;
    if (arrival.think_time_s) think = make_distribution(*arrival.think_time_s);
    return std::make_unique<ClosedLoopSource>(arrival.concurrency, std::move(think), Rng(seed, stream(spec, "think")),
                                              std::move(lengths), class_index);
  }
  return std::make_unique<SyntheticSource>(make_arrival_process(arrival, spec.name, Rng(seed, stream(spec, "arrival"))),
                                           std::move(lengths), class_index);
}

std::unique_ptr<RequestSource> trace_source(const ClassSpec& spec, int class_index, std::uint64_t seed) {
  const TraceSpec& trace = *spec.trace;
  if (trace.format == "lengths") {
    if (!spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "a length-only trace has no timestamps; give the class an `arrival` process");
    }
    return with_arrivals(spec, class_index, seed, std::make_unique<LengthsFile>(trace.path));
  }
  if (trace.format == "azure" || trace.format == "vidur") {
    if (spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "a " + trace.format + " trace carries its own timestamps; remove `arrival` "
                        "(or use format lengths to replay only its lengths)");
    }
    auto source = trace.format == "azure" ? make_azure_trace_source(trace.path, trace.speedup, class_index)
                                          : make_vidur_trace_source(trace.path, trace.speedup, class_index);
    // Two sources of adapters would leave one of them silently unused.
    if (spec.lora && source->names_adapters()) {
      throw ConfigError(trace.path, 1, key(spec, "lora"),
                        "the trace names each request's adapter in its lora_adapter column; remove the class's `lora:` "
                        "(or the column)");
    }
    return source;
  }
  if (trace.format == "mooncake" || trace.format == "csv") {
    if (spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "a " + trace.format + " trace carries its own timestamps; remove `arrival`");
    }
    return std::make_unique<PrefixTraceSource>(trace.path, trace.format, trace.speedup,
                                               trace_hash_block_tokens(trace.format, trace.hash_block_tokens),
                                               spec.block_tokens, class_index);
  }
  if (is_benchmark_trace_format(trace.format)) {
    if (spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "a benchmark run's arrivals come from the file (its send times, or its rate, burstiness "
                        "and max_concurrency); remove `arrival`");
    }
    return make_benchmark_source(trace, spec.name, class_index, seed);
  }
  if (trace.format == "inference-perf-config") {
    if (spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "an inference-perf config's stages give the arrivals; remove `arrival`");
    }
    return std::make_unique<InferencePerfConfigSource>(read_inference_perf_config(trace.path), trace.stage, spec.name,
                                                       class_index, seed, spec.block_tokens);
  }
  if (trace.vllm_bench_serve) {
    return std::make_unique<VllmBenchServeSource>(*trace.vllm_bench_serve, spec.name, class_index, seed,
                                                  spec.block_tokens);
  }
  throw ConfigError(trace.path, 0, key(spec, "trace.format"),
                    "unknown trace format '" + trace.format +
                        "' (valid: azure, vidur, lengths, mooncake, csv, vllm-bench, inference-perf, guidellm, "
                        "benchmark, inference-perf-config)");
}

std::unique_ptr<RequestSource> session_source(const ClassSpec& spec, int class_index, std::uint64_t seed) {
  if (!spec.output) throw ConfigError("", 0, key(spec, "output"), "is required for a class without a trace");
  if (spec.prompt.empty() && !spec.input) throw ConfigError("", 0, key(spec, "input"), "is required for a session's first turn");
  const SessionSpec& session = *spec.session;
  SessionSourceParts parts;
  parts.class_name = spec.name;
  parts.class_index = class_index;
  parts.block_tokens = spec.block_tokens;
  const ArrivalSpec& arrival = *spec.arrival;
  if (arrival.process == ArrivalSpec::Process::closed) {
    if (arrival.concurrency < 1) {
      throw ConfigError("", 0, key(spec, "arrival.concurrency"), "a closed loop needs at least one user");
    }
    parts.users = arrival.concurrency;
    if (arrival.think_time_s) parts.user_think_s = make_distribution(*arrival.think_time_s);
  } else {
    parts.starts = make_arrival_process(arrival, spec.name, Rng(seed, stream(spec, "arrival")));
  }
  if (!spec.prompt.empty()) parts.prompt.emplace(spec.prompt, spec.name, seed);
  if (spec.input) parts.input = make_distribution(*spec.input);
  parts.output = make_distribution(*spec.output);
  parts.turns = make_distribution(session.turns);
  if (session.think_time_s) parts.think_s = make_distribution(*session.think_time_s);
  parts.new_input = make_distribution(session.new_input);
  parts.max_history_tokens = session.max_history_tokens;
  return std::make_unique<SessionSource>(std::move(parts), seed);
}

std::unique_ptr<RequestSource> make_untagged_source(const ClassSpec& spec, int class_index, std::uint64_t seed) {
  if (spec.trace && !spec.trace->rate_scale.empty())
    return std::make_unique<WarpedSource>(trace_source(spec, class_index, seed), TimeWarp(spec.trace->rate_scale));
  if (spec.trace) return trace_source(spec, class_index, seed);
  if (!spec.arrival) throw ConfigError("", 0, key(spec, "arrival"), "is required for a class without a trace");
  if (spec.session) return session_source(spec, class_index, seed);
  return with_arrivals(spec, class_index, seed, sampled_lengths(spec, seed));
}

}  // namespace

std::unique_ptr<RequestSource> make_source(const ClassSpec& spec, int class_index, std::uint64_t seed) {
  std::unique_ptr<RequestSource> source = make_untagged_source(spec, class_index, seed);
  if (!spec.lora) return source;
  return std::make_unique<LoraTaggedSource>(std::move(source), LoraAdapterPicker(*spec.lora, seed, spec.name));
}

}  // namespace servesim
