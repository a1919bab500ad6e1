#pragma once
// The figures of a run, in the field names of vLLM's serving benchmark result (`vllm bench serve`),
// kept in a fixed order so that summary.json is byte-identical for equal runs.
// Every field is defined, with its unit, in docs/metrics.md.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace servesim {

// A named group of fields written as one JSON object (e.g. "ttft_attribution") or as one
// item of a list (a pool's "replicas"), in the order they were added.
struct FieldGroup {
  std::string name;
  std::vector<std::pair<std::string, double>> fields;
  std::vector<std::string> count_fields;  // printed as integers
  void set(const std::string& field, double value) { fields.emplace_back(field, value); }
  void set_count(const std::string& field, std::int64_t value) {
    fields.emplace_back(field, static_cast<double>(value));
    count_fields.push_back(field);
  }
};

// One objective of a class's `slo:` judged on the class's own figure (docs/metrics.md,
// "SLO verdict"): `ttft: 1s` is met when the class's p99_ttft_ms is at most 1000.
struct SloObjectiveVerdict {
  std::string objective;  // METRIC_STAT as --slo spells it: "ttft_p99", "itl_every"
  std::string field;      // the figure it reads: "p99_ttft_ms"; "max_itl_ms" for `every`
  double target_ms = 0;
  double value_ms = 0;    // NaN: the class has no sample of that figure
  bool met = false;
};

struct SummaryBlock {
  std::vector<std::pair<std::string, double>> fields;  // in output order
  // Names of the fields that are counts; writers print them as integers.
  std::vector<std::string> count_fields;
  // Rejected requests by reason (the RequestRecord's reject_reason). A std::map so the
  // order of the JSON object does not depend on the order rejections happened in.
  std::map<std::string, std::int64_t> rejected_reasons;
  // Written after every field: each as "NAME": {fields}.
  std::vector<FieldGroup> objects;
  // Text fields (e.g. "saturated_by"), each written right after the field named `after`
  // (at the end of the plain fields when there is none), in the order they were set.
  struct Label {
    std::string name, value, after;
  };
  std::vector<Label> labels;
  // Pools only: one item per replica, written as "replicas": [{fields}, ...]; none: omitted.
  std::vector<FieldGroup> replicas;
  // Classes with a stated `slo:` only: each objective in the order ttft, itl, tpot, e2el,
  // written as "slo_verdict" after the groups; none: omitted (sim/metrics/slo_verdict.h).
  std::vector<SloObjectiveVerdict> slo_verdict;

  // The value of a field, or NaN when absent.
  double get(const std::string& name) const;
  void set(const std::string& name, double value);  // replaces or appends
  // Sets a field and marks it as a count. REQUIRES: |value| < 2^53 (exact as a double).
  void set_count(const std::string& name, std::int64_t value);
  bool is_count(const std::string& name) const;
  bool has(const std::string& name) const;
  // Sets (replaces or appends) a text field, written after the field `after`.
  void set_label(const std::string& name, const std::string& value, const std::string& after);
  // The value of a text field, or "" when absent.
  std::string label(const std::string& name) const;
};

// What ran, written as summary.json's "deployment" (docs/metrics.md) so that `compare` can
// tell runs of different models or hardware apart. The studies that run a scenario fill it
// (describe_deployment, sim/study/summary_json.h); no pools: unknown, not written.
struct PoolDeploymentInfo {
  std::string pool, model, weights, kv, hardware;
  int tp = 1, pp = 1, ep = 1;
  int replicas = 0;
  int min_replicas = -1;  // autoscaled pools only; -1: a fixed pool
  std::string engine;           // the engine preset; "" when the scenario names none
  std::string engine_version;   // "" when neither the scenario nor its preset names one
  std::string cost_model;       // roofline, kernels, ...
};
struct DeploymentInfo {
  std::string scenario;  // the scenario's file name, without its folder
  std::vector<PoolDeploymentInfo> pools;
};

struct RunSummary {
  SummaryBlock overall;
  std::vector<std::pair<std::string, SummaryBlock>> classes;  // scenario order
  std::vector<std::pair<std::string, SummaryBlock>> pools;
  DeploymentInfo deployment;
};

}  // namespace servesim
