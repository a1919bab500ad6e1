// A run written as inference-perf writes a report folder with per-request reporting on
// (the schema inference_perf_format.cpp reads): per_request_lifecycle_metrics.json, one
// entry per request in the order they finished, in the nested form of inference-perf 0.5,
// and beside it stage_0_lifecycle_metrics.json, the run as one stage with its rate and
// concurrency (inference_perf_summary.h), which is where inference-perf keeps them.
//   - start_time / end_time are seconds on the simulated clock (inference-perf's are
//     perf_counter readings: only differences carry meaning in either);
//   - output_token_times are the first token and then the decode time spread evenly up to
//     the finish (benchmark_writer.h); server_usage gives the token counts as the server
//     would, with the prompt tokens served from the prefix cache as cached_tokens;
//   - a rejected request fails with error_type "Rejected" and the reason; one still in
//     flight when the run stopped fails with "Unfinished" and ends at the run's end;
//   - request and response bodies are left out, as inference-perf leaves them out when
//     per_request_fields turns them off: servesim has no text.
#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/atomic_write.h"
#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/report/benchmark/inference_perf_summary.h"

namespace servesim {
namespace {

using ordered_json = nlohmann::ordered_json;

// The token times of a completed request: the first token, then the decode time split over
// the output - 1 gaps in whole nanoseconds, the remainder going to the first gaps.
std::vector<double> token_times_s(const RequestRecord& r) {
  std::vector<double> times;
  if (r.first_token_ns < 0 || r.output_tokens_done < 1) return times;
  Tick t = r.first_token_ns;
  times.push_back(seconds_from_ticks(t));
  if (r.output_tokens_done < 2) return times;
  const Tick gaps = r.output_tokens_done - 1;
  const Tick decode_ns = r.finish_ns - r.first_token_ns;
  for (Tick i = 0; i < gaps; ++i) {
    t += decode_ns / gaps + (i < decode_ns % gaps ? 1 : 0);
    times.push_back(seconds_from_ticks(t));
  }
  return times;
}

InferencePerfRequest request_of(const RequestRecord& record, Tick run_end_ns) {
  InferencePerfRequest r;
  r.start_s = r.scheduled_s = seconds_from_ticks(record.arrival_ns);
  r.prompt_tokens = record.prompt_tokens;
  r.cached_prompt_tokens = record.cached_prompt_tokens;
  switch (record.outcome) {
    case Outcome::completed:
      r.end_s = seconds_from_ticks(record.finish_ns);
      r.output_tokens = record.output_tokens_done;
      r.token_times_s = token_times_s(record);
      break;
    case Outcome::rejected:
      r.failed = true;
      r.error_type = "Rejected";
      r.error_msg = record.reject_reason;
      r.end_s = seconds_from_ticks(record.finish_ns >= 0 ? record.finish_ns : record.arrival_ns);
      break;
    case Outcome::unfinished:
      r.failed = true;
      r.error_type = "Unfinished";
      r.error_msg = "the run stopped with the request in flight";
      r.end_s = seconds_from_ticks(run_end_ns);
      break;
  }
  return r;
}

ordered_json entry_of(const InferencePerfRequest& r) {
  ordered_json text;
  text["input_tokens"] = r.prompt_tokens;
  ordered_json request_metrics;
  request_metrics["text"] = std::move(text);
  request_metrics["image"] = nullptr;
  request_metrics["video"] = nullptr;
  request_metrics["audio"] = nullptr;

  ordered_json response_metrics = nullptr;
  if (!r.failed) {
    ordered_json usage;
    usage["prompt_tokens"] = r.prompt_tokens;
    usage["completion_tokens"] = r.output_tokens;
    usage["total_tokens"] = r.prompt_tokens + r.output_tokens;
    usage["prompt_tokens_details"] = {{"cached_tokens", r.cached_prompt_tokens}};
    ordered_json times = ordered_json::array();
    for (double t : r.token_times_s) times.push_back(t);
    response_metrics["output_tokens"] = r.output_tokens;
    response_metrics["server_usage"] = std::move(usage);
    response_metrics["chunk_times"] = times;
    response_metrics["output_token_times"] = std::move(times);
  }

  ordered_json info;
  info["request_metrics"] = std::move(request_metrics);
  info["response_metrics"] = std::move(response_metrics);
  info["extra_info"] = ordered_json::object();
  info["lora_adapter"] = nullptr;
  info["graph_event_id"] = nullptr;
  info["labels"] = ordered_json::object();
  info["retries_attempted"] = 0;
  info["retries_recovered"] = false;
  info["input_tokens"] = r.prompt_tokens;

  ordered_json entry;
  entry["start_time"] = r.start_s;
  entry["end_time"] = r.end_s;
  entry["info"] = std::move(info);
  if (!r.failed) entry["computed_metrics"] = inference_perf_computed_metrics(r);
  entry["error"] = r.failed ? ordered_json{{"error_type", r.error_type}, {"error_msg", r.error_msg}} : ordered_json(nullptr);
  return entry;
}

// inference-perf lists requests as they finish, which is the order records_ holds them in.
class InferencePerfWriter : public RecordingBenchmarkWriter {
 public:
  using RecordingBenchmarkWriter::RecordingBenchmarkWriter;

  void finish(const BenchmarkRunInfo& info) override {
    std::vector<InferencePerfRequest> requests;
    ordered_json entries = ordered_json::array();
    for (const RequestRecord& record : records_) {
      requests.push_back(request_of(record, info.duration_ns));
      entries.push_back(entry_of(requests.back()));
    }
    write_file_atomically(path_, "--bench-format", [&](std::ostream& out) { out << entries.dump(2) << "\n"; });
    if (requests.empty()) return;  // inference-perf writes no stage report for a stage without requests
    const ordered_json stage = inference_perf_stage_summary(requests, info.request_rate_per_s, info.max_concurrency);
    const std::string stage_path =
        (std::filesystem::path(path_).parent_path() / "stage_0_lifecycle_metrics.json").string();
    write_file_atomically(stage_path, "--bench-format", [&](std::ostream& out) { out << stage.dump(2) << "\n"; });
  }
};

}  // namespace

BenchmarkWriterFormat inference_perf_writer_format() {
  return benchmark_writer_format_of<InferencePerfWriter>("inference-perf", "per_request_lifecycle_metrics.json");
}

}  // namespace servesim
