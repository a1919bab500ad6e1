#include "sim/scenario/engine_parse.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "sim/engine/policy_names.h"
#include "sim/model/shard.h"
#include "sim/scenario/lora_parse.h"
#include "sim/scenario/data_paths.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/model_refs.h"
#include "sim/scenario/resource_paths.h"
#include "sim/scenario/spec_yaml.h"
#include "sim/core/units.h"

namespace servesim {

namespace {

const std::vector<std::string> kEngineKeys = {
    "preset",       "policy",          "max_num_seqs",           "max_batched_tokens",
    "block_size",   "prefix_cache",    "kv_cache_tokens",        "gpu_memory_utilization",
    "speculative",  "prefill_chunk_tokens", "decode_target_batch", "preempt_lower_priority",
    "watermark",    "kv_admission",    "preemption_mode",        "swap_space_gb",
    "overheads",    "on_context_overflow",    "version",                "cuda_graphs",
    "async_scheduling", "kv_memory_rule", "kv_offload", "power_cap_w", "lora"};
const std::vector<std::string> kKvOffloadKeys = {"cpu_gib", "disk_gib", "disk_gb_s", "backend", "shared", "network_gb_s", "store_node"};
const std::vector<std::string> kCostModels = {"roofline", "kernels", "constant", "linear", "table"};
const std::vector<std::string> kOverheadKeys = {"per_step", "per_request", "per_token", "frontend"};
const std::vector<std::string> kFrontendKeys = {"per_request", "per_prompt_token", "tokenizer_batch_wait",
                                                "per_streamed_token"};
const std::vector<std::string> kKvMemoryRules = {"flat", "vllm", "sglang", "trtllm"};
// cuda_graph_max_batch while `cuda_graphs: {max_batch: auto}` waits for max_num_seqs and
// max_batched_tokens to be final (preset and overrides merged).
constexpr int kCudaGraphAuto = -1;
const std::vector<std::string> kSpeculativeKeys = {"method", "draft", "k", "acceptance"};

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int int_in_range(const Field& f, std::int64_t lowest, std::int64_t highest);

// A release such as 0.14.0, 0.5.14 or 1.3.0rc20: starts with a digit, then digits,
// letters, '.', '+' or '-'.
std::string engine_version(const Field& f) {
  const std::string v = f.as_string();
  bool ok = !v.empty() && v.size() <= 40 && v[0] >= '0' && v[0] <= '9';
  for (char c : v) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-');
  if (!ok) f.fail("expected an engine release such as \"0.14.0\", got '" + v + "'");
  return v;
}

// `cuda_graphs: off` (or false), `{max_batch: N}`, or `{max_batch: auto}` (vLLM's rule,
// resolved once max_num_seqs and max_batched_tokens are final).
int parse_cuda_graphs(const Field& f) {
  if (f.is_scalar() && !f.is_null()) {
    if (f.as_bool()) f.fail("cuda_graphs needs a mapping such as {max_batch: 512} or {max_batch: auto}; 'off' disables them");
    return 0;
  }
  if (!f.is_map()) f.fail("expected off or a mapping like {max_batch: 512}, got " + f.describe());
  f.expect_map({"max_batch"});
  const Field m = f.require("max_batch");
  if (m.is_scalar() && m.node().Scalar() == "auto") return kCudaGraphAuto;
  return int_in_range(m, 0, 1 << 20);
}

int int_in_range(const Field& f, std::int64_t lowest, std::int64_t highest) {
  const std::int64_t v = f.int_at_least(lowest);
  if (v > highest) {
    f.fail("must be at most " + std::to_string(highest) + ", got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

// One of `choices`, with a did-you-mean on a typo.
std::string choice(const Field& f, const char* what, const char* plural,
                   const std::vector<std::string>& choices) {
  const std::string v = f.as_string();
  if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
    f.fail(unknown_choice_message(what, plural, v, choices));
  }
  return v;
}

double fraction(const Field& f) {
  const double v = f.as_double();
  if (!(v >= 0 && v <= 1)) f.fail("must be a fraction in [0, 1], got " + f.node().Scalar());
  return v;
}

Tick non_negative_duration(const Field& f) {
  const Tick v = f.as_duration_ns();
  if (v < 0) f.fail("must not be negative, got " + f.node().Scalar());
  return v;
}

// `frontend: 1ms` (the whole front end, per request: a preset's other parts go), or
// `frontend: {per_request: 700us, per_prompt_token: 1.2us, tokenizer_batch_wait: 2ms}`, each
// key replacing only its own part; the per-token part prices tokenising the prompt, the
// batch wait the tokenizer's micro-batch window (docs/engine.md, "Front-end latency").
void parse_frontend(const Field& f, EngineOverheads& o) {
  if (!f.is_map()) {
    o.frontend_ns = non_negative_duration(f);
    o.frontend_per_prompt_token_ns = 0;
    o.frontend_tokenizer_batch_wait_ns = 0;
    o.frontend_per_streamed_token_ns = 0;
    return;
  }
  f.expect_map(kFrontendKeys);
  if (auto d = f.get("per_request")) o.frontend_ns = non_negative_duration(*d);
  if (auto d = f.get("per_prompt_token")) o.frontend_per_prompt_token_ns = non_negative_duration(*d);
  if (auto d = f.get("tokenizer_batch_wait")) o.frontend_tokenizer_batch_wait_ns = non_negative_duration(*d);
  if (auto d = f.get("per_streamed_token")) o.frontend_per_streamed_token_ns = non_negative_duration(*d);
}

// `acceptance: 0.7`, or per class: `{chat: 0.8, code: 0.6, default: 0.7}`.
void parse_acceptance(const Field& f, SpeculativeConfig& spec, const std::vector<std::string>& classes) {
  if (!f.is_map()) {
    spec.acceptance = fraction(f);
    spec.acceptance_by_class.clear();
    return;
  }
  std::vector<std::string> keys = classes;
  keys.push_back("default");
  f.expect_map(keys);
  const std::optional<Field> fallback = f.get("default");
  if (fallback) spec.acceptance = fraction(*fallback);
  spec.acceptance_by_class.assign(classes.size(), spec.acceptance);
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if (auto v = f.get(classes[c])) {
      spec.acceptance_by_class[c] = fraction(*v);
    } else if (!fallback) {
      f.fail_at_key("no acceptance rate for class '" + classes[c] + "'; give one or a 'default'");
    }
  }
}

// `{draft: MODEL, k: 4, acceptance: 0.7}` or `{method: ngram, k: 4, acceptance: 0.5}`.
SpeculativeConfig parse_speculative(const Field& f, const std::vector<std::string>& classes) {
  f.expect_map(kSpeculativeKeys);
  SpeculativeConfig spec;
  spec.enabled = true;
  const std::optional<Field> draft = f.get("draft");
  if (auto m = f.get("method")) {
    spec.method = choice(*m, "speculative method", "methods", {"draft", "ngram"});
  }
  if (spec.method == "draft") {
    if (!draft) f.fail_at_key("method 'draft' needs 'draft: MODEL' (or use method: ngram)");
    spec.draft_model = load_model_for(*draft);
  } else if (draft) {
    draft->fail_at_key("'draft' does not apply to method 'ngram' (it proposes from the prompt)");
  }
  if (auto k = f.get("k")) spec.k = int_in_range(*k, 1, 64);
  if (auto a = f.get("acceptance")) parse_acceptance(*a, spec, classes);
  return spec;
}

int parse_block_size(const Field& f) {
  const int block_size = int_in_range(f, 1, 1 << 20);
  if (!is_power_of_two(block_size)) {
    f.fail("block_size must be a power of two (1, 2, 4, ..., 16, 32), got " + std::to_string(block_size));
  }
  return block_size;
}

// A fraction in (0, 1], or `auto`: the engine's own default, which only SGLang derives
// (check_engine); 0 stands for auto.
double parse_gpu_memory_utilization(const Field& f) {
  if (f.is_scalar() && f.node().Scalar() == "auto") return 0.0;
  const double v = f.as_double();
  if (!(v > 0 && v <= 1)) f.fail("must be in (0, 1] or auto, got " + f.node().Scalar());
  return v;
}

double parse_watermark(const Field& f) {
  const double v = f.as_double();
  if (!(v >= 0 && v < 1)) f.fail("must be in [0, 1), got " + f.node().Scalar());
  return v;
}

// kv_offload's tiers: CPU and disk sizes, the disk's read bandwidth and the backend. At
// least one tier, and a disk tier and its bandwidth come together.
void parse_offload_tiers(const Field& f, KvOffloadConfig& o) {
  if (auto g = f.get("cpu_gib")) o.cpu_bytes = g->non_negative_double() * kBytesPerGiB;
  if (auto g = f.get("disk_gib")) o.disk_bytes = g->non_negative_double() * kBytesPerGiB;
  if (auto g = f.get("disk_gb_s")) o.disk_bytes_per_s = g->positive_double() * 1e9;
  if (auto g = f.get("backend"))
    o.backend = choice(*g, "KV offload backend", "backends", {"native", "lmcache"}) == "lmcache"
                    ? KvOffloadBackend::lmcache
                    : KvOffloadBackend::native;
  if (!o.enabled()) f.fail("gives no tier: set cpu_gib or disk_gib above 0");
  if (o.disk_bytes > 0 && !f.has("disk_gb_s"))
    f.get("disk_gib")->fail("a disk tier needs its read bandwidth: disk_gb_s (e.g. an NVMe drive's datasheet figure)");
  if (f.has("disk_gb_s") && !(o.disk_bytes > 0)) f.get("disk_gb_s")->fail_at_key("only a disk tier (disk_gib > 0) uses it");
}

// kv_offload's shared store: reached over the network, priced either by the replica's
// NIC bandwidth or by the topology's paths to the store's node (one of the two).
void parse_offload_shared_store(const Field& f, KvOffloadConfig& o) {
  if (auto g = f.get("shared")) o.shared = g->as_bool();
  if (auto g = f.get("network_gb_s")) {
    if (!o.shared) g->fail_at_key("only a shared store (shared: true) is reached over the network");
    o.network_bytes_per_s = g->positive_double() * 1e9;
  }
  if (auto g = f.get("store_node")) {
    if (!o.shared) g->fail_at_key("only a shared store (shared: true) sits on a node of the cluster topology");
    if (f.has("network_gb_s")) g->fail_at_key("give network_gb_s or store_node, not both: the topology's paths price the network");
    o.store_node = g->as_string();
    if (o.store_node.empty()) g->fail("names no node");
  }
  if (o.shared && !f.has("network_gb_s") && !f.has("store_node"))
    f.get("shared")->fail("a shared store is reached over the network: give network_gb_s (the replica's NIC "
                          "bandwidth) or store_node (a node of cluster.topology)");
}

void parse_kv_offload(const Field& f, KvOffloadConfig& o) {
  f.expect_map(kKvOffloadKeys);
  parse_offload_tiers(f, o);
  parse_offload_shared_store(f, o);
}

// Each key replaces only its own part of the overheads a preset gave.
void parse_engine_overheads(const Field& f, EngineOverheads& o) {
  f.expect_map(kOverheadKeys);
  if (auto d = f.get("per_step")) o.per_step_ns = non_negative_duration(*d);
  if (auto d = f.get("per_request")) o.per_request_ns = non_negative_duration(*d);
  if (auto d = f.get("per_token")) o.per_token_ns = non_negative_duration(*d);
  if (auto d = f.get("frontend")) parse_frontend(*d, o);
}

KvMemoryRule parse_kv_memory_rule(const Field& f) {
  const std::string rule = choice(f, "KV memory rule", "rules", kKvMemoryRules);
  return rule == "vllm"     ? KvMemoryRule::vllm
         : rule == "sglang" ? KvMemoryRule::sglang
         : rule == "trtllm" ? KvMemoryRule::trtllm
                            : KvMemoryRule::flat;
}

// `speculative: off` (or false) turns off what a preset or the file turned on, so
// `--set ...engine.speculative=off` gives the plain baseline of a speculative scenario.
SpeculativeConfig speculative_or_off(const Field& f, const std::vector<std::string>& classes) {
  if (f.is_scalar() && !f.is_null()) {
    if (f.as_bool()) f.fail("speculative needs a mapping such as {draft: MODEL, k: 4, acceptance: 0.7}; 'off' disables it");
    return SpeculativeConfig{};
  }
  return parse_speculative(f, classes);
}

// Reads every key of one engine mapping (a preset file's, or the scenario's) onto `e`.
// The keys are read in this order, so the first bad one is the one reported.
void apply_engine_keys(const Field& f, EngineConfig& e, const std::vector<std::string>& classes) {
  if (auto policy = f.get("policy")) {
    e.policy = choice(*policy, "scheduling policy", "policies", scheduling_policy_names());
  }
  if (auto v = f.get("max_num_seqs")) e.max_num_seqs = int_in_range(*v, 1, 1'000'000);
  if (auto v = f.get("max_batched_tokens")) e.max_batched_tokens = v->int_at_least(1);
  if (auto v = f.get("block_size")) e.block_size = parse_block_size(*v);
  if (auto v = f.get("prefix_cache")) e.prefix_cache = v->as_bool();
  if (auto v = f.get("kv_cache_tokens")) e.kv_cache_tokens = v->int_at_least(1);
  if (auto v = f.get("gpu_memory_utilization")) e.gpu_memory_utilization = parse_gpu_memory_utilization(*v);
  if (auto v = f.get("prefill_chunk_tokens")) e.prefill_chunk_tokens = v->int_at_least(0);
  if (auto v = f.get("decode_target_batch")) e.decode_target_batch = int_in_range(*v, 1, 1'000'000);
  if (auto v = f.get("preempt_lower_priority")) e.preempt_lower_priority = v->as_bool();
  if (auto v = f.get("watermark")) e.watermark = parse_watermark(*v);
  if (auto v = f.get("kv_admission")) {
    e.kv_admission = choice(*v, "KV admission rule", "rules", {"greedy", "reserve-full"}) == "greedy"
                         ? KvAdmission::greedy
                         : KvAdmission::reserve_full;
  }
  if (auto v = f.get("preemption_mode")) {
    e.preemption_mode = choice(*v, "preemption mode", "modes", {"recompute", "swap"}) == "swap"
                            ? PreemptionMode::swap
                            : PreemptionMode::recompute;
  }
  if (auto v = f.get("swap_space_gb")) e.swap_space_bytes = v->non_negative_double() * kBytesPerGiB;
  if (auto v = f.get("kv_offload")) parse_kv_offload(*v, e.kv_offload);
  if (auto v = f.get("power_cap_w")) e.power_cap_w = v->positive_double();
  if (auto v = f.get("overheads")) parse_engine_overheads(*v, e.overheads);
  if (auto v = f.get("version")) e.version = engine_version(*v);
  if (auto v = f.get("cuda_graphs")) e.cuda_graph_max_batch = parse_cuda_graphs(*v);
  if (auto v = f.get("async_scheduling")) {
    e.async_scheduling_auto = v->is_scalar() && v->node().Scalar() == "auto";  // parse_engine resolves it
    e.async_scheduling = e.async_scheduling_auto || v->as_bool();
  }
  if (auto v = f.get("kv_memory_rule")) e.kv_memory_rule = parse_kv_memory_rule(*v);
  if (auto v = f.get("on_context_overflow")) {
    e.on_context_overflow = choice(*v, "context overflow rule", "rules", {"reject", "truncate"}) == "reject"
                                ? ContextOverflow::reject
                                : ContextOverflow::truncate;
  }
  if (auto v = f.get("speculative")) e.speculative = speculative_or_off(*v, classes);
  if (auto v = f.get("lora")) e.lora = parse_lora_config(*v);
}

// A preset is an engine mapping in its own file; its errors point at that file. A preset
// file may itself start from one other preset (a calibrated profile builds on the bundled
// preset it was fitted with, `servesim calibrate --from-benchmark`), one level deep; the
// engine then keeps the inner preset's name, which selects the engine's kernel tables.
EngineConfig load_preset(const Field& name_field, const std::vector<std::string>& classes, bool may_nest = true) {
  const std::string given = name_field.as_string();
  // Like every path a file names, relative to that file's folder (a calibrated profile's
  // inner preset beside the profile), then bundled.
  std::optional<std::string> path = resolve_scenario_file(name_field, "configs/engines");
  if (!path) {
    name_field.fail(unknown_choice_message("engine preset", "presets", given, bundled_presets()));
  }
  std::vector<std::string> keys = kEngineKeys;
  if (!may_nest) keys.erase(std::find(keys.begin(), keys.end(), "preset"));
  const SpecFile file(*path, keys);
  const Field& root = file.root();
  EngineConfig e;
  e.preset = given;
  // A bundled preset named by its path (configs/engines/sglang.yaml, absolute or not) is that
  // preset: its name, not the path as typed, picks the engine's kernel tables.
  std::error_code ec;
  const std::string stem = spec_stem(*path);
  if (std::filesystem::equivalent(std::filesystem::path(resource_root()) / "configs/engines" / (stem + ".yaml"), *path, ec))
    e.preset = stem;
  if (auto inner = root.get("preset")) e = load_preset(*inner, classes, false);
  apply_engine_keys(root, e, classes);
  return e;
}

// Rules that involve more than one key, checked after the preset and the overrides merge.
void check_engine(const Field& f, const EngineConfig& e) {
  const auto at = [&](const char* key) { return f.get(key).value_or(f); };
  if (e.kv_cache_tokens && *e.kv_cache_tokens < e.block_size) {
    at("kv_cache_tokens").fail("must hold at least one block of " + std::to_string(e.block_size) +
                               " tokens, got " + std::to_string(*e.kv_cache_tokens));
  }
  if (!(e.gpu_memory_utilization > 0) && e.kv_memory_rule != KvMemoryRule::sglang) {
    at("gpu_memory_utilization").fail("'auto' needs kv_memory_rule: sglang (SGLang derives its mem_fraction_static; other engines take a number)");
  }
  if (e.decode_target_batch > e.max_num_seqs) {
    at("decode_target_batch").fail("is more than max_num_seqs (" + std::to_string(e.max_num_seqs) +
                                   "): the decode batch can never reach it");
  }
  if (f.has("decode_target_batch") && e.policy != "decode-priority") {
    at("decode_target_batch").fail_at_key("only policy 'decode-priority' uses it (policy is '" + e.policy + "')");
  }
  if (e.preempt_lower_priority && e.policy != "priority") {
    at("preempt_lower_priority").fail_at_key("only policy 'priority' uses it (policy is '" + e.policy + "')");
  }
}

}  // namespace

std::vector<std::string> bundled_presets() {
  std::vector<std::string> names;
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(resource_root()) / "configs/engines";
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

EngineConfig parse_engine(const Field& f, const std::vector<std::string>& class_names) {
  f.expect_map(kEngineKeys);
  EngineConfig e;
  if (auto preset = f.get("preset")) e = load_preset(*preset, class_names);
  apply_engine_keys(f, e, class_names);
  if (e.cuda_graph_max_batch == kCudaGraphAuto)
    e.cuda_graph_max_batch = vllm_cuda_graph_max_batch(e.max_num_seqs, e.max_batched_tokens);
  // vLLM (VllmConfig.__post_init__, async_scheduling None): "Async scheduling not supported
  // with {method}-based speculative decoding and will be disabled" for any method but
  // EAGLE/MTP in 0.14 (ngram and draft_model among them).
  if (e.async_scheduling_auto) e.async_scheduling = !e.speculative.enabled;
  check_engine(f, e);
  return e;
}

// vLLM (vllm/config/vllm.py, VllmConfig._set_cudagraph_sizes): max_cudagraph_capture_size
// defaults to min(max_num_seqs * 2, 512), no more than max_num_batched_tokens; the sizes
// captured are [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16) up to it, so the
// largest graph is the largest of those sizes that is <= the cap.
int vllm_cuda_graph_max_batch(int max_num_seqs, std::int64_t max_batched_tokens) {
  const std::int64_t cap = std::min<std::int64_t>({2LL * max_num_seqs, 512, max_batched_tokens});
  std::int64_t largest = 0;
  for (std::int64_t s : {1, 2, 4})
    if (s <= cap) largest = s;
  for (std::int64_t s = 8; s < 256 && s <= cap; s += 8) largest = s;
  for (std::int64_t s = 256; s <= cap; s += 16) largest = s;
  return static_cast<int>(largest);
}

void check_engine_for_pool(const Field& f, const PoolConfig& pool) {
  const EngineConfig& e = pool.engine;
  check_lora_for_pool(f, pool);
  if (e.speculative.enabled && e.speculative.draft_model &&
      e.speculative.draft_model->vocab_size != pool.model.vocab_size) {
    const Field spec = f.get("speculative").value_or(f);
    spec.get("draft").value_or(spec).fail(
        "the draft model's vocabulary (" + std::to_string(e.speculative.draft_model->vocab_size) +
        " tokens) differs from the target's (" + std::to_string(pool.model.vocab_size) +
        "): its proposals could not be verified");
  }
  if (e.speculative.draft_model) {
    const std::string problem = deployment_problem(
        *e.speculative.draft_model, draft_deployment(*e.speculative.draft_model, pool.deployment));
    if (!problem.empty()) {
      const Field spec = f.get("speculative").value_or(f);
      spec.get("draft").value_or(spec).fail("the draft model runs with the pool's tp and pp: " + problem);
    }
  }
  if (e.kv_offload.enabled() && !e.prefix_cache) {
    f.get("kv_offload").value_or(f).fail_at_key("KV tiers keep prefix blocks: they need prefix_cache: true");
  }
  if (e.kv_offload.enabled() && !e.kv_offload.shared && !(pool.hardware.host_link_bandwidth_bytes_per_s > 0)) {
    f.get("kv_offload").value_or(f).fail_at_key("KV tiers need the hardware's host_link_bandwidth_gb_s, which '" +
                                                pool.hardware.name + "' does not give");
  }
  if (e.preemption_mode == PreemptionMode::swap && !(pool.hardware.host_link_bandwidth_bytes_per_s > 0)) {
    f.get("preemption_mode").value_or(f).fail("swap needs the hardware's host_link_bandwidth_gb_s, which '" +
                                              pool.hardware.name + "' does not give");
  }
}

CostModelSpec parse_cost_model(const Field& f) {
  CostModelSpec spec;
  if (f.is_scalar()) {
    spec.kind = f.as_string();
    if (spec.kind == "roofline" || spec.kind == "kernels") return spec;
    if (spec.kind == "constant" || spec.kind == "linear" || spec.kind == "table") {
      f.fail("cost model '" + spec.kind +
             "' needs parameters, e.g. {constant: {step: 10ms}}, "
             "{linear: {base: 1ms, per_token: 0.1ms}} or {table: path.csv}");
    }
    f.fail(unknown_choice_message("cost model", "cost models", spec.kind, kCostModels));
  }
  if (!f.is_map()) {
    f.fail("expected roofline or a mapping like {constant: {step: 10ms}}, got " + f.describe());
  }
  f.expect_map(kCostModels);
  const std::vector<std::string> keys = f.keys();
  if (keys.size() != 1) f.fail("give exactly one cost model, got " + join_choices(keys));
  spec.kind = keys.front();
  const Field body = *f.get(spec.kind);
  if (spec.kind == "roofline" || spec.kind == "kernels") {
    if (!body.is_null() && !(body.is_map() && body.node().size() == 0)) {
      body.fail(spec.kind == "roofline"
                    ? "roofline takes no parameters (its figures come from the hardware profile)"
                    : "kernels takes no parameters (the tables follow the pool's hardware and engine preset and version)");
    }
  } else if (spec.kind == "constant") {
    body.expect_map({"step"});
    const Field step = body.require("step");
    spec.constant_step_ns = step.as_duration_ns();
    if (spec.constant_step_ns <= 0) {
      step.fail("the step time must be > 0, got " + step.node().Scalar());
    }
  } else if (spec.kind == "linear") {
    body.expect_map({"base", "per_token"});
    spec.linear_base_ns = body.require("base").as_duration_ns();
    const Field per_token = body.require("per_token");
    spec.linear_per_token_ns = per_token.as_duration_s() * 1e9;
    // A step that costs nothing would let the clock stand still.
    if (spec.linear_base_ns <= 0 && spec.linear_per_token_ns <= 0) {
      body.fail_at_key("base and per_token are both 0: every step would take no time");
    }
  } else {  // table
    spec.table_path = existing_data_path(body, "cost table");
  }
  return spec;
}

}  // namespace servesim
