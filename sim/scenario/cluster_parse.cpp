#include "sim/scenario/cluster_parse.h"

#include <algorithm>
#include <set>
#include <string>

#include "sim/cluster/budget_policy.h"
#include "sim/cluster/kv_store_reach.h"
#include "sim/cluster/router_names.h"
#include "sim/cluster/topology.h"
#include "sim/core/errors.h"
#include "sim/hardware/cost_model.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/model/shard.h"
#include "sim/scenario/autoscale_parse.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/energy_parse.h"
#include "sim/scenario/engine_parse.h"
#include "sim/scenario/model_refs.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

namespace {

const std::vector<std::string> kClusterKeys = {"pools",  "router", "topology",     "admission",
                                               "energy", "gpus",   "budget_policy"};
const std::vector<std::string> kRoles = {"unified", "prefill", "decode"};
const std::vector<std::string> kPoolKeys = {"name",   "replicas",   "model",   "hardware",
                                            "tp",     "pp",         "weights", "kv_dtype",
                                            "engine", "cost_model", "classes", "ep",
                                            "micro_batches", "activations", "role", "decode_pool",
                                            "expert_weights", "autoscale", "priority"};
const std::vector<std::string> kWeightFormats = {"bf16", "fp8", "int8", "int4"};
const std::vector<std::string> kKvFormats = {"bf16", "fp8"};

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

Dtype parse_format(const Field& f, const std::vector<std::string>& allowed, const char* what) {
  const std::string text = f.as_string();
  const std::optional<Dtype> d = parse_dtype(text);
  if (!d || !contains(allowed, std::string(dtype_name(*d)))) {
    f.fail(unknown_choice_message(what, "formats", text, allowed));
  }
  return *d;
}

int small_int_at_least_1(const Field& f, std::int64_t highest) {
  const std::int64_t v = f.int_at_least(1);
  if (v > highest) {
    f.fail("must be at most " + std::to_string(highest) + ", got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

// Tensor parallelism splits attention heads evenly across GPUs. KV heads either split
// evenly too, or (fewer KV heads than GPUs) are replicated, which needs tp to be a multiple
// of them so each GPU's query heads share one KV head -- vLLM's rule, and the model
// layer's (deployment_problem).
void check_tp(const Field& tp_field, int tp, const ModelSpec& model) {
  const std::string model_name = model.name.empty() ? "the model" : "'" + model.name + "'";
  const std::string tp_text = "tp " + std::to_string(tp);
  const int heads = model.num_attention_heads;
  const int kv_heads = model.num_kv_heads;
  if (heads > 0 && heads % tp != 0) {
    tp_field.fail(tp_text + " does not divide the " + std::to_string(heads) +
                  " attention heads of " + model_name);
  }
  if (kv_heads > 0 && kv_heads >= tp && kv_heads % tp != 0) {
    tp_field.fail(tp_text + " does not divide the " + std::to_string(kv_heads) + " KV heads of " +
                  model_name);
  }
  if (kv_heads > 0 && kv_heads < tp && tp % kv_heads != 0) {
    tp_field.fail(tp_text + " is not a multiple of the " + std::to_string(kv_heads) +
                  " KV heads of " + model_name +
                  " (with fewer KV heads than GPUs each is replicated, which needs a multiple)");
  }
}

// The deepest field along `relative` ("cost_model.table") that the pool spells out, to
// place errors that the model and hardware layers report by key alone.
Field locate(const Field& pool, const std::string& relative) {
  Field at = pool;
  std::string::size_type start = 0;
  while (start <= relative.size()) {
    const auto dot = relative.find('.', start);
    const std::string part =
        relative.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const std::optional<Field> next = at.is_map() ? at.get(part) : std::nullopt;
    if (!next) break;
    at = *next;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

// Builds the pool's cost model once, as `run` will, so that what only the model and hardware
// layers know (a deployment they cannot shard, a cost model not built yet, tp > 1 without
// an interconnect) fails at load time, at the pool's line, rather than when the run starts.
void check_buildable(const Field& f, const PoolConfig& pool) {
  try {
    const std::string problem = deployment_problem(pool.model, pool.deployment);
    if (!problem.empty()) locate(f, "tp").fail(problem);
    (void)make_cost_model(pool.cost_model, pool.model, pool.hardware, pool.deployment);
  } catch (const ConfigError& e) {
    if (!e.file().empty()) throw;
    const Field at = locate(f, e.key());
    throw ConfigError(at.file(), at.line(), f.key() + (e.key().empty() ? "" : "." + e.key()),
                      e.message(), at.column());
  }
}

// tp, pp, micro_batches and ep, each checked against the model as soon as it is read.
void parse_pool_parallelism(const Field& f, PoolConfig& pool) {
  std::optional<Field> tp_field = f.get("tp");
  if (tp_field) pool.deployment.tp = small_int_at_least_1(*tp_field, 4096);
  if (auto v = f.get("pp")) {
    pool.deployment.pp = small_int_at_least_1(*v, 4096);
    if (pool.model.num_layers > 0 && pool.deployment.pp > pool.model.num_layers) {
      v->fail("pp " + std::to_string(pool.deployment.pp) + " is more than the model's " +
              std::to_string(pool.model.num_layers) + " layers");
    }
  }
  check_tp(tp_field ? *tp_field : f.require("model"), pool.deployment.tp, pool.model);
  if (auto v = f.get("micro_batches")) {
    // Pipeline micro-batching (docs/scenario.md); meaningful only with pp > 1.
    pool.deployment.micro_batches = static_cast<int>(v->int_at_least(0));
    if (pool.deployment.micro_batches > 4096) v->fail("must be at most 4096");
    if (pool.deployment.micro_batches > 0 && pool.deployment.pp < 2) {
      v->fail("micro-batches split a batch over pipeline stages; set pp >= 2 or leave it out");
    }
  }
  if (auto v = f.get("ep")) {
    // Expert parallelism within a stage (docs/scenario.md): the model layer says why an
    // ep does not fit (dense model, ep not dividing tp or the experts).
    pool.deployment.ep = small_int_at_least_1(*v, 4096);
    const std::string problem = deployment_problem(pool.model, pool.deployment);
    if (problem.rfind("ep=", 0) == 0) v->fail(problem);
  }
}

// The number formats of weights, expert weights, KV cache and activations.
void parse_pool_formats(const Field& f, PoolConfig& pool) {
  if (auto v = f.get("weights")) {
    pool.deployment.weights = parse_format(*v, kWeightFormats, "weight format");
  }
  if (auto v = f.get("expert_weights")) {
    // The routed and shared experts' own format (fp8 experts beside bf16 attention).
    pool.deployment.expert_weights = parse_format(*v, kWeightFormats, "expert weight format");
    if (!pool.model.is_moe()) v->fail(deployment_problem(pool.model, pool.deployment));
  }
  if (auto v = f.get("kv_dtype")) {
    pool.deployment.kv = parse_format(*v, kKvFormats, "KV-cache format");
  }
  if (auto v = f.get("activations")) {
    // fp8 activations (W8A8 / fp8 x fp8 GEMMs); bf16 and fp8 are the formats engines use.
    pool.deployment.activations = parse_format(*v, kKvFormats, "activation format");
  }
}

// The pool's cost model: the one the scenario names, or measured kernel tables wherever
// they cover the pool's GPU and engine (docs/cost-model.md, "kernels"). Needs the engine,
// whose preset and version select the tables.
void parse_pool_cost_model(const Field& f, PoolConfig& pool) {
  const std::optional<Field> cost_model_field = f.get("cost_model");
  if (cost_model_field) pool.cost_model = parse_cost_model(*cost_model_field);
  if (!cost_model_field || pool.cost_model.kind == "kernels") {
    try {
      resolve_kernel_cost_model(pool.cost_model, cost_model_field.has_value(), resource_root() + "/data/kernels",
                                pool.model, pool.hardware, pool.deployment, pool.engine.preset, pool.engine.version,
                                pool.engine.cuda_graph_max_batch);
    } catch (const ConfigError& e) {
      if (!e.file().empty()) throw;
      // Named at the pool's cost_model: key, or at the pool when the tables were its default.
      if (cost_model_field) cost_model_field->fail(e.message());
      f.fail("cost_model: " + e.message());
    }
  }
}

// `classes: [...]`: the workload classes routed to this pool, each known and listed once.
void parse_pool_classes(const Field& v, const std::vector<ClassSpec>& classes, PoolConfig& pool) {
  std::vector<std::string> known;
  for (const ClassSpec& c : classes) known.push_back(c.name);
  for (const Field& item : v.items()) {
    const std::string name = item.as_string();
    if (!contains(known, name)) {
      item.fail(unknown_choice_message("class", "classes", name, known));
    }
    if (contains(pool.classes, name)) item.fail("class '" + name + "' is listed twice");
    pool.classes.push_back(name);
  }
  if (pool.classes.empty()) {
    v.fail("an empty list would route nothing here; leave 'classes' out to serve every class");
  }
}

// The pool's part in disaggregated serving: a prefill pool names its decode pool, and a
// decode pool takes no classes of its own (parse_cluster checks the pairs).
void parse_pool_role(const Field& f, PoolConfig& pool) {
  if (auto v = f.get("role")) {
    const std::string role = v->as_string();
    if (!contains(kRoles, role)) v->fail(unknown_choice_message("pool role", "roles", role, kRoles));
    pool.role = role == "prefill" ? PoolRole::prefill : role == "decode" ? PoolRole::decode : PoolRole::unified;
  }
  if (auto v = f.get("decode_pool")) {
    if (pool.role != PoolRole::prefill) v->fail("only a pool with role: prefill names a decode_pool");
    pool.decode_pool = v->as_string();
  } else if (pool.role == PoolRole::prefill) {
    f.require("role").fail("a prefill pool needs decode_pool: the name of the pool (role: decode) that decodes its requests");
  }
  if (pool.role == PoolRole::decode && f.get("classes")) {
    f.get("classes")->fail("a decode pool takes requests only from prefill pools; route classes to the prefill pool");
  }
}

// One entry of cluster.pools. The keys are read in this order, so the first bad one is the
// one reported, and each check sees what it depends on (the engine before the cost model).
PoolConfig parse_pool(const Field& f, std::size_t index, std::size_t pool_count,
                      const std::vector<ClassSpec>& classes) {
  f.expect_map(kPoolKeys);
  PoolConfig pool;
  pool.name = pool_count == 1 ? "main" : "pool" + std::to_string(index);
  if (auto name = f.get("name")) {
    pool.name = name->as_string();
    if (pool.name.empty()) name->fail("the pool name is empty");
  }
  if (auto v = f.get("replicas")) pool.replicas = small_int_at_least_1(*v, 100'000);
  pool.model = load_model_for(f.require("model"));
  pool.hardware = load_hardware_for(f.require("hardware"));
  parse_pool_parallelism(f, pool);
  parse_pool_formats(f, pool);
  if (auto v = f.get("engine")) {
    std::vector<std::string> class_names;
    for (const ClassSpec& c : classes) class_names.push_back(c.name);
    pool.engine = parse_engine(*v, class_names);
    check_engine_for_pool(*v, pool);
    check_power_cap(*v, pool);
  }
  parse_pool_cost_model(f, pool);
  check_buildable(f, pool);
  if (auto v = f.get("classes")) parse_pool_classes(*v, classes, pool);
  parse_pool_role(f, pool);
  if (auto v = f.get("autoscale")) {
    pool.autoscale = parse_autoscale(*v, f, pool);
    pool.replicas = pool.autoscale->max_replicas;  // built up front; off ones cost nothing
  }
  if (auto v = f.get("priority")) {
    // The range of a workload class's `priority` (docs/scenario.md).
    const std::int64_t p = v->as_int();
    if (p < -1'000'000 || p > 1'000'000) v->fail("must be within -1000000 .. 1000000, got " + std::to_string(p));
    if (!pool.autoscale)
      v->fail("a fixed pool holds its GPUs for the whole run; priority ranks autoscaled pools under "
              "cluster.budget_policy: priority");
    pool.priority = static_cast<int>(p);
  }
  return pool;
}

// Every GPU of every replica of a pool with kv_offload.store_node must reach that node
// (replicas placed as Simulation::place_on_topology places them: consecutive GPUs, pools
// in order). The error names the store_node key.
void check_kv_stores(const ClusterConfig& cluster, const Topology& topology, const std::vector<Field>& items) {
  int first_gpu = 0;
  for (std::size_t i = 0; i < cluster.pools.size(); ++i) {
    const PoolConfig& p = cluster.pools[i];
    const int gpus = p.deployment.tp * p.deployment.pp;
    const std::string& node = p.engine.kv_offload.store_node;
    if (!node.empty()) {
      const std::optional<Field> engine = items[i].get("engine");
      const std::optional<Field> offload = engine ? engine->get("kv_offload") : std::nullopt;
      const std::optional<Field> at = offload ? offload->get("store_node") : std::nullopt;
      const Field& where = at ? *at : items[i];
      const std::optional<int> store = topology.find(node);
      if (!store) where.fail("no node named '" + node + "' in the cluster topology (declare it under cluster.topology)");
      for (int r = 0; r < p.replicas; ++r)
        if (!reach_store(topology, first_gpu + r * gpus, gpus, *store))
          where.fail("a GPU of pool '" + p.name + "', replica " + std::to_string(r) + " cannot reach node '" + node +
                     "' over the topology's links");
    }
    first_gpu += p.replicas * gpus;
  }
}

// `router: NAME`, or `router: {name: NAME, staleness: 50ms}`. (Fields are never assigned
// to each other: YAML::Node assignment would overwrite the tree.)
void parse_cluster_router(const Field& router, ClusterConfig& cluster) {
  auto read_name = [&](const Field& name) {
    cluster.router = name.as_string();
    const std::vector<std::string> routers = router_names();
    if (!contains(routers, cluster.router)) {
      name.fail(unknown_choice_message("router", "routers", cluster.router, routers));
    }
  };
  if (router.is_map()) {
    router.expect_map({"name", "staleness"});
    if (auto s = router.get("staleness")) cluster.router_staleness_ns = s->as_duration_ns();
    if (auto n = router.get("name")) read_name(*n);
  } else {
    read_name(router);
  }
}

// Every prefill pool's decode_pool is a pool with role: decode, and every decode pool is
// fed by some prefill pool.
void check_decode_pools(const ClusterConfig& cluster, const std::vector<Field>& items) {
  for (std::size_t i = 0; i < cluster.pools.size(); ++i) {
    const PoolConfig& p = cluster.pools[i];
    if (p.role == PoolRole::prefill) {
      const auto d = std::find_if(cluster.pools.begin(), cluster.pools.end(),
                                  [&](const PoolConfig& q) { return q.name == p.decode_pool; });
      const Field at = *items[i].get("decode_pool");
      if (d == cluster.pools.end()) at.fail("no pool named '" + p.decode_pool + "'");
      if (d->role != PoolRole::decode) at.fail("pool '" + p.decode_pool + "' needs role: decode");
    }
    if (p.role == PoolRole::decode) {
      const bool fed = std::any_of(cluster.pools.begin(), cluster.pools.end(),
                                   [&](const PoolConfig& q) { return q.decode_pool == p.name; });
      if (!fed) items[i].require("role").fail("no prefill pool names decode pool '" + p.name + "' as its decode_pool");
    }
  }
}

// Builds the network now, as `run` will, so too few GPUs, a bad link or a KV store no GPU
// reaches fail at load time. Only disaggregated pools and shared KV stores use it.
void check_cluster_network(const Field& f, const ClusterConfig& cluster, const std::vector<Field>& items) {
  const bool disaggregated =
      std::any_of(cluster.pools.begin(), cluster.pools.end(), [](const PoolConfig& p) { return p.role == PoolRole::prefill; });
  const bool stores = std::any_of(cluster.pools.begin(), cluster.pools.end(),
                                  [](const PoolConfig& p) { return !p.engine.kv_offload.store_node.empty(); });
  if (!disaggregated && !stores) return;
  int gpus = 0;
  for (const PoolConfig& p : cluster.pools) gpus += p.replicas * p.deployment.tp * p.deployment.pp;
  TopologySpec preset;
  preset.preset = "dgx-h100";
  std::optional<Topology> topology;
  try {
    topology = build_topology(cluster.topology.value_or(preset), gpus);
  } catch (const ConfigError& e) {
    const std::optional<Field> t = f.get("topology");
    if (t) t->fail(e.message());
    f.fail_at_key(e.message());
  }
  check_kv_stores(cluster, *topology, items);
}

// A class no pool accepts would have its requests dropped at the door.
void check_classes_served(const Field& pools, const ClusterConfig& cluster, const std::vector<ClassSpec>& classes) {
  for (const ClassSpec& c : classes) {
    const bool served = std::any_of(
        cluster.pools.begin(), cluster.pools.end(),
        [&](const PoolConfig& p) { return p.role != PoolRole::decode && (p.classes.empty() || contains(p.classes, c.name)); });
    if (!served) {
      pools.fail_at_key("class '" + c.name +
                        "' is not routed to any pool (add it to a pool's 'classes')");
    }
  }
}

// `gpus: N`: the budget all pools share. The fleet the run starts with must fit it: every
// replica of a fixed pool, the initial replicas of an autoscaled one, each tp x pp GPUs.
void parse_gpu_budget(const Field& v, ClusterConfig& cluster) {
  cluster.gpus = small_int_at_least_1(v, 10'000'000);
  std::int64_t at_start = 0;  // up to 100,000 replicas x 4096 x 4096 GPUs per pool
  std::string parts;
  for (const PoolConfig& p : cluster.pools) {
    const int replicas = p.autoscale ? p.autoscale->initial_replicas : p.replicas;
    at_start += static_cast<std::int64_t>(replicas) * p.deployment.tp * p.deployment.pp;
    parts += (parts.empty() ? "" : ", ") + p.name + " " + std::to_string(replicas) + " x " +
             std::to_string(p.deployment.gpus());
  }
  if (at_start > *cluster.gpus)
    v.fail("the pools start with " + std::to_string(at_start) + " GPUs (" + parts + "), more than the budget of " +
           std::to_string(*cluster.gpus));
}

// `budget_policy: NAME` (budget_policy.h): how autoscaled pools share `gpus`. A pool's
// `priority` is read only by the priority policy, so it is refused under another.
void parse_budget_policy(const Field& f, const std::vector<Field>& items, ClusterConfig& cluster) {
  const std::optional<Field> v = f.get("budget_policy");
  if (v) {
    if (!cluster.gpus) v->fail("a budget policy shares cluster.gpus; give gpus: N");
    cluster.budget_policy = v->as_string();
    const std::vector<std::string> policies = budget_policy_names();
    if (!contains(policies, cluster.budget_policy))
      v->fail(unknown_choice_message("budget policy", "policies", cluster.budget_policy, policies));
  }
  // slo_headroom ranks pools by the slo_headroom autoscaling policy's measure, which only
  // pools autoscaled by it keep (a TTFT target and a window).
  if (cluster.budget_policy == "slo_headroom")
    for (std::size_t i = 0; i < cluster.pools.size(); ++i) {
      const PoolConfig& p = cluster.pools[i];
      if (p.autoscale && p.autoscale->policy != "slo_headroom")
        items[i].get("autoscale")->require("policy").fail(
            "budget_policy slo_headroom ranks pools by TTFT p90 against autoscale.ttft_target; pool '" + p.name +
            "' autoscales by '" + p.autoscale->policy + "': use policy slo_headroom");
    }
  if (cluster.budget_policy == "priority") return;
  for (const Field& item : items)
    if (const std::optional<Field> p = item.get("priority"))
      p->fail("'priority' is read only by cluster.budget_policy: priority, not by '" + cluster.budget_policy + "'");
}

}  // namespace

ClusterConfig parse_cluster(const Field& f, const std::vector<ClassSpec>& classes) {
  f.expect_map(kClusterKeys);
  ClusterConfig cluster;
  const Field pools = f.require("pools");
  const std::vector<Field> items = pools.items();
  if (items.empty()) pools.fail("at least one pool is needed");
  std::set<std::string> names;
  for (std::size_t i = 0; i < items.size(); ++i) {
    PoolConfig pool = parse_pool(items[i], i, items.size(), classes);
    if (!names.insert(pool.name).second) {
      const std::optional<Field> name = items[i].get("name");
      (name ? *name : items[i]).fail("duplicate pool name '" + pool.name + "'");
    }
    cluster.pools.push_back(std::move(pool));
  }
  if (auto router = f.get("router")) parse_cluster_router(*router, cluster);
  check_decode_pools(cluster, items);
  if (auto t = f.get("topology")) cluster.topology = parse_topology(*t);
  check_cluster_network(f, cluster, items);
  if (auto a = f.get("admission")) cluster.admission = parse_admission(*a, classes);
  check_classes_served(pools, cluster, classes);
  if (auto e = f.get("energy")) cluster.energy = parse_energy(*e, cluster);
  if (auto g = f.get("gpus")) parse_gpu_budget(*g, cluster);
  parse_budget_policy(f, items, cluster);
  return cluster;
}

}  // namespace servesim
