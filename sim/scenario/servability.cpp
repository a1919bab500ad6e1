#include "sim/scenario/servability.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "sim/cluster/engine_setup.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/engine/context_limit.h"
#include "sim/engine/memory_fit.h"
#include "sim/engine/rejection_fixes.h"
#include "sim/engine/request_state.h"
#include "sim/engine/scheduler.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/set_overrides.h"
#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/length_bounds.h"
#include "sim/workload/sampled_lengths.h"
#include "sim/workload/source.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

// Shares below this are not worth a warning: fewer than one request in a million.
constexpr double kWarnShare = 1e-6;

// Places findings at the line that wrote a key: the scenario's YAML read again with the
// same --set overrides (the loader has read it once already, so it reads cleanly).
class KeyLocator {
 public:
  KeyLocator(const Scenario& s, const std::vector<std::string>& overrides) {
    ctx_.file = s.source_file;
    try {
      root_ = YAML::LoadFile(s.source_file);
      for (const std::string& text : overrides) ctx_.overridden.push_back(apply_override(root_, parse_override(text)));
    } catch (const std::exception&) {
      root_ = YAML::Node();  // a scenario built in memory: findings name the key alone
    }
  }

  ConfigError error(const std::string& key, const std::string& message) const {
    const Field at = deepest(key);
    return ConfigError(at.file(), at.line(), key, message, at.column());
  }

  std::string warning(const std::string& key, const std::string& message) const {
    const Field at = deepest(key);
    return format_config_error(at.file(), at.line(), at.column(), key, message);
  }

 private:
  // The deepest field along the dotted `key` the scenario spells out (a key left to its
  // default is placed at its parent).
  Field deepest(const std::string& key) const {
    Field at = root_field(ctx_, root_);
    std::string::size_type start = 0;
    while (start < key.size()) {
      const std::string::size_type dot = key.find('.', start);
      const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      std::optional<Field> next;
      if (at.is_list()) {
        const std::vector<Field> items = at.items();
        const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
        if (digits && std::stoul(part) < items.size()) next = items[std::stoul(part)];
      } else {
        next = at.get(part);
      }
      if (!next) break;
      at = *next;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return at;
  }

  LoadContext ctx_;
  YAML::Node root_;
};

// What limits the requests of one class: the context and KV cache of the pool that serves
// it (and of the decode pool its requests move on to).
struct ClassLimits {
  std::size_t pool = 0;
  std::int64_t context_tokens = 0;  // 0: no limit
  std::string model;
  bool truncate = false;
  std::int64_t kv_blocks = 0;    // per replica, the smaller of the pools'
  std::size_t kv_pool = 0;       // the pool whose cache that is
  int block_size = 16;
  bool kv_set = false;           // engine.kv_cache_tokens sized the cache
  const Scheduler* policy = nullptr;  // the pool's policy: whole-prompt ones refuse long prompts
  std::string kv_what() const {
    return std::to_string(kv_blocks) + " blocks of " + std::to_string(block_size) + " tokens (" +
           std::to_string(kv_blocks * block_size) + " tokens" + (kv_set ? ", engine.kv_cache_tokens" : "") + ")";
  }
};

// What the replica's submit (engine/replica.cpp) decides for a request of these lengths:
// its rejection reason (nullptr: admitted) and the KV blocks it needs once the context
// rule has cut it (0 when the context rule rejects it).
struct Admission {
  const char* reason = nullptr;
  std::int64_t blocks = 0;
};

Admission admission_of(RequestSpec spec, const ClassLimits& limits, const EngineConfig& engine) {
  RequestState r;
  r.spec = std::move(spec);
  if (const char* why = apply_context_limit(r, limits.context_tokens, engine)) return {why, 0};
  // KvCacheManager::blocks_for: whole blocks of block_size.
  const std::int64_t blocks = (r.max_kv_tokens() + limits.block_size - 1) / limits.block_size;
  if (blocks > limits.kv_blocks) return {"exceeds_kv_capacity", blocks};
  return {limits.policy ? limits.policy->cannot_ever_schedule(r, engine) : nullptr, blocks};
}

bool is(const char* reason, const char* name) { return reason && std::string(reason) == name; }

class Checker {
 public:
  Checker(const Scenario& s, const std::vector<std::string>& overrides) : s_(s), at_(s, overrides) {}

  Servability run() {
    for (std::size_t p = 0; p < s_.cluster.pools.size(); ++p) kv_blocks_.push_back(pool_blocks(p));
    build_as_run_does();
    const auto policies = make_policy_registry();
    for (const PoolConfig& pool : s_.cluster.pools) {
      const auto* policy = policies.find(pool.engine.policy);  // known: the build above checked it
      policies_.push_back(policy ? policy->factory() : nullptr);
    }
    for (std::size_t c = 0; c < s_.workload.size(); ++c) check_class(c);
    return std::move(out_);
  }

 private:
  // KV blocks per replica; refuses a pool whose model does not fit, at its tp.
  std::int64_t pool_blocks(std::size_t p) {
    const PoolConfig& pool = s_.cluster.pools[p];
    const std::string key = "cluster.pools." + std::to_string(p);
    const MemoryPlan plan = plan_memory(pool.model, pool.hardware, pool.deployment, pool.engine);
    if (!pool.engine.kv_cache_tokens && !plan.fits)
      throw at_.error(key + ".tp", does_not_fit_message(pool.model, pool.hardware, pool.deployment, pool.engine, plan));
    try {
      return kv_blocks_for_pool(pool, plan, key);
    } catch (const ConfigError& e) {  // a draft model that leaves no room
      if (!e.file().empty()) throw;
      throw at_.error(e.key(), e.message());
    }
  }

  // Builds the Simulation `run` builds (pools, replicas, policies, routers, sources,
  // admission, topology) and drops it, so that what only construction checks is refused
  // here too, at its line.
  void build_as_run_does() const {
    try {
      const Simulation built(s_.seed, s_.stop, s_.workload, s_.cluster);
    } catch (const ConfigError& e) {
      if (!e.file().empty()) throw;  // a data file's own line
      throw at_.error(e.key(), e.message());
    }
  }

  // The pool a class goes to, as the Simulation routes it: the first pool that names it,
  // else the first that takes every class; decode pools take only hand-overs.
  std::size_t pool_of(std::size_t c) const {
    const auto& pools = s_.cluster.pools;
    for (std::size_t p = 0; p < pools.size(); ++p)
      if (pools[p].role != PoolRole::decode &&
          std::find(pools[p].classes.begin(), pools[p].classes.end(), s_.workload[c].name) != pools[p].classes.end())
        return p;
    for (std::size_t p = 0; p < pools.size(); ++p)
      if (pools[p].role != PoolRole::decode && pools[p].classes.empty()) return p;
    throw at_.error("workload." + std::to_string(c) + ".class",
                    "no pool serves class '" + s_.workload[c].name + "': name it in a pool's classes");
  }

  ClassLimits limits_of(std::size_t c) const {
    ClassLimits l;
    l.pool = pool_of(c);
    const PoolConfig& pool = s_.cluster.pools[l.pool];
    l.context_tokens = pool.model.max_context_tokens;
    l.model = pool.model.name;
    l.truncate = pool.engine.on_context_overflow == ContextOverflow::truncate;
    l.kv_blocks = kv_blocks_[l.pool];
    l.kv_pool = l.pool;
    l.block_size = pool.engine.block_size;
    l.kv_set = pool.engine.kv_cache_tokens.has_value();
    l.policy = policies_[l.pool].get();
    // A prefill pool's requests are submitted again to its decode pool, with the same checks.
    for (std::size_t d = 0; d < s_.cluster.pools.size(); ++d) {
      const PoolConfig& decode = s_.cluster.pools[d];
      if (pool.role != PoolRole::prefill || decode.name != pool.decode_pool) continue;
      const std::int64_t ctx = decode.model.max_context_tokens;
      if (ctx > 0 && (l.context_tokens <= 0 || ctx < l.context_tokens)) l.context_tokens = ctx;
      if (kv_blocks_[d] * decode.engine.block_size < l.kv_blocks * l.block_size) {
        l.kv_blocks = kv_blocks_[d];
        l.kv_pool = d;
        l.block_size = decode.engine.block_size;
        l.kv_set = decode.engine.kv_cache_tokens.has_value();
      }
    }
    return l;
  }

  static std::string kv_key(const ClassLimits& l) {
    return "cluster.pools." + std::to_string(l.kv_pool) + ".engine.kv_cache_tokens";
  }

  std::string context_what(const ClassLimits& l) const {
    return "the " + std::to_string(l.context_tokens) + "-token context of " + l.model;
  }

  void check_class(std::size_t c) {
    const ClassSpec& spec = s_.workload[c];
    const ClassLimits limits = limits_of(c);
    if (spec.trace) return check_trace(c, limits);
    const std::string key = "workload." + std::to_string(c);
    const EngineConfig& engine = s_.cluster.pools[limits.pool].engine;

    // The smallest request: the smallest prompt (a structured prompt's segments at their
    // smallest; a session's first turn) with the smallest output.
    std::optional<LengthLaw> input;
    std::int64_t prompt_min = 0;
    if (!spec.prompt.empty()) {
      for (const PromptSegmentSpec& seg : spec.prompt) prompt_min += LengthLaw(seg.tokens, 0).smallest();
      prompt_min = std::max<std::int64_t>(prompt_min, 1);
    } else if (spec.input) {
      input.emplace(*spec.input, 1);
      prompt_min = input->smallest();
    }
    if (!spec.output || prompt_min < 1) return;  // the loader requires both; nothing to judge
    const LengthLaw output(*spec.output, 0);
    const std::int64_t output_min = output.smallest();
    const std::string input_key = key + (spec.prompt.empty() ? ".input" : ".prompt");
    const std::string smallest = "its smallest request (prompt " + std::to_string(prompt_min) + " + output " +
                                 std::to_string(output_min) + " tokens)";
    RequestSpec r;
    r.prompt_tokens = prompt_min;
    r.output_tokens = output_min;
    if (const Admission a = admission_of(r, limits, engine); a.reason) {
      const std::string cls = "class '" + spec.name + "' cannot be served: ";
      if (is(a.reason, "exceeds_max_context"))
        throw at_.error(prompt_min >= output_min ? input_key : key + ".output",
                        cls + smallest + " is longer than " + context_what(limits) +
                            ", so every request would be rejected (exceeds_max_context): " + kExceedsMaxContextFix);
      if (!is(a.reason, "exceeds_kv_capacity"))
        throw at_.error("cluster.pools." + std::to_string(limits.pool) + ".engine.max_batched_tokens",
                        cls + smallest + " is more than policy '" + engine.policy + "' runs in one step of " +
                            std::to_string(engine.max_batched_tokens) +
                            " tokens (engine.max_batched_tokens), so every request would be rejected (" + a.reason +
                            "): raise engine.max_batched_tokens, bound the lengths (max: in the class's "
                            "input/output) or use policy chunked-prefill, which splits prompts over steps");
      const std::int64_t needed = a.blocks;
      throw at_.error(limits.kv_set ? kv_key(limits) : input_key,
                      cls + smallest + " needs " + std::to_string(needed) + " KV blocks and a replica of pool '" +
                          s_.cluster.pools[limits.kv_pool].name + "' holds " + limits.kv_what() +
                          ", so every request would be rejected (exceeds_kv_capacity): " + kExceedsKvCapacityFix +
                          (limits.kv_set ? " (engine.kv_cache_tokens at least " +
                                               std::to_string(needed * limits.block_size) + ")"
                                         : ""));
    }
    // Sessions' later turns carry their history and structured prompts are sums of
    // segments: the shares below are worked out for plain input distributions only.
    if (!input || spec.session) return;
    warn_shares(key, spec.name, *input, output, limits, engine);
  }

  // Whether the pool's policy refuses some request on its own (a whole-prompt policy: one
  // longer than a step), asked of a request past every other limit.
  static bool policy_can_reject(const ClassLimits& l, const EngineConfig& engine) {
    if (!l.policy) return false;
    RequestState huge;
    huge.spec.prompt_tokens = kMaxSampledTokens;
    huge.spec.output_tokens = 1;
    return l.policy->cannot_ever_schedule(huge, engine) != nullptr;
  }

  // The longest prompt a request of `output_tokens` is admitted with (0: none;
  // kMaxSampledTokens: every prompt, as when truncation cuts them all to a length that fits).
  static std::int64_t longest_admitted(std::int64_t output_tokens, const ClassLimits& l, const EngineConfig& engine) {
    const auto admitted = [&](std::int64_t prompt) {
      RequestSpec r;
      r.prompt_tokens = prompt;
      r.output_tokens = output_tokens;
      return admission_of(std::move(r), l, engine).reason == nullptr;
    };
    if (!admitted(1)) return 0;
    // Past the context (or, without one, the cache) the answer no longer changes: the
    // context rule rejects, or truncates to the same request.
    std::int64_t hi = (l.context_tokens > 0 ? l.context_tokens : l.kv_blocks * l.block_size) + 2;
    if (admitted(hi)) return kMaxSampledTokens;
    std::int64_t lo = 1;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (admitted(mid) ? lo : hi) = mid;
    }
    return lo;
  }

  static std::string policy_what(const EngineConfig& engine) {
    return "more than policy '" + engine.policy + "' runs in one step of " + std::to_string(engine.max_batched_tokens) +
           " tokens (raise engine.max_batched_tokens or use policy chunked-prefill)";
  }

  // The shares of a class's requests the replica rejects, as admission_of decides per
  // request: a prompt above a threshold that depends on the output's length k.
  void warn_shares(const std::string& key, const std::string& name, const LengthLaw& input, const LengthLaw& output,
                   const ClassLimits& l, const EngineConfig& engine) {
    const std::int64_t kv_tokens = l.kv_blocks * l.block_size;
    const std::int64_t ctx = l.context_tokens;
    const auto kv_threshold = [&](std::int64_t k) { return kv_tokens - std::max<std::int64_t>(k - 1, 0); };
    double context_share = 0, all_share = 0;
    // Skip the sums when even the longest request is admitted.
    const auto in_max = input.largest(), out_max = output.largest();
    if (in_max && out_max) {
      RequestSpec longest;
      longest.prompt_tokens = *in_max;
      longest.output_tokens = *out_max;
      if (!admission_of(longest, l, engine).reason) return;
    }
    if (ctx > 0 && !l.truncate) {
      context_share = share_prompt_above(input, output, [&](std::int64_t k) { return ctx - k; }, ctx);
      all_share = share_prompt_above(
          input, output, [&](std::int64_t k) { return std::min(ctx - k, kv_threshold(k)); },
          std::min(ctx, kv_tokens) + 2);
    } else if (ctx <= 0 || ctx > kv_tokens + 1) {
      // No context limit, or truncation that leaves requests longer than the cache: a
      // prompt beyond the cache less the output's KV is rejected.
      all_share = share_prompt_above(input, output, kv_threshold, kv_tokens + 2);
    } else if (ctx == kv_tokens + 1) {
      // Truncated to the context, only a prompt-only request (output 0) of more than the
      // cache keeps too many tokens.
      all_share = (1 - output.share_at_least(1)) * input.share_at_least(kv_tokens + 1);
    }
    const double kv_share = std::max(0.0, all_share - context_share);
    // A whole-prompt policy's own limit has no closed form here: the longest prompt each
    // output length admits is found by asking admission_of (monotone in the prompt).
    double policy_share = 0;
    if (policy_can_reject(l, engine)) {
      const double with_policy = share_prompt_above(
          input, output, [&](std::int64_t k) { return longest_admitted(k, l, engine); },
          ctx > 0 && !l.truncate ? ctx + 1 : kMaxSampledTokens);
      policy_share = std::max(0.0, with_policy - all_share);
      all_share = std::max(all_share, with_policy);
    }
    const int reasons = (context_share >= kWarnShare) + (kv_share >= kWarnShare) + (policy_share >= kWarnShare);
    const auto part = [&](double share) { return reasons > 1 ? percent_3sig(share) + " " : std::string(); };
    std::string text;
    if (context_share >= kWarnShare)
      text += part(context_share) + "longer than " + context_what(l) + " (exceeds_max_context: " +
              kExceedsMaxContextFix + ")";
    if (kv_share >= kWarnShare)
      text += (text.empty() ? "" : "; ") + part(kv_share) + "needing more KV blocks than a replica of pool '" +
              s_.cluster.pools[l.kv_pool].name + "' holds, " + l.kv_what() + " (exceeds_kv_capacity: " +
              kExceedsKvCapacityFix + ")";
    if (policy_share >= kWarnShare)
      text += (text.empty() ? "" : "; ") + part(policy_share) + policy_what(engine);
    if (text.empty()) return;
    std::string of_run;
    // With one class every arrival is one of its requests: say how many of the run's.
    const long long expected = s_.stop.requests ? std::llround(all_share * static_cast<double>(*s_.stop.requests)) : 0;
    if (s_.workload.size() == 1 && expected >= 1)
      of_run = " (about " + std::to_string(expected) + " of stop.requests' " + std::to_string(*s_.stop.requests) + ")";
    out_.warnings.push_back(at_.warning(key, percent_3sig(all_share) + " of the requests of class '" + name +
                                                 "' will be rejected" + of_run + ": " + text));
  }

  // A trace's requests, as many as the run reads (stop.requests, arrivals before
  // stop.time), each judged as the replica will.
  void check_trace(std::size_t c, const ClassLimits& l) {
    ClassSpec spec = s_.workload[c];
    spec.block_tokens = l.block_size;  // as the Simulation sets it
    // A vllm_bench_serve class is a trace without a file of its own (unless sharegpt's lengths).
    const bool bench = spec.trace->vllm_bench_serve.has_value();
    const std::string key = "workload." + std::to_string(c) + (bench ? ".vllm_bench_serve" : ".trace");
    const std::string path_key = bench ? key : key + ".path";
    const EngineConfig& engine = s_.cluster.pools[l.pool].engine;
    std::unique_ptr<RequestSource> source;
    try {
      source = make_source(spec, static_cast<int>(c), s_.seed);
    } catch (const ConfigError& e) {
      if (!e.file().empty()) throw;  // a trace file's own line
      throw at_.error(e.key(), e.message());
    }
    const std::int64_t cap = s_.stop.requests.value_or(std::numeric_limits<std::int64_t>::max());
    std::int64_t n = 0, context = 0, kv = 0, policy = 0;
    std::optional<Tick> first_after_stop;
    while (n < cap) {
      const std::optional<Tick> t = source->peek_arrival_ns();
      if (!t) break;  // every request is finished at once below, so only the end stops it
      if (s_.stop.time_ns && *t >= *s_.stop.time_ns) {
        first_after_stop = *t;
        break;
      }
      RequestSpec r = source->pop();
      // Finished at once: sources that pace by completions (closed loops, benchmark
      // concurrency) offer their next request; lengths never depend on it.
      source->on_finished(r, *t);
      const char* why = admission_of(std::move(r), l, engine).reason;
      ++n;
      if (why) (is(why, "exceeds_max_context") ? context : is(why, "exceeds_kv_capacity") ? kv : policy) += 1;
    }
    const std::string what = bench ? "the vllm bench serve load" : "trace " + spec.trace->path;
    if (n == 0) {
      if (first_after_stop)
        throw at_.error(path_key, "no request of " + what + " arrives before stop.time (the first at " +
                                           format_number(seconds_from_ticks(*first_after_stop)) +
                                           " s): lengthen stop.time or raise trace.speedup");
      throw at_.error(path_key, what +
                                         " has no requests (a header and no rows), so the class would send "
                                         "nothing: give it rows or point trace.path at another file");
    }
    if (context + kv + policy == 0) return;
    std::string text;
    if (context > 0)
      text += std::to_string(context) + " longer than " + context_what(l) + " (exceeds_max_context: " +
              kExceedsMaxContextFix + ")";
    if (kv > 0)
      text += (text.empty() ? "" : "; ") + std::to_string(kv) + " needing more KV blocks than a replica of pool '" +
              s_.cluster.pools[l.kv_pool].name + "' holds, " + l.kv_what() + " (exceeds_kv_capacity: " +
              kExceedsKvCapacityFix + ")";
    if (policy > 0) text += (text.empty() ? "" : "; ") + std::to_string(policy) + " " + policy_what(engine);
    const std::int64_t rejected = context + kv + policy;
    const std::string counted = std::to_string(n) + " requests of " + what + " the run reads";
    if (rejected == n) {
      const std::string where = kv == n && l.kv_set ? kv_key(l) : path_key;
      throw at_.error(where, "class '" + spec.name + "' cannot be served: every one of the " + counted +
                                 " would be rejected: " + text);
    }
    out_.warnings.push_back(at_.warning(path_key, std::to_string(rejected) + " of the " + counted +
                                                           " will be rejected: " + text));
  }

  const Scenario& s_;
  KeyLocator at_;
  std::vector<std::int64_t> kv_blocks_;
  std::vector<std::unique_ptr<Scheduler>> policies_;  // one per pool
  Servability out_;
};

}  // namespace

Servability check_servability(const Scenario& scenario, const std::vector<std::string>& overrides) {
  return Checker(scenario, overrides).run();
}

}  // namespace servesim
