#include "sim/scenario/workload_parse.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <set>

#include "sim/core/time.h"
#include "sim/scenario/data_paths.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/distribution_parse.h"
#include "sim/scenario/lora_parse.h"
#include "sim/scenario/prompt_parse.h"
#include "sim/scenario/slo_parse.h"
#include "sim/scenario/vllm_bench_parse.h"
#include "sim/workload/benchmark/benchmark_source.h"
#include "sim/workload/benchmark/inference_perf_config.h"
#include "sim/workload/csv_reader.h"

namespace servesim {

namespace {

const std::vector<std::string> kClassKeys = {"class",    "arrival", "input",  "output", "slo",
                                             "priority", "trace",   "prompt", "session", "vllm_bench_serve", "model", "lora"};
const std::vector<std::string> kArrivalKeys = {"process", "rate", "stages", "rate_curve", "cv", "concurrency",
                                               "think_time"};
const std::vector<std::string> kStageKeys = {"duration", "rate"};
const std::vector<std::string> kRateCurveKeys = {"path", "period", "scale", "repeat"};
const std::vector<std::string> kProcesses = {"poisson", "gamma", "constant", "closed"};
const std::vector<std::string> kTraceKeys = {"format", "path", "speedup", "hash_block_tokens", "stage", "rate_scale"};
const std::vector<std::string> kRateScaleKeys = {"path"};
// The formats whose own timestamps rate_scale can move (the others take arrivals from the
// class's `arrival` or from a benchmark's send schedule).
const std::vector<std::string> kTimedTraceFormats = {"azure", "vidur", "mooncake", "csv"};
const std::vector<std::string> kTraceFormats = {"azure",      "vidur",          "lengths",  "mooncake", "csv",
                                                "vllm-bench", "inference-perf", "guidellm", "benchmark",
                                                "inference-perf-config"};

bool contains_text(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The keys each process reads; any other arrival key is a mistake worth reporting, since
// it would otherwise be silently ignored (e.g. `cv` on a poisson process).
std::vector<std::string> keys_of_process(ArrivalSpec::Process p) {
  switch (p) {
    case ArrivalSpec::Process::poisson:
      return {"process", "rate", "stages", "rate_curve"};
    case ArrivalSpec::Process::gamma:
      return {"process", "rate", "stages", "rate_curve", "cv"};
    case ArrivalSpec::Process::constant:
      return {"process", "rate", "stages", "rate_curve"};
    case ArrivalSpec::Process::closed:
      return {"process", "concurrency", "think_time"};
  }
  return {};
}


// Staged arrivals built stage by stage, with the limits every schedule keeps (`stages` and
// `rate_curve` alike): no stage sends more than kMaxStageArrivals requests, and together they
// last at most kMaxStagedSeconds. The caller refuses a schedule none of whose stages sends.
struct StageSchedule {
  enum class Limit { none, arrivals, length };
  std::vector<ArrivalSpec::Stage> stages;
  double total_s = 0;
  bool sends = false;  // some stage's rate is above 0
  // Appends `stage`, or says which limit it would break.
  Limit add(const ArrivalSpec::Stage& stage) {
    if (stage.rate_per_s * stage.duration_s > kMaxStageArrivals) return Limit::arrivals;
    total_s += stage.duration_s;
    if (total_s > kMaxStagedSeconds) return Limit::length;
    sends = sends || stage.rate_per_s > 0;
    stages.push_back(stage);
    return Limit::none;
  }
};

// `stages: [{duration: 10m, rate: 5}, ...]`: rates in turn from t = 0; rate 0 is an idle
// stage, but a schedule that never sends anything is refused.
std::vector<ArrivalSpec::Stage> parse_stages(const Field& f) {
  const std::vector<Field> items = f.items();
  if (items.empty()) f.fail("give at least one stage ({duration: D, rate: R})");
  StageSchedule schedule;
  for (const Field& item : items) {
    item.expect_map(kStageKeys);
    ArrivalSpec::Stage stage;
    const Field duration = item.require("duration");
    stage.duration_s = duration.as_duration_s();
    if (!(stage.duration_s > 0)) duration.fail("a stage must last > 0, got " + duration.node().Scalar());
    const Field rate = item.require("rate");
    stage.rate_per_s = rate.non_negative_double();
    const StageSchedule::Limit broken = schedule.add(stage);
    if (broken == StageSchedule::Limit::arrivals) rate.fail("the stage would send more than 1e15 requests");
    if (broken == StageSchedule::Limit::length) duration.fail("the stages last longer than 9e9 s (285 years)");
  }
  if (!schedule.sends) f.fail("every stage has rate 0: the class would send nothing");
  return schedule.stages;
}

// The rows of a CSV of a value over time, columns `time_s` and `value_column`: times rising
// from 0 and below 9e9 s; `bad_value` says what is wrong with a value ("" if nothing).
// Refused with the CSV's file, line and column; a file without rows at the key `path`.
std::vector<std::pair<double, double>> read_time_curve(const Field& f, const std::string& path,
                                                       const char* value_column,
                                                       const std::function<const char*(double)>& bad_value) {
  CsvReader csv(path);
  const int time_col = csv.column("time_s"), value_col = csv.column(value_column);
  std::vector<std::pair<double, double>> points;
  while (csv.next_row()) {
    const double t = csv.number(time_col);
    const double value = csv.number(value_col);
    if (points.empty() && t != 0) csv.fail(time_col, "the curve starts at time 0, got " + std::string(csv.field(time_col)));
    if (!points.empty() && !(t > points.back().first)) {
      csv.fail(time_col, "times must rise, got " + std::string(csv.field(time_col)) + " after " +
                             std::to_string(points.back().first));
    }
    if (t > kMaxStagedSeconds) csv.fail(time_col, "times must stay below 9e9 s (285 years)");
    // The clock counts whole nanoseconds: two times inside one would be one point.
    if (!points.empty() && ticks_from_seconds(t) <= ticks_from_seconds(points.back().first)) {
      csv.fail(time_col, "times must rise by at least 1 ns (the simulator's clock), got " +
                             std::string(csv.field(time_col)) + " after " + std::to_string(points.back().first));
    }
    if (const std::string why = bad_value(value); !why.empty())
      csv.fail(value_col, why + ", got " + std::string(csv.field(value_col)));
    points.emplace_back(t, value);
  }
  if (points.empty()) f.require("path").fail(path + " has no rows");
  return points;
}

// `rate_curve: {path: day.csv, period: 24h, scale: 1, repeat: 1}`: a measured rate over
// time (a daily profile) as stages. The CSV has columns `time_s` and `rate` (req/s), times
// rising from 0; each rate holds until the next row's time, and the last row's until
// `period` (without it the last row's time ends the curve and its rate is not used). The
// rates are multiplied by `scale` and the curve is run `repeat` times back to back.
std::vector<ArrivalSpec::Stage> parse_rate_curve(const Field& f) {
  f.expect_map(kRateCurveKeys);
  const std::string path = existing_data_path(f.require("path"), "rate curve");
  std::optional<double> period_s;
  if (auto p = f.get("period")) {
    period_s = p->as_duration_s();
    if (!(*period_s > 0)) p->fail("the period must be > 0, got " + p->node().Scalar());
  }
  const double scale = f.get("scale") ? f.get("scale")->non_negative_double() : 1.0;
  const std::int64_t repeat = f.get("repeat") ? f.get("repeat")->int_at_least(1) : 1;
  std::vector<std::pair<double, double>> points =  // (time_s, rate)
      read_time_curve(f, path, "rate", [](double rate) { return rate >= 0 ? "" : "a rate is >= 0 req/s"; });
  for (auto& point : points) point.second *= scale;
  if (period_s && !(*period_s > points.back().first)) {
    f.get("period")->fail("the period must end after the curve's last time, " + std::to_string(points.back().first) + " s");
  }
  std::vector<ArrivalSpec::Stage> one;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double end_s = i + 1 < points.size() ? points[i + 1].first : period_s.value_or(points[i].first);
    if (end_s > points[i].first) one.push_back({end_s - points[i].first, points[i].second});
  }
  if (one.empty()) f.require("path").fail(path + ": give two rows or a period; one row without a period lasts 0 s");
  StageSchedule schedule;
  for (std::int64_t r = 0; r < repeat; ++r) {
    for (const ArrivalSpec::Stage& stage : one) {
      const StageSchedule::Limit broken = schedule.add(stage);
      if (broken == StageSchedule::Limit::arrivals) f.fail("a stage of the curve would send more than 1e15 requests");
      if (broken == StageSchedule::Limit::length) f.fail("the curve lasts longer than 9e9 s (285 years)");
    }
  }
  if (!schedule.sends) f.fail("every rate of the curve is 0: the class would send nothing");
  return schedule.stages;
}

ArrivalSpec parse_arrival(const Field& f) {
  f.expect_map(kArrivalKeys);
  ArrivalSpec spec;
  std::string process = "poisson";
  if (auto p = f.get("process")) {
    process = p->as_string();
    if (!contains_text(kProcesses, process)) {
      p->fail(unknown_choice_message("arrival process", "processes", process, kProcesses));
    }
  }
  spec.process = static_cast<ArrivalSpec::Process>(
      std::find(kProcesses.begin(), kProcesses.end(), process) - kProcesses.begin());
  const std::vector<std::string> used = keys_of_process(spec.process);
  for (const std::string& k : f.keys()) {
    if (!contains_text(used, k)) {
      f.get(k)->fail_at_key("'" + k + "' does not apply to process '" + process +
                            "' (it takes: " + join_choices(used) + ")");
    }
  }
  if (spec.process == ArrivalSpec::Process::closed) {
    const Field concurrency = f.require("concurrency");
    const std::int64_t users = concurrency.int_at_least(1);
    if (users > 1'000'000'000) {
      concurrency.fail("must be at most 1000000000, got " + std::to_string(users));
    }
    spec.concurrency = static_cast<int>(users);
    if (auto think = f.get("think_time")) {
      spec.think_time_s = parse_distribution(*think, DistUnit::seconds);
    }
  } else {
    const std::optional<Field> rate = f.get("rate");
    const std::optional<Field> stages = f.get("stages");
    const std::optional<Field> curve = f.get("rate_curve");
    if ((rate ? 1 : 0) + (stages ? 1 : 0) + (curve ? 1 : 0) > 1) {
      (curve ? curve : stages)->fail_at_key("give one of 'rate' (one rate for the whole run), 'stages' or 'rate_curve'");
    }
    if (!rate && !stages && !curve) {
      f.fail_at_key("missing required key 'rate' (or 'stages', rates in turn, or 'rate_curve', a rate over time from a CSV)");
    }
    if (rate) spec.rate_per_s = rate->positive_double();
    if (stages) spec.stages = parse_stages(*stages);
    if (curve) spec.stages = parse_rate_curve(*curve);
    if (auto cv = f.get("cv")) spec.cv = cv->positive_double();
  }
  return spec;
}

// `rate_scale: {path: scale.csv}`: columns `time_s` (the trace's own time, after speedup,
// rising from 0) and `scale` (> 0): from each row's time on, the trace's arrival rate is
// multiplied by its scale (time_warp.h).
std::vector<RateScalePoint> parse_rate_scale(const Field& f) {
  f.expect_map(kRateScaleKeys);
  const std::string path = existing_data_path(f.require("path"), "rate scale");
  // 0 would stop the trace's clock for good; a thousandfold either way is plenty.
  std::vector<RateScalePoint> points;
  for (const auto& [t, scale] : read_time_curve(f, path, "scale", [](double scale) {
         return scale >= 1e-3 && scale <= 1e3 ? "" : "a scale is from 0.001 to 1000";
       }))
    points.push_back({t, scale});
  return points;
}

TraceSpec parse_trace(const Field& f) {
  f.expect_map(kTraceKeys);
  TraceSpec spec;
  const Field format = f.require("format");
  spec.format = format.as_string();
  if (!contains_text(kTraceFormats, spec.format)) {
    format.fail(unknown_choice_message("trace format", "formats", spec.format, kTraceFormats));
  }
  spec.path = existing_data_path(f.require("path"), "trace file");
  // An inference-perf config is checked now, so its mistakes show at load (its file and line).
  if (spec.format == "inference-perf-config") (void)read_inference_perf_config(spec.path);
  if (auto speedup = f.get("speedup")) {
    if (spec.format == "inference-perf-config") {
      speedup->fail_at_key("'speedup' has no effect with format 'inference-perf-config': the config's stages "
                           "give the rates");
    }
    if (spec.format == "lengths") {
      speedup->fail_at_key(
          "'speedup' has no effect with format 'lengths': arrival times come "
          "from the class's `arrival`");
    }
    spec.speedup = speedup->positive_double();
  }
  if (auto block = f.get("hash_block_tokens")) {
    // Mooncake's ids are 512-token blocks by definition; the project's csv says its own.
    if (spec.format != "csv") {
      block->fail_at_key("'hash_block_tokens' applies to format 'csv' only (mooncake ids cover 512 tokens)");
    }
    spec.hash_block_tokens = block->int_at_least(1);
    if (spec.hash_block_tokens > (1 << 24)) block->fail("must be at most 16777216");
  }
  if (auto stage = f.get("stage")) {
    // A benchmark file's stages are its load levels (benchmark_source.h); no other trace has any.
    if (!is_benchmark_trace_format(spec.format) && spec.format != "inference-perf-config") {
      stage->fail_at_key("'stage' applies to the benchmark formats only (" +
                         join_choices(benchmark_trace_formats()) + ", inference-perf-config)");
    }
    const std::int64_t index = stage->int_at_least(0);
    if (index > 1'000'000) stage->fail("must be at most 1000000");
    spec.stage = static_cast<int>(index);
  }
  if (auto scale = f.get("rate_scale")) {
    if (!contains_text(kTimedTraceFormats, spec.format)) {
      scale->fail_at_key("'rate_scale' moves a trace's own timestamps: formats " + join_choices(kTimedTraceFormats) +
                         " only");
    }
    spec.rate_scale = parse_rate_scale(*scale);
  }
  return spec;
}

// Which of arrival/input/output a class must or must not have, given its trace; `prompt`
// replaces `input`, and structure and sessions need a synthetic class.
void check_sources(const Field& f, const ClassSpec& c) {
  const bool timed_trace = c.trace && c.trace->format != "lengths";
  const bool length_trace = c.trace && c.trace->format == "lengths";
  const std::optional<Field> prompt = f.get("prompt");
  for (const char* key : {"prompt", "session"}) {
    if (const std::optional<Field> k = f.get(key); k && c.trace) {
      k->fail_at_key("'" + std::string(key) + "' cannot be combined with a trace: it describes synthetic requests" +
                     (c.trace->format == "mooncake" || c.trace->format == "csv"
                          ? " (the trace's own prefix hashes and session ids describe its requests)"
                          : ""));
    }
  }
  if (const std::optional<Field> input = f.get("input"); input && prompt) {
    input->fail_at_key("'input' cannot be combined with 'prompt': the prompt's segments give its length");
  }
  for (const char* key : {"arrival", "input", "output"}) {
    if (prompt && std::string(key) == "input") continue;
    const std::optional<Field> present = f.get(key);
    const bool forbidden = timed_trace || (length_trace && std::string(key) != "arrival");
    if (present && forbidden) {
      present->fail_at_key("'" + std::string(key) +
                           "' cannot be combined with a trace of format '" + c.trace->format +
                           "': the trace already gives " +
                           (timed_trace ? "arrival times and lengths" : "the lengths"));
    }
    const bool needed = !c.trace || (length_trace && std::string(key) == "arrival");
    if (!present && needed) {
      f.fail_at_key(c.trace ? "a trace of format 'lengths' needs an 'arrival' process"
                            : "missing required key '" + std::string(key) +
                                  "': a class needs 'arrival', 'input' (or a 'prompt' structure) and "
                                  "'output', or a 'trace'");
    }
  }
}

ClassSpec parse_class(const Field& f) {
  f.expect_map(kClassKeys);
  ClassSpec c;
  if (auto name = f.get("class")) {
    c.name = name->as_string();
    if (c.name.empty()) name->fail("the class name is empty");
  }
  if (auto bench = f.get("vllm_bench_serve")) c.trace = parse_vllm_bench_serve(f, *bench);
  else if (auto trace = f.get("trace")) c.trace = parse_trace(*trace);
  check_sources(f, c);
  if (auto arrival = f.get("arrival")) {
    c.arrival = parse_arrival(*arrival);
    // A session source draws session starts without end (session_source.h).
    if (!c.arrival->stages.empty() && f.has("session")) {
      arrival->get("stages")->fail_at_key("'stages' cannot be combined with 'session' (sessions start at one rate "
                                          "for the whole run: give 'rate' and a stop)");
    }
  }
  if (auto input = f.get("input")) {
    c.input = parse_distribution(*input, DistUnit::tokens);
    // Every request needs at least one prompt token; output 0 is legal (embeddings).
    if (c.input->kind == DistSpec::Kind::fixed && c.input->a < 1) {
      input->fail("a request needs at least 1 input token, got " + format_number(c.input->a));
    }
  }
  if (auto prompt = f.get("prompt")) c.prompt = parse_prompt(*prompt);
  if (auto session = f.get("session")) c.session = parse_session(*session);
  if (auto output = f.get("output")) c.output = parse_distribution(*output, DistUnit::tokens);
  if (auto slo = f.get("slo")) c.slo = parse_slo_block(*slo);
  if (auto priority = f.get("priority")) {
    const std::int64_t p = priority->as_int();
    if (p < -1'000'000 || p > 1'000'000) priority->fail("must be between -1000000 and 1000000");
    c.priority = static_cast<int>(p);
  }
  if (auto model = f.get("model")) {
    c.model = model->as_string();
    if (c.model.empty()) model->fail("the model name is empty");
  }
  if (auto lora = f.get("lora")) c.lora = parse_lora_demand(*lora);
  return c;
}

}  // namespace

std::string arrival_process_name(ArrivalSpec::Process process) {
  return kProcesses[static_cast<std::size_t>(process)];
}

std::vector<ClassSpec> parse_workload(const Field& workload) {
  if (!workload.is_list()) {
    workload.fail("expected a list of classes (each item starts with '- '), got " +
                  workload.describe());
  }
  const std::vector<Field> items = workload.items();
  if (items.empty()) workload.fail("the workload has no classes");
  std::vector<ClassSpec> classes;
  std::set<std::string> names;
  for (const Field& item : items) {
    ClassSpec c = parse_class(item);
    if (!names.insert(c.name).second) {
      const std::optional<Field> name = item.get("class");
      const std::string message =
          "duplicate class name '" + c.name + "'" +
          (name ? "" : " (a class without 'class:' is named 'default'; give each class a name)");
      if (name) name->fail(message);
      item.fail_at_key(message);
    }
    classes.push_back(std::move(c));
  }
  return classes;
}

}  // namespace servesim
