// `vllm bench serve --save-result --save-detailed` results (vllm/benchmarks/serve.py): one
// JSON object with the run's settings (request_rate: a number, or the string "inf";
// burstiness; max_concurrency: an integer or null; duration in seconds; completed; failed)
// and, with --save-detailed, one array entry per request in the order the tool generated
// them: input_lens, output_lens (0 for a failed request), ttfts (seconds, 0 when failed),
// itls (a list of seconds per request), errors ("" when it succeeded) and generated_texts.
// Newer versions also write start_times (the client's perf_counter at the send, seconds,
// after any wait for a --max-concurrency slot) and latencies (seconds, first byte sent to
// last token received); older ones have neither.
// What the file says of the deployment: model_id and tokenizer_id; `backend` (older) or
// `endpoint_type`, the client's request function, which names the server for some
// (sglang, tensorrt-llm, tgi, lmdeploy, ...) and is a generic OpenAI client for others
// (vllm, openai, openai-chat); and whatever `--metadata KEY=VALUE` added at the top level,
// of which vllm's own example keys tp and pp (and tensor_parallel_size,
// pipeline_parallel_size) are read as the parallelism.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/vllm_bench_vocabulary.h"

namespace servesim {
namespace {

using json = nlohmann::json;
using pointer = json::json_pointer;

constexpr double kMaxSeconds = 9.0e9;

pointer at(const std::string& key) { return pointer("/" + key); }
pointer at(const std::string& key, std::size_t i) { return pointer("/" + key + "/" + std::to_string(i)); }
std::string field_at(const std::string& key, std::size_t i) { return key + "[" + std::to_string(i) + "]"; }

class VllmReader {
 public:
  explicit VllmReader(const JsonDocument& doc) : doc_(doc), root_(doc.root()) {}

  BenchmarkRun read() {
    BenchmarkRun run = deployment();
    run.stages.push_back(stage());
    read_requests(run);
    return run;
  }

  // What the file says of the deployment it measured, and the seed.
  BenchmarkRun deployment() const {
    if (!root_.is_object()) doc_.fail(pointer(), "", "expected a JSON object (vllm bench serve --save-result)");
    BenchmarkRun run;
    run.model = optional_string("model_id");
    if (!run.model.empty()) run.model_key = "model_id";
    run.tokenizer = optional_string("tokenizer_id");
    if (!run.tokenizer.empty()) run.tokenizer_key = "tokenizer_id";
    read_engine(run);
    run.tp = gpus({"tp", "tensor_parallel_size"});
    run.pp = gpus({"pp", "pipeline_parallel_size"});
    run.seed = seed();
    return run;
  }

 private:
  // --- scalars -------------------------------------------------------------------------
  const json* member(const std::string& key) const {
    const auto it = root_.find(key);
    return it == root_.end() ? nullptr : &*it;
  }
  const json& require(const std::string& key, const std::string& why = "") const {
    const json* v = member(key);
    if (v == nullptr) doc_.fail(at(key), key, "missing" + (why.empty() ? "" : ": " + why));
    return *v;
  }
  double number(const json& v, const pointer& p, const std::string& field) const {
    if (!v.is_number()) doc_.fail(p, field, "must be a number, got " + std::string(v.type_name()));
    return v.get<double>();
  }
  double non_negative(const json& v, const pointer& p, const std::string& field) const {
    const double x = number(v, p, field);
    if (!(x >= 0)) doc_.fail(p, field, "must be >= 0, got " + v.dump());
    return x;
  }
  // A time in seconds; beyond 9e9 s (285 years) it would not fit in int64 nanoseconds.
  double seconds(const json& v, const pointer& p, const std::string& field) const {
    const double x = non_negative(v, p, field);
    if (x > kMaxSeconds) doc_.fail(p, field, "is more than 9e9 seconds, got " + v.dump());
    return x;
  }
  // A whole number >= `lowest` (Python writes counts as integers; 4.0 is accepted too).
  std::int64_t count(const json& v, const pointer& p, const std::string& field, std::int64_t lowest) const {
    const double x = number(v, p, field);
    if (x != std::floor(x) || std::fabs(x) > 9e15) doc_.fail(p, field, "must be a whole number, got " + v.dump());
    if (x < static_cast<double>(lowest)) {
      doc_.fail(p, field, "must be >= " + std::to_string(lowest) + ", got " + v.dump());
    }
    return static_cast<std::int64_t>(x);
  }
  std::string optional_string(const std::string& key) const {
    const json* v = member(key);
    if (v == nullptr || v->is_null()) return "";
    if (!v->is_string()) doc_.fail(at(key), key, "must be a string, got " + std::string(v->type_name()));
    return v->get<std::string>();
  }
  // vllm writes no seed of its own; `--metadata seed=N` adds one as a string.
  std::optional<std::uint64_t> seed() const {
    const json* v = member("seed");
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_string()) {
      const std::string s = v->get<std::string>();
      if (!s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::stoull(s);
    }
    doc_.fail(at("seed"), "seed", "must be a whole number >= 0, got " + v->dump());
  }

  // --- the deployment it measured ---------------------------------------------------------
  // The server a request function is named after (vllm/benchmarks: ASYNC_REQUEST_FUNCS);
  // "vllm" and the openai ones are plain OpenAI-compatible clients, pointed at any server.
  void read_engine(BenchmarkRun& run) const {
    static const std::pair<const char*, const char*> kServers[] = {
        {"sglang", "sglang"}, {"tensorrt-llm", "trtllm"}, {"tgi", "tgi"}, {"lmdeploy", "lmdeploy"},
        {"deepspeed-mii", "deepspeed-mii"}, {"scalellm", "scalellm"}, {"llama.cpp", "llama.cpp"}};
    for (const char* key : {"backend", "endpoint_type"}) {
      const std::string name = optional_string(key);
      if (name.empty()) continue;
      for (const auto& [backend, engine] : kServers) {
        if (name == backend) {
          run.engine = engine;
          run.engine_key = key;
        }
      }
      return;
    }
  }

  // A GPU count from --metadata (written as a string, "tp": "8") or a number.
  std::optional<int> gpus(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
      const json* v = member(key);
      if (v == nullptr || v->is_null()) continue;
      std::string text = v->is_string() ? v->get<std::string>() : v->dump();
      const bool digits = !text.empty() && text.size() <= 6 &&
                          std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || std::stoi(text) < 1) {
        doc_.fail(at(key), key, "must be a whole number of GPUs >= 1 (vllm bench serve --metadata " +
                                    std::string(key) + "=N), got " + v->dump());
      }
      return std::stoi(text);
    }
    return std::nullopt;
  }

  // --- the load the tool generated -----------------------------------------------------
  BenchmarkStage stage() const {
    BenchmarkStage s;
    const json& rate = require("request_rate");
    if (rate.is_string()) {
      // The tool writes an infinite rate as the string "inf" (JSON has no infinity).
      if (rate.get<std::string>() != "inf") {
        doc_.fail(at("request_rate"), "request_rate", "must be a number > 0 or \"inf\", got " + rate.dump());
      }
    } else {
      const double r = number(rate, at("request_rate"), "request_rate");
      if (!(r > 0)) doc_.fail(at("request_rate"), "request_rate", "must be > 0 (or \"inf\"), got " + rate.dump());
      s.rate_per_s = r;
    }
    // Absent before vllm had --burstiness: its arrivals were Poisson, shape 1.
    if (const json* b = member("burstiness"); b != nullptr && !b->is_null()) {
      s.burstiness = number(*b, at("burstiness"), "burstiness");
      if (!(s.burstiness > 0)) doc_.fail(at("burstiness"), "burstiness", "must be > 0, got " + b->dump());
    }
    if (const json* c = member("max_concurrency"); c != nullptr && !c->is_null()) {
      const std::int64_t users = count(*c, at("max_concurrency"), "max_concurrency", 1);
      if (users > 1'000'000'000) doc_.fail(at("max_concurrency"), "max_concurrency", "must be at most 1000000000");
      s.max_concurrency = static_cast<int>(users);
    }
    const json& duration = require("duration");
    s.duration_s = number(duration, at("duration"), "duration");
    if (!(*s.duration_s > 0)) doc_.fail(at("duration"), "duration", "must be > 0 seconds, got " + duration.dump());
    s.name = "rate " + (s.rate_per_s ? rate.dump() : std::string("inf"));
    if (s.max_concurrency) s.name += ", max concurrency " + std::to_string(*s.max_concurrency);
    return s;
  }

  // --- the requests ----------------------------------------------------------------------
  const json& array(const std::string& key, std::size_t expected) const {
    const json& v = require(key);
    if (!v.is_array()) doc_.fail(at(key), key, "must be a list, got " + std::string(v.type_name()));
    if (v.size() != expected) {
      doc_.fail(at(key), key,
                "has " + std::to_string(v.size()) + " entries but input_lens has " + std::to_string(expected) +
                    " (one per request)");
    }
    return v;
  }

  // The earliest of the n start times, in the tool's seconds.
  double first_start_seconds(const json& start_times, std::size_t n) const {
    double first_s = number(start_times[0], at("start_times", 0), "start_times[0]");
    for (std::size_t i = 0; i < n; ++i)
      first_s = std::min(first_s, number(start_times[i], at("start_times", i), field_at("start_times", i)));
    return first_s;
  }

  // Request i's inter-token gaps into r.itl_ns; returns their sum in seconds.
  double read_gaps(const json& gaps, std::size_t i, BenchmarkRequest& r) const {
    if (!gaps.is_array()) doc_.fail(at("itls", i), field_at("itls", i), "must be a list of seconds");
    double gaps_s = 0;
    r.itl_ns.reserve(gaps.size());
    for (std::size_t k = 0; k < gaps.size(); ++k) {
      // The usual gap, checked as seconds() checks it, without building the error's
      // location: a file holds one gap per output token, and naming each one cost more
      // than parsing the whole file.
      const json& v = gaps[k];
      double gap_s = v.is_number() ? v.get<double>() : -1;
      if (!(gap_s >= 0 && gap_s <= kMaxSeconds)) {
        const pointer p("/itls/" + std::to_string(i) + "/" + std::to_string(k));
        gap_s = seconds(v, p, field_at("itls", i) + "[" + std::to_string(k) + "]");
      }
      gaps_s += gap_s;
      r.itl_ns.push_back(ticks_from_seconds(gap_s));
    }
    return gaps_s;
  }

  void read_requests(BenchmarkRun& run) const {
    for (const char* key : kVllmBenchDetailedArrays) {
      if (member(key) == nullptr) {
        doc_.fail(at(key), key,
                  "missing: the file has no per-request results; run vllm bench serve with --save-result "
                  "--save-detailed");
      }
    }
    const json& input_lens = require("input_lens");
    if (!input_lens.is_array()) doc_.fail(at("input_lens"), "input_lens", "must be a list");
    const std::size_t n = input_lens.size();
    if (n == 0) doc_.fail(at("input_lens"), "input_lens", "is empty: the run has no requests");
    const json& output_lens = array("output_lens", n);
    const json& ttfts = array("ttfts", n);
    const json& itls = array("itls", n);
    const json& errors = array("errors", n);
    const json* latencies = member("latencies") ? &array("latencies", n) : nullptr;
    const json* start_times = member("start_times") ? &array("start_times", n) : nullptr;
    if (start_times == nullptr) {
      if (const json* ramp = member("ramp_up_strategy"); ramp != nullptr && !ramp->is_null()) {
        doc_.fail(at("ramp_up_strategy"), "ramp_up_strategy",
                  "a ramp-up run has no single rate to regenerate its arrivals from, and this file has no "
                  "start_times (newer vllm versions write them)");
      }
    }

    const double first_start_s = start_times != nullptr ? first_start_seconds(*start_times, n) : 0;
    run.requests.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      BenchmarkRequest& r = run.requests[i];
      r.prompt_tokens = count(input_lens[i], at("input_lens", i), field_at("input_lens", i), 0);
      r.output_tokens = count(output_lens[i], at("output_lens", i), field_at("output_lens", i), 0);
      const json& error = errors[i];
      if (!error.is_string()) {
        doc_.fail(at("errors", i), field_at("errors", i), "must be a string, got " + std::string(error.type_name()));
      }
      r.error = error.get<std::string>();
      r.succeeded = r.error.empty();
      const double ttft_s = seconds(ttfts[i], at("ttfts", i), field_at("ttfts", i));
      const double gaps_s = read_gaps(itls[i], i, r);
      if (start_times != nullptr) {
        const double since_s = (*start_times)[i].get<double>() - first_start_s;
        if (since_s > kMaxSeconds) {
          doc_.fail(at("start_times", i), field_at("start_times", i),
                    "is more than 9e9 seconds after the first request's");
        }
        r.start_ns = ticks_from_seconds(since_s);
      }
      double latency_s = ttft_s + gaps_s;
      if (latency_s > kMaxSeconds) doc_.fail(at("itls", i), field_at("itls", i), "adds up to more than 9e9 seconds");
      if (latencies != nullptr) {
        latency_s = seconds((*latencies)[i], at("latencies", i), field_at("latencies", i));
        if (r.succeeded && latency_s < ttft_s) {
          doc_.fail(at("latencies", i), field_at("latencies", i),
                    "is below ttfts[" + std::to_string(i) + "]: a request ends after its first token");
        }
      }
      if (r.succeeded) {
        r.ttft_ns = ticks_from_seconds(ttft_s);
        // Without a latencies array (older versions) the request's end is its last token:
        // the tool's own latency is that token's time less the send time, i.e. ttft + sum(itls).
        r.e2el_ns = ticks_from_seconds(latency_s);
      }
    }
    reconcile_outcomes(run, ttfts, output_lens);
    for (std::size_t i = 0; i < n; ++i) {
      if (run.requests[i].succeeded && run.requests[i].prompt_tokens < 1) {
        doc_.fail(at("input_lens", i), field_at("input_lens", i),
                  "a request that succeeded has at least 1 prompt token, got 0");
      }
    }
  }

  // The file has no success flag: a request failed when its error text is not empty. The
  // tool also fails a request without text when the server's HTTP reason is empty; such a
  // request never received a token (ttft 0, output 0). `completed` (successes) tells how
  // many there were, so exactly that many of those are marked failed, or the file is refused.
  void reconcile_outcomes(BenchmarkRun& run, const json& ttfts, const json& output_lens) const {
    const json& completed_json = require("completed");
    const std::int64_t completed = count(completed_json, at("completed"), "completed", 0);
    std::int64_t without_text = 0, silent_candidates = 0;
    for (std::size_t i = 0; i < run.requests.size(); ++i) {
      if (!run.requests[i].succeeded) continue;
      ++without_text;
      silent_candidates += ttfts[i].get<double>() == 0 && output_lens[i].get<double>() == 0;
    }
    const std::int64_t silent = without_text - completed;
    if (silent < 0 || silent > silent_candidates || (silent > 0 && silent != silent_candidates)) {
      doc_.fail(at("completed"), "completed",
                "says " + std::to_string(completed) + " requests succeeded, but " + std::to_string(without_text) +
                    " have an empty error text (and " + std::to_string(silent_candidates) +
                    " of those received no token); the per-request arrays do not match the run");
    }
    if (silent > 0) {
      for (std::size_t i = 0; i < run.requests.size(); ++i) {
        BenchmarkRequest& r = run.requests[i];
        if (r.succeeded && ttfts[i].get<double>() == 0 && output_lens[i].get<double>() == 0) {
          r.succeeded = false;
          r.error = "failed without an error text (no token received)";
          r.ttft_ns = -1;
          r.e2el_ns = -1;
        }
      }
    }
    if (const json* failed = member("failed"); failed != nullptr && !failed->is_null()) {
      const std::int64_t n_failed = count(*failed, at("failed"), "failed", 0);
      const auto actual = static_cast<std::int64_t>(run.requests.size()) - completed;
      if (n_failed != actual) {
        doc_.fail(at("failed"), "failed",
                  "says " + std::to_string(n_failed) + " requests failed, but the file lists " +
                      std::to_string(run.requests.size()) + " requests of which " + std::to_string(completed) +
                      " completed");
      }
    }
  }

  const JsonDocument& doc_;
  const json& root_;
};

// The settings every vllm bench serve result has, and no other tool's top level does.
bool recognises_per_request(const json& root) {
  return root.is_object() && root.contains("request_rate") && root.contains("completed") &&
         (root.contains("backend") || root.contains("endpoint_type") || root.contains("model_id"));
}

}  // namespace

BenchmarkRun vllm_bench_deployment(const JsonDocument& document) { return VllmReader(document).deployment(); }

BenchmarkFormat vllm_bench_format() {
  return {"vllm-bench", recognises_per_request, [](const JsonDocument& document) { return VllmReader(document).read(); },
          "vllm bench serve --save-result --save-detailed (benchmark_serving.py's file too)"};
}

}  // namespace servesim
