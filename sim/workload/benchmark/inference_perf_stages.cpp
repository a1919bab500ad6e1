// The stage files and the load type beside an inference-perf per-request report.
#include "sim/workload/benchmark/inference_perf_stages.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/json_fields.h"

namespace fs = std::filesystem;

namespace servesim {
namespace {

const char kPrefix[] = "stage_";
const char kSuffix[] = "_lifecycle_metrics.json";

fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// N for "stage_N_lifecycle_metrics.json", nothing for any other name (the per-adapter
// "adapter_X_stage_N_..." reports included).
std::optional<int> stage_id_of(const std::string& name) {
  const std::string prefix = kPrefix, suffix = kSuffix;
  if (name.size() <= prefix.size() + suffix.size()) return std::nullopt;
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoi(digits);
}

InferencePerfStageFile read_stage_file(int stage_id, const std::string& path) {
  InferencePerfStageFile stage;
  stage.stage_id = stage_id;
  stage.document = std::make_shared<const JsonDocument>(path);
  const InferencePerfLoadSummary load =
      read_inference_perf_load_summary(JsonField(*stage.document).at("load_summary"));
  stage.count = load.count;
  stage.requested_rate_per_s = load.requested_rate_per_s;
  stage.concurrency = load.concurrency;
  stage.send_duration_s = load.send_duration_s;
  return stage;
}

}  // namespace

InferencePerfLoadSummary read_inference_perf_load_summary(const JsonField& load) {
  InferencePerfLoadSummary out;
  out.count = load.at("count").count(1);
  if (const auto rate = load.find("requested_rate")) out.requested_rate_per_s = rate->positive();
  if (const auto concurrency = load.find("concurrency")) {
    const std::int64_t n = concurrency->count(1);
    if (n > 1'000'000'000) concurrency->fail("is more than 1e9 requests in flight");
    out.concurrency = static_cast<int>(n);
  }
  if (const auto span = load.find("send_duration")) {
    out.send_duration_s = span->number();
    if (*out.send_duration_s < 0) span->fail("must be >= 0");
  }
  return out;
}

std::vector<InferencePerfStageFile> read_inference_perf_stage_files(const std::string& per_request_path) {
  std::set<std::pair<int, std::string>> found;  // sorted by stage id
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder_of(per_request_path), ec)) {
    if (!entry.is_regular_file(ec)) continue;
    if (const auto id = stage_id_of(entry.path().filename().string())) found.emplace(*id, entry.path().string());
  }
  std::vector<InferencePerfStageFile> stages;
  for (const auto& [id, path] : found) stages.push_back(read_stage_file(id, path));
  return stages;
}

std::optional<std::string> read_inference_perf_load_type(const std::string& per_request_path) {
  const fs::path path = folder_of(per_request_path) / "config.yaml";
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(path.string(), e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "not valid YAML: " + e.msg);
  }
  // Read through a const node: a non-const one's operator[] throws YAML::BadSubscript on a
  // scalar (`load: 5`), which is no ConfigError.
  const YAML::Node& config = root;
  if (!config.IsMap() || !config["load"]) return "constant";
  const YAML::Node load = config["load"];
  if (!load.IsMap()) {
    throw ConfigError(path.string(), load.Mark().line >= 0 ? load.Mark().line + 1 : 0, "load",
                      "expected a map (with type and stages)");
  }
  if (!load["type"]) return "constant";
  const YAML::Node type = load["type"];
  const int line = type.Mark().line >= 0 ? type.Mark().line + 1 : 0;
  static const std::set<std::string> known = {"constant", "poisson", "concurrent", "trace_replay", "trace_session_replay"};
  if (!type.IsScalar() || known.count(type.Scalar()) == 0) {
    throw ConfigError(path.string(), line, "load.type",
                      "unknown load type (valid: constant, poisson, concurrent, trace_replay, trace_session_replay)");
  }
  return type.Scalar();
}

}  // namespace servesim
