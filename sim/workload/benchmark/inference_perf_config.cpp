// Reads an inference-perf config.yaml into the load it describes (inference_perf_config.h).
// The schema, its defaults and its checks follow inference_perf/config/ (loadgen/config.py,
// datagen/config.py, common.py, apis/config.py, client/modelserver/config.py) and the
// adjustments main.py makes before the run.
#include "sim/workload/benchmark/inference_perf_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "sim/core/errors.h"

namespace servesim {

InferencePerfLength InferencePerfLength::exactly(std::int64_t tokens) {
  // SharedPrefixDataGenerator._resolve_distribution: an int becomes min = max = mean, std 0.
  InferencePerfLength l;
  l.kind = Kind::fixed;
  l.min = l.max = tokens;
  l.mean = static_cast<double>(tokens);
  l.std_dev = 0;
  return l;
}

std::int64_t InferencePerfLoad::requests_of_stage(std::size_t s) const {
  const InferencePerfStage& stage = stages[s];
  if (load_type == LoadType::concurrent) return stage.num_requests;
  // load_generator.py run_stage: num_requests = int(rate * duration) (truncated).
  return static_cast<std::int64_t>(stage.rate_per_s * static_cast<double>(stage.duration_s));
}

std::optional<std::int64_t> InferencePerfLoad::cap_of_stage(std::size_t s) const {
  // load_generator.py _set_worker_concurrency splits concurrency_level over the workers,
  // who share one request queue: at most concurrency_level in flight in all.
  if (load_type == LoadType::concurrent) return stages[s].concurrency;
  // Worker.loop: each worker holds a Semaphore(worker_max_concurrency) from taking a request
  // off the shared queue until it finishes.
  if (num_workers) return *num_workers * worker_max_concurrency;
  return std::nullopt;
}

const char* inference_perf_load_type_name(InferencePerfLoad::LoadType type) {
  switch (type) {
    case InferencePerfLoad::LoadType::constant: return "constant";
    case InferencePerfLoad::LoadType::poisson: return "poisson";
    case InferencePerfLoad::LoadType::concurrent: return "concurrent";
  }
  return "?";
}

const char* inference_perf_data_type_name(InferencePerfLoad::DataType type) {
  switch (type) {
    case InferencePerfLoad::DataType::shared_prefix: return "shared_prefix";
    case InferencePerfLoad::DataType::random: return "random";
    case InferencePerfLoad::DataType::synthetic: return "synthetic";
  }
  return "?";
}

namespace {

std::string config_number(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string describe_length(const InferencePerfLength& l) {
  using K = InferencePerfLength::Kind;
  if (l.kind == K::fixed) return std::to_string(static_cast<std::int64_t>(l.mean));
  if (l.std_dev == 0 && l.kind == K::normal && l.min == l.max) return std::to_string(l.min);
  static const char* names[] = {"fixed", "normal", "skew_normal", "lognormal", "uniform", "poisson"};
  std::string out = std::string(names[static_cast<int>(l.kind)]) + "(";
  if (l.kind != K::uniform) out += "mean " + config_number(l.mean) + ", ";
  if (l.kind != K::uniform && l.kind != K::poisson) out += "std " + config_number(l.std_dev) + ", ";
  return out + std::to_string(l.min) + ".." + std::to_string(l.max) + ")";
}

}  // namespace

std::string describe_inference_perf_load(const InferencePerfLoad& load) {
  std::string out = std::string(inference_perf_load_type_name(load.load_type)) + ", " +
                    std::to_string(load.stages.size()) + (load.stages.size() == 1 ? " stage (" : " stages (");
  for (std::size_t s = 0; s < load.stages.size(); ++s) {
    const InferencePerfStage& st = load.stages[s];
    if (s > 0) out += ", ";
    out += load.load_type == InferencePerfLoad::LoadType::concurrent
               ? std::to_string(st.num_requests) + " requests at concurrency " + std::to_string(st.concurrency)
               : config_number(st.rate_per_s) + " req/s x " + std::to_string(st.duration_s) + " s";
  }
  out += "), interval " + config_number(load.interval_s) + " s";
  if (const auto cap = load.cap_of_stage(0); cap && load.load_type != InferencePerfLoad::LoadType::concurrent)
    out += ", at most " + std::to_string(*cap) + " in flight";
  out += "; " + std::string(inference_perf_data_type_name(load.data_type)) + ": ";
  if (load.data_type == InferencePerfLoad::DataType::shared_prefix) {
    out += std::to_string(load.num_groups) + " groups x " + std::to_string(load.prompts_per_group) +
           " prompts, system prompt " + describe_length(load.system_prompt) + ", question " +
           describe_length(load.question) + ", output " + describe_length(load.output) + " tokens";
  } else {
    out += "input " + describe_length(load.input_dist) + ", output " + describe_length(load.output_dist) + " tokens";
  }
  return out;
}

namespace {

// Caps that keep counts and times inside int64 nanoseconds.
constexpr double kMaxStageRequests = 1e12;
constexpr std::int64_t kMaxStageSeconds = 1'000'000'000;

// One YAML value with its dotted key, for errors that point at the file's line.
class Cursor {
 public:
  Cursor(const std::string& file, YAML::Node node, std::string key, int key_line)
      : file_(&file), node_(std::move(node)), key_(std::move(key)), key_line_(key_line) {}

  const std::string& key() const { return key_; }
  const YAML::Node& node() const { return node_; }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }
  int line() const {
    const int l = node_.Mark().line;
    return l >= 0 && !is_null() ? l + 1 : key_line_;
  }

  [[noreturn]] void fail(const std::string& message) const { throw ConfigError(*file_, line(), key_, message); }

  // A mapping whose keys are all in `valid`; the first other key fails at its line.
  void expect_map(const std::vector<std::string>& valid) const {
    if (!node_.IsMap()) fail("expected a mapping");
    for (const auto& kv : node_) {
      const std::string k = kv.first.Scalar();
      if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
        std::string list;
        for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
        throw ConfigError(*file_, kv.first.Mark().line + 1, child_key(k),
                          "unknown key '" + k + "' (inference-perf's keys here: " + list + ")");
      }
    }
  }
  std::optional<Cursor> get(const std::string& name) const {
    if (!node_.IsMap()) return std::nullopt;
    for (const auto& kv : node_) {
      if (kv.first.Scalar() == name) return Cursor(*file_, kv.second, child_key(name), kv.first.Mark().line + 1);
    }
    return std::nullopt;
  }
  // Present and not null (a key written `foo:` or `foo: null` is inference-perf's None).
  std::optional<Cursor> get_set(const std::string& name) const {
    std::optional<Cursor> c = get(name);
    if (c && c->is_null()) return std::nullopt;
    return c;
  }
  std::vector<Cursor> items() const {
    if (!node_.IsSequence()) fail("expected a list");
    std::vector<Cursor> out;
    for (std::size_t i = 0; i < node_.size(); ++i) out.emplace_back(*file_, node_[i], child_key(std::to_string(i)), line());
    return out;
  }

  std::string as_string() const {
    if (!node_.IsScalar()) fail("expected a text value");
    return node_.Scalar();
  }
  double as_double() const {
    if (!node_.IsScalar()) fail("expected a number");
    try {
      const double v = node_.as<double>();
      if (std::isfinite(v)) return v;
    } catch (const YAML::Exception&) {
    }
    fail("expected a finite number, got '" + node_.Scalar() + "'");
  }
  std::int64_t as_int() const {
    if (!node_.IsScalar()) fail("expected an integer");
    try {
      return node_.as<std::int64_t>();
    } catch (const YAML::Exception&) {
    }
    // pydantic's int takes a float without a fraction (30.0).
    try {
      const double v = node_.as<double>();
      if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
    } catch (const YAML::Exception&) {
    }
    fail("expected an integer, got '" + node_.Scalar() + "'");
  }
  bool as_bool() const {
    if (!node_.IsScalar()) fail("expected true or false");
    try {
      return node_.as<bool>();
    } catch (const YAML::Exception&) {
    }
    fail("expected true or false, got '" + node_.Scalar() + "'");
  }

 private:
  std::string child_key(const std::string& name) const { return key_.empty() ? name : key_ + "." + name; }

  const std::string* file_;
  YAML::Node node_;
  std::string key_;
  int key_line_;
};

// config/common.py Distribution, with its model validator.
InferencePerfLength parse_length(const Cursor& c) {
  c.expect_map({"min", "max", "mean", "std_dev", "total_count", "type", "variance", "skew"});
  InferencePerfLength l;
  if (auto v = c.get_set("min")) l.min = v->as_int();
  if (auto v = c.get_set("max")) l.max = v->as_int();
  if (auto v = c.get_set("mean")) l.mean = v->as_double();
  if (auto v = c.get_set("std_dev")) l.std_dev = v->as_double();
  if (auto v = c.get_set("skew")) l.skew = v->as_double();
  // total_count: main.py raises it to the most requests of any stage + 1, which is all a
  // run ever indexes (requests restart at index 0 each stage), so it changes nothing here.
  if (auto v = c.get_set("total_count")) (void)v->as_int();
  if (auto v = c.get_set("type")) {
    const std::string t = v->as_string();
    using K = InferencePerfLength::Kind;
    if (t == "normal") l.kind = K::normal;
    else if (t == "skew_normal") l.kind = K::skew_normal;
    else if (t == "lognormal") l.kind = K::lognormal;
    else if (t == "uniform") l.kind = K::uniform;
    else if (t == "poisson") l.kind = K::poisson;
    else if (t == "fixed") l.kind = K::fixed;
    else v->fail("unknown distribution type '" + t + "' (inference-perf's: normal, skew_normal, lognormal, uniform, poisson, fixed)");
  }
  if (auto v = c.get_set("variance")) {
    // validate_distribution refuses variance with std_dev > 0, and std_dev defaults to 200:
    // variance is only accepted beside an explicit std_dev: 0.
    const double variance = v->as_double();
    if (l.std_dev > 0) v->fail("inference-perf refuses 'variance' together with std_dev > 0 (std_dev defaults to 200: write std_dev: 0 with variance)");
    if (variance < 0) v->fail("variance cannot be negative");
    l.std_dev = std::sqrt(variance);
  }
  // A fixed length is int(mean), unclipped (np.full): a negative one is no length.
  if (l.kind == InferencePerfLength::Kind::fixed && l.mean < 0) c.get("mean")->fail("a fixed length cannot be negative");
  if (l.min > l.max) c.fail("min (" + std::to_string(l.min) + ") cannot be greater than max (" + std::to_string(l.max) + ")");
  if (l.std_dev < 0) c.get("std_dev")->fail("std_dev cannot be negative");
  return l;
}

// `system_prompt_len: 100` or `system_prompt_len: {mean: ..., ...}` (SharedPrefix's
// Union[int, Distribution]).
InferencePerfLength parse_int_or_length(const Cursor& c) {
  if (c.node().IsMap()) return parse_length(c);
  const std::int64_t tokens = c.as_int();
  if (tokens < 0) c.fail("a length cannot be negative");
  return InferencePerfLength::exactly(tokens);
}

// Lengths for the random and synthetic generators go through generate_distribution
// (utils/numeric/distribution/utils.py), which knows fewer types than the shared-prefix
// sampler and refuses a normal mean outside [min, max].
void check_io_length(const Cursor& c, const InferencePerfLength& l) {
  using K = InferencePerfLength::Kind;
  if (l.kind == K::skew_normal || l.kind == K::poisson) {
    c.get("type")->fail("inference-perf's random and synthetic generators take normal, lognormal, uniform or fixed "
                        "(generate_distribution raises for this type)");
  }
  if (l.kind == K::normal && (l.mean < static_cast<double>(l.min) || l.mean > static_cast<double>(l.max))) {
    c.fail("the mean lies outside [min, max], which inference-perf's generate_distribution refuses");
  }
}

void parse_shared_prefix(const Cursor& c, InferencePerfLoad& load) {
  c.expect_map({"num_groups", "num_unique_system_prompts", "num_prompts_per_group", "num_users_per_system_prompt",
                "system_prompt_len", "question_len", "output_len", "seed", "question_distribution",
                "output_distribution", "enable_multi_turn_chat", "multimodal"});
  // Field aliases: AliasChoices("num_unique_system_prompts", "num_groups") and
  // ("num_users_per_system_prompt", "num_prompts_per_group").
  auto count = [&](const char* name, const char* alias, std::int64_t& out) {
    std::optional<Cursor> a = c.get_set(name), b = c.get_set(alias);
    if (a && b) b->fail(std::string("give '") + name + "' or its alias '" + alias + "', not both");
    if (auto v = a ? a : b) {
      out = v->as_int();
      // With no prompts get_data yields nothing and the stage's next() fails.
      if (out < 1) v->fail("must be at least 1");
    }
  };
  count("num_groups", "num_unique_system_prompts", load.num_groups);
  count("num_prompts_per_group", "num_users_per_system_prompt", load.prompts_per_group);
  if (load.num_groups > kMaxInferencePerfPrompts / load.prompts_per_group) {
    c.fail("num_groups x prompts per group exceeds " + std::to_string(kMaxInferencePerfPrompts) + " prompts");
  }
  if (auto v = c.get_set("system_prompt_len")) load.system_prompt = parse_int_or_length(*v);
  // The legacy *_distribution keys apply when the *_len is a bare integer
  // (_resolve_distribution); both as distributions is refused (validate_no_ambiguous_distributions).
  auto with_legacy = [&](const char* len_key, const char* legacy_key, InferencePerfLength& out) {
    std::optional<Cursor> len = c.get_set(len_key), legacy = c.get_set(legacy_key);
    if (len && len->node().IsMap() && legacy) {
      legacy->fail(std::string("inference-perf refuses both an inline distribution on '") + len_key + "' and '" +
                   legacy_key + "'");
    }
    if (len) out = parse_int_or_length(*len);
    if (legacy) out = parse_length(*legacy);
  };
  with_legacy("question_len", "question_distribution", load.question);
  with_legacy("output_len", "output_distribution", load.output);
  // The seed orders numpy's PCG64 draws, interleaved with draws whose number depends on the
  // tokenizer; servesim draws the same distributions from its own streams instead.
  if (auto v = c.get_set("seed")) (void)v->as_int();
  if (auto v = c.get_set("enable_multi_turn_chat"); v && v->as_bool()) {
    v->fail("multi-turn shared_prefix chats (each group's prompts as turns of one conversation) are not reproduced; "
            "set it false");
  }
  if (auto v = c.get_set("multimodal")) v->fail("multimodal prompts are not reproduced");
}

void parse_data(const Cursor& c, InferencePerfLoad& load) {
  c.expect_map({"type", "path", "corpus_file_path", "input_distribution", "output_distribution", "shared_prefix",
                "multimodal", "trace", "otel_trace_replay", "weka_trace_replay", "conversation_replay",
                "visionarena", "use_chat_template"});
  const std::string supported = "shared_prefix, random, synthetic";
  // DataConfig.type defaults to mock, which sends "1 2 3 <i>" and no max_tokens.
  const std::optional<Cursor> type = c.get_set("type");
  if (!type) c.fail("data.type is absent, so inference-perf sends its mock prompts; servesim reproduces data.type " + supported);
  const std::string t = type->as_string();
  if (t == "shared_prefix") load.data_type = InferencePerfLoad::DataType::shared_prefix;
  else if (t == "random") load.data_type = InferencePerfLoad::DataType::random;
  else if (t == "synthetic") load.data_type = InferencePerfLoad::DataType::synthetic;
  else {
    type->fail("data type '" + t + "' is not reproduced" +
               (t == "shareGPT" || t == "cnn_dailymail" || t == "infinity_instruct" || t == "billsum_conversations" ||
                        t == "visionarena"
                    ? " (it needs the dataset's prompts)"
                    : "") +
               "; supported: " + supported);
  }
  for (const char* key : {"path", "multimodal", "trace", "otel_trace_replay", "weka_trace_replay",
                          "conversation_replay", "visionarena"}) {
    if (auto v = c.get_set(key)) v->fail(std::string("'") + key + "' is not reproduced (supported data: type " + supported + " and their lengths)");
  }
  if (auto v = c.get_set("use_chat_template"); v && v->as_bool()) {
    v->fail("the tokenizer's chat template around each prompt is not reproduced; set it false");
  }
  // corpus_file_path: the text synthetic prompts are cut from; they share no prefix either way.
  if (auto v = c.get_set("corpus_file_path")) (void)v->as_string();

  const bool is_shared = load.data_type == InferencePerfLoad::DataType::shared_prefix;
  const std::optional<Cursor> sp = c.get_set("shared_prefix");
  const std::optional<Cursor> in = c.get_set("input_distribution");
  const std::optional<Cursor> out = c.get_set("output_distribution");
  if (is_shared) {
    // main.py: shared_prefix requires the block; DataGenerator refuses IO distributions.
    if (!sp) c.fail("data.type shared_prefix requires 'shared_prefix' (inference-perf refuses it without)");
    if (in || out) (in ? in : out)->fail("inference-perf's shared_prefix generator takes its lengths from 'shared_prefix'");
    parse_shared_prefix(*sp, load);
    return;
  }
  if (sp) sp->fail("'shared_prefix' is refused by the " + t + " generator (is_shared_prefix_supported is false)");
  if (!in) c.fail("data.type " + t + " requires 'input_distribution'");
  if (!out) c.fail("data.type " + t + " requires 'output_distribution'");
  load.input_dist = parse_length(*in);
  load.output_dist = parse_length(*out);
  check_io_length(*in, load.input_dist);
  check_io_length(*out, load.output_dist);
}

void parse_load(const Cursor& c, InferencePerfLoad& load) {
  c.expect_map({"type", "interval", "stages", "sweep", "num_workers", "worker_max_concurrency",
                "worker_max_tcp_connections", "trace", "circuit_breakers", "request_timeout", "lora_traffic_split",
                "base_seed"});
  if (auto v = c.get_set("type")) {
    const std::string t = v->as_string();
    if (t == "constant") load.load_type = InferencePerfLoad::LoadType::constant;
    else if (t == "poisson") load.load_type = InferencePerfLoad::LoadType::poisson;
    else if (t == "concurrent") load.load_type = InferencePerfLoad::LoadType::concurrent;
    else v->fail("load type '" + t + "' is not reproduced; supported: constant, poisson, concurrent");
  }
  if (auto v = c.get_set("interval")) {
    load.interval_s = v->as_double();
    if (load.interval_s < 0) v->fail("the interval between stages cannot be negative");
  }
  if (auto v = c.get_set("num_workers")) {
    load.num_workers = v->as_int();
    if (*load.num_workers < 1) v->fail("must be at least 1 (num_workers 0 is the tool's single-process mode, not reproduced)");
  }
  if (auto v = c.get_set("worker_max_concurrency")) {
    load.worker_max_concurrency = v->as_int();
    if (load.worker_max_concurrency < 1) v->fail("must be at least 1");
  }
  if (auto v = c.get_set("worker_max_tcp_connections")) (void)v->as_int();
  if (auto v = c.get_set("base_seed")) (void)v->as_int();
  if (auto v = c.get_set("sweep")) v->fail("a sweep probes the real server for its saturation rate first; not reproduced (give stages)");
  if (auto v = c.get_set("trace")) v->fail("trace_replay timing is not reproduced (supported load types: constant, poisson, concurrent)");
  if (auto v = c.get_set("lora_traffic_split")) v->fail("LoRA traffic splits are not reproduced");
  if (auto v = c.get_set("request_timeout")) {
    v->fail("a client timeout that abandons requests in flight is not reproduced; remove it (a pool's admission "
            "timeout is the nearest servesim setting)");
  }
  if (auto v = c.get_set("circuit_breakers"); v && !(v->node().IsSequence() && v->node().size() == 0)) {
    v->fail("circuit breakers end a stage on the real server's errors; not reproduced");
  }

  const std::optional<Cursor> stages = c.get_set("stages");
  if (!stages || stages->node().size() == 0) c.fail("give at least one stage under load.stages");
  const bool concurrent = load.load_type == InferencePerfLoad::LoadType::concurrent;
  for (const Cursor& item : stages->items()) {
    InferencePerfStage s;
    s.line = item.line();
    // StandardLoadStage (rate > 0, duration int > 0) or ConcurrentLoadStage (num_requests,
    // concurrency_level, both > 0); LoadConfig's validator matches them to the load type.
    if (concurrent) {
      item.expect_map({"num_requests", "concurrency_level", "rate", "duration"});
      for (const char* k : {"rate", "duration"})
        if (auto v = item.get_set(k)) v->fail(std::string("'") + k + "' is set by inference-perf itself for concurrent stages");
      const std::optional<Cursor> n = item.get_set("num_requests"), level = item.get_set("concurrency_level");
      if (!n) item.fail("a concurrent stage needs num_requests");
      if (!level) item.fail("a concurrent stage needs concurrency_level");
      s.num_requests = n->as_int();
      if (s.num_requests < 1 || static_cast<double>(s.num_requests) > kMaxStageRequests) n->fail("must be from 1 to 1e12");
      s.concurrency = level->as_int();
      if (s.concurrency < 1 || s.concurrency > 1'000'000'000) level->fail("must be from 1 to 1000000000");
    } else {
      item.expect_map({"rate", "duration", "num_requests", "concurrency_level"});
      for (const char* k : {"num_requests", "concurrency_level"})
        if (auto v = item.get_set(k)) v->fail(std::string("'") + k + "' should not be set for CONSTANT/POISSON load types");
      const std::optional<Cursor> rate = item.get_set("rate"), duration = item.get_set("duration");
      if (!rate) item.fail("a stage needs rate");
      if (!duration) item.fail("a stage needs duration");
      s.rate_per_s = rate->as_double();
      if (!(s.rate_per_s > 0)) rate->fail("must be > 0");
      s.duration_s = duration->as_int();
      if (s.duration_s < 1 || s.duration_s > kMaxStageSeconds) duration->fail("must be whole seconds from 1 to 1e9");
      if (s.rate_per_s * static_cast<double>(s.duration_s) > kMaxStageRequests) rate->fail("the stage would send more than 1e12 requests");
    }
    load.stages.push_back(s);
  }
}

}  // namespace

InferencePerfLoad read_inference_perf_config(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(path, 0, "", "cannot read the file");
  } catch (const YAML::Exception& e) {
    throw ConfigError(path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "not valid YAML: " + e.msg);
  }
  const Cursor top(path, root, "", 1);
  if (!root.IsMap()) top.fail("expected inference-perf's config: a mapping with load, data, api, ...");
  top.expect_map({"api", "data", "load", "metrics", "report", "storage", "server", "tokenizer", "circuit_breakers"});
  InferencePerfLoad load;
  load.path = path;
  if (auto api = top.get_set("api")) {
    // Only `type` changes the prompt: chat wraps it in the model's chat template.
    if (!api->node().IsMap()) api->fail("expected a mapping");
    if (auto t = api->get_set("type"); t && t->as_string() != "completion") {
      t->fail("api type '" + t->as_string() + "' is not reproduced (the chat template adds tokens around each prompt); "
              "supported: completion");
    }
  }
  if (auto server = top.get_set("server")) {
    if (!server->node().IsMap()) server->fail("expected a mapping");
    // ModelServerClientConfig.ignore_eos defaults to true: outputs run to max_tokens.
    if (auto v = server->get_set("ignore_eos"); v && !v->as_bool()) {
      v->fail("with ignore_eos false the model decides where outputs end; servesim reproduces ignore_eos true (the default)");
    }
  }
  const std::optional<Cursor> data = top.get_set("data");
  if (!data) top.fail("the config has no 'data', so inference-perf sends its mock prompts; servesim reproduces data.type shared_prefix, random, synthetic");
  parse_data(*data, load);
  const std::optional<Cursor> l = top.get_set("load");
  if (!l) top.fail("the config has no 'load' stages");
  parse_load(*l, load);
  return load;
}

}  // namespace servesim
