#include "sim/hardware/calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/hardware/nelder_mead.h"
#include "sim/hardware/roofline.h"
#include "sim/model/op_graph.h"
#include "sim/model/shard.h"

namespace servesim {

namespace {

// A fitted parameter: its YAML key, where it lives, its bounds (in HardwareSpec units;
// the fit searches log(value) between them) and the factor to the YAML's unit.
struct Param {
  const char* key;
  double HardwareSpec::*field;
  double lo;
  double hi;
  double yaml_scale;
  double fallback_start;  // where to start when the profile leaves it at 0 ("inherit")
};

const Param kParams[] = {
    {"gemm_efficiency", &HardwareSpec::gemm_efficiency, 0.05, 1.0, 1, 0.7},
    {"memory_efficiency", &HardwareSpec::memory_efficiency, 0.05, 1.0, 1, 0.8},
    {"kernel_overhead_us", &HardwareSpec::kernel_overhead_s, 1e-9, 100e-6, 1e6, 3e-6},
    {"attention_efficiency", &HardwareSpec::attention_efficiency, 0.02, 1.0, 1, 0.4},
    {"attention_row_overhead_keys", &HardwareSpec::attention_row_overhead_keys, 0.01, 1e5, 1, 200},
    {"decode_attention_efficiency", &HardwareSpec::decode_attention_efficiency, 0.05, 1.0, 1, 0.8},
    {"decode_attention_efficiency_many", &HardwareSpec::decode_attention_efficiency_many, 0.05, 1.0, 1, 0.6},
    {"decode_attention_half_seqs", &HardwareSpec::decode_attention_half_seqs, 0.5, 1e5, 1, 16},
    {"decode_attention_row_overhead_keys", &HardwareSpec::decode_attention_row_overhead_keys, 0.01, 1e4, 1, 100},
    {"elementwise_efficiency", &HardwareSpec::elementwise_efficiency, 0.01, 1.0, 1, 0.5},
    {"layer_overhead_us", &HardwareSpec::layer_overhead_s, 1e-9, 1e-3, 1e6, 10e-6},
};

const Param& param(const std::string& key) {
  for (const Param& p : kParams)
    if (key == p.key) return p;
  SS_ASSERT(false, "unknown calibration parameter");
  return kParams[0];
}

double to_value(double x, const Param& p) { return bounded_from_real(x, p.lo, p.hi); }
double to_x(double v, const Param& p) { return real_from_bounded(v, p.lo, p.hi); }

Deployment deployment_for(Dtype d) {
  Deployment dep;
  dep.weights = d;
  return dep;
}

// A row ready to predict: its operators are worked out once, since only the hardware
// parameters change during the fit.
struct Prepared {
  std::size_t index = 0;  // into the rows given to calibrate()
  MeasurementKind kind = MeasurementKind::step;
  Dtype dtype = Dtype::bf16;
  std::vector<OpCost> ops;  // a whole step, or the single kernel
  double measured_s = 0;
};

BatchShape batch_of(const Measurement& m) {
  BatchShape b;
  if (m.prefill_tokens > 0) b.prefills.push_back({m.prefill_tokens, m.past_tokens, true});
  b.decode_seqs = m.decode_batch;
  b.decode_context_sum = m.decode_batch * m.decode_context;
  return b;
}

std::optional<Prepared> prepare(const ModelSpec& model, const Measurement& m, std::size_t index) {
  Prepared p;
  p.index = index;
  p.kind = m.kind;
  p.dtype = m.dtype;
  p.measured_s = m.ms * 1e-3;
  const Deployment dep = deployment_for(m.dtype);
  switch (m.kind) {
    case MeasurementKind::ceiling:
      return std::nullopt;
    case MeasurementKind::gemm: {
      const double w = bytes_per_element(m.dtype);
      const double a = m.dtype == Dtype::fp8 ? 1.0 : 2.0;  // fp8 GEMMs take fp8 inputs
      const double mm = m.gemm_m, k = m.gemm_k, n = m.gemm_n;
      OpCost g{"gemm", OpKind::gemm};
      g.flops = 2 * mm * k * n;
      g.bytes_read = k * n * w + mm * k * a;
      g.bytes_written = mm * n * 2;
      g.rows = mm;
      p.ops.push_back(g);
      return p;
    }
    case MeasurementKind::step: {
      const std::string problem = deployment_problem(model, dep);
      if (!problem.empty()) throw ConfigError("", m.line, "model", problem);
      p.ops = step_ops(model, dep, batch_of(m));
      return p;
    }
    case MeasurementKind::attn_prefill:
    case MeasurementKind::attn_decode: {
      // One layer of the model's attention, without lm_head.
      ModelSpec one = model;
      one.num_layers = 1;
      BatchShape b = batch_of(m);
      for (auto& c : b.prefills) c.sampled = false;
      const char* name = m.kind == MeasurementKind::attn_prefill ? "attn_prefill" : "attn_decode";
      for (const OpCost& op : step_ops(one, dep, b))
        if (std::string_view(op.name) == name) p.ops.push_back(op);
      return p;
    }
  }
  return std::nullopt;
}

// Predicted seconds of prepared rows under one profile. Builds one roofline per dtype.
class Evaluator {
 public:
  Evaluator(const ModelSpec& model, const HardwareSpec& hw) : model_(model), hw_(hw) {}
  double seconds(const Prepared& p) {
    const RooflineCostModel& rf = roofline(p.dtype);
    if (p.kind == MeasurementKind::step) return static_cast<double>(rf.cost_of(p.ops).total_ns) * 1e-9;
    return rf.time_op(p.ops.front()).time_s;
  }

 private:
  const RooflineCostModel& roofline(Dtype d) {
    auto& slot = cache_[static_cast<int>(d)];
    if (!slot) slot.emplace(model_, hw_, deployment_for(d));
    return *slot;
  }
  const ModelSpec& model_;
  const HardwareSpec& hw_;
  std::array<std::optional<RooflineCostModel>, 4> cache_;
};

struct Weighted {
  const Prepared* row;
  double weight;
};

// Least squares on relative error over `rows`, searching `keys` from several starts.
HardwareSpec fit_stage(const ModelSpec& model, HardwareSpec hw, const std::vector<std::string>& keys,
                       const std::vector<Weighted>& rows, const std::string& stage, int random_starts,
                       std::vector<std::string>* at_bounds) {
  std::vector<const Param*> ps;
  for (const auto& k : keys) ps.push_back(&param(k));
  const auto apply = [&](HardwareSpec& h, const std::vector<double>& x) {
    for (std::size_t i = 0; i < ps.size(); ++i) h.*(ps[i]->field) = to_value(x[i], *ps[i]);
  };
  const auto objective = [&](const std::vector<double>& x) {
    HardwareSpec h = hw;
    apply(h, x);
    Evaluator ev(model, h);
    double sum = 0;
    for (const Weighted& r : rows) {
      const double e = (ev.seconds(*r.row) - r.row->measured_s) / r.row->measured_s;
      sum += r.weight * e * e;
    }
    return sum;
  };

  std::vector<std::vector<double>> starts;
  std::vector<double> from_profile;
  for (const Param* p : ps) {
    const double v = hw.*(p->field);
    from_profile.push_back(to_x(v > 0 ? v : p->fallback_start, *p));
  }
  starts.push_back(from_profile);
  starts.push_back(std::vector<double>(ps.size(), 0.0));  // the middle of every range (in log)
  const NelderMeadResult best = nelder_mead_multistart(objective, starts, random_starts, "calibrate/" + stage, 2500);
  apply(hw, best.x);
  for (const Param* p : ps) {
    const double v = hw.*(p->field);
    if (v <= p->lo * 1.001 || v >= p->hi * 0.999) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s = %g (%s bound)", p->key, v * p->yaml_scale,
                    v <= p->lo * 1.001 ? "lower" : "upper");
      at_bounds->push_back(buf);
    }
  }
  return hw;
}

// Every row turned into the shapes the cost model prices; a row the model cannot take is
// an error naming the row's line.
std::vector<Prepared> prepare_measurements(const ModelSpec& model, const std::vector<Measurement>& rows) {
  std::vector<Prepared> prepared;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    try {
      if (auto p = prepare(model, rows[i], i)) prepared.push_back(std::move(*p));
    } catch (const ConfigError& e) {
      throw ConfigError("", rows[i].line, "model", rows[i].label() + ": " + e.message());
    }
  }
  return prepared;
}

// A step row the caller keeps in the fit (the others are held out to check it).
bool is_fitted_step(const Prepared& p, const std::vector<Measurement>& rows, const CalibrationOptions& options) {
  return p.kind == MeasurementKind::step && (!options.fit_step || options.fit_step(rows[p.index]));
}

// The rows each stage fits, and what the steps stage can tell apart.
struct StageRows {
  std::vector<Weighted> gemm, attn_prefill, steps;
  std::set<std::int64_t> decode_batches;  // batch sizes of the decode rows among the steps
  bool step_prefill = false;              // some fitted step has prefill tokens
};

StageRows rows_by_stage(const std::vector<Prepared>& prepared, const std::vector<Measurement>& rows,
                        const CalibrationOptions& options) {
  StageRows s;
  for (const Prepared& p : prepared) {
    if (p.kind == MeasurementKind::gemm) s.gemm.push_back({&p, 1.0});
    if (p.kind == MeasurementKind::attn_prefill) s.attn_prefill.push_back({&p, 1.0});
    if (p.kind == MeasurementKind::attn_decode && options.attn_decode_weight > 0) {
      s.steps.push_back({&p, options.attn_decode_weight});
      s.decode_batches.insert(rows[p.index].decode_batch);
    }
    if (is_fitted_step(p, rows, options)) {
      s.steps.push_back({&p, 1.0});
      if (rows[p.index].decode_batch > 0) s.decode_batches.insert(rows[p.index].decode_batch);
      if (rows[p.index].prefill_tokens > 0) s.step_prefill = true;
    }
  }
  return s;
}

// The steps stage fits what the kernel stages before it did not, and only what its rows
// can tell apart.
std::vector<std::string> steps_stage_keys(const StageRows& s) {
  std::vector<std::string> keys;
  if (s.gemm.empty()) keys = {"gemm_efficiency", "memory_efficiency"};
  if (s.attn_prefill.empty() && s.step_prefill) {
    keys.push_back("attention_efficiency");
    keys.push_back("attention_row_overhead_keys");
  }
  if (!s.decode_batches.empty()) keys.push_back("decode_attention_efficiency");
  // Two regimes need at least two batch sizes to tell apart.
  if (s.decode_batches.size() >= 2) {
    keys.push_back("decode_attention_efficiency_many");
    keys.push_back("decode_attention_half_seqs");
    // The per-sequence cost of a decode-attention row (docs/cost-model.md): a profile
    // re-derived from kernel tables carries one, which steps measured elsewhere must refit.
    keys.push_back("decode_attention_row_overhead_keys");
  }
  keys.push_back("elementwise_efficiency");
  keys.push_back("layer_overhead_us");
  return keys;
}

// Every row under the final profile: its prediction, error and role; and the error
// summaries of the fitted and held-out steps.
void score_calibrated_rows(const ModelSpec& model, const std::vector<Measurement>& rows,
                           const std::vector<Prepared>& prepared, const CalibrationOptions& options,
                           CalibrationResult& result) {
  Evaluator ev(model, result.hardware);
  std::vector<double> fit_e, held_e;
  std::size_t next = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CalibratedRow r;
    r.measurement = rows[i];
    if (next < prepared.size() && prepared[next].index == i) {
      const Prepared& p = prepared[next++];
      r.predicted_ms = ev.seconds(p) * 1e3;
      r.error = (r.predicted_ms - rows[i].ms) / rows[i].ms;
      if (p.kind == MeasurementKind::step) {
        r.role = is_fitted_step(p, rows, options) ? RowRole::fitted : RowRole::held_out;
        (r.role == RowRole::fitted ? fit_e : held_e).push_back(r.error);
      } else if (p.kind == MeasurementKind::attn_decode) {
        r.role = options.attn_decode_weight > 0 ? RowRole::fitted : RowRole::not_used;
      } else {
        r.role = RowRole::fitted;
      }
    }
    result.rows.push_back(std::move(r));
  }
  result.fitted_steps = summarize_errors(fit_e);
  result.held_out_steps = summarize_errors(held_e);
}

}  // namespace

ErrorSummary summarize_errors(const std::vector<double>& errors) {
  ErrorSummary s;
  s.rows = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> a;
  for (double e : errors) a.push_back(std::fabs(e));
  std::sort(a.begin(), a.end());
  const std::size_t n = a.size();
  s.median_abs = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
  s.max_abs = a.back();
  return s;
}

ErrorSummary CalibrationResult::summary(MeasurementKind kind, RowRole role) const {
  std::vector<double> e;
  for (const auto& r : rows)
    if (r.measurement.kind == kind && r.role == role) e.push_back(r.error);
  return summarize_errors(e);
}

double predict_ms(const ModelSpec& model, const HardwareSpec& hw, const Measurement& row) {
  const auto p = prepare(model, row, 0);
  if (!p) return 0;
  Evaluator ev(model, hw);
  return ev.seconds(*p) * 1e3;
}

double yaml_value(const HardwareSpec& hw, const std::string& key) {
  const Param& p = param(key);
  return hw.*(p.field) * p.yaml_scale;
}

// Up to three stages, each on the parameters its rows can pin down: GEMM rows (when
// given), then prefill attention rows (when given), then whole steps on what is left
// (steps_stage_keys).
CalibrationResult calibrate(const ModelSpec& model, const HardwareSpec& start,
                            const std::vector<Measurement>& rows, const CalibrationOptions& options) {
  const std::vector<Prepared> prepared = prepare_measurements(model, rows);
  const StageRows stage_rows = rows_by_stage(prepared, rows, options);
  const bool any_step = std::any_of(prepared.begin(), prepared.end(),
                                    [&](const Prepared& p) { return is_fitted_step(p, rows, options); });
  if (!any_step) {
    throw ConfigError("", 0, "measurements",
                      "no prefill, decode or mixed rows to fit (held out or absent)");
  }

  CalibrationResult result;
  HardwareSpec hw = start;
  const int starts = options.random_starts;
  if (!stage_rows.gemm.empty()) {
    FitStage s{"gemm", {"gemm_efficiency", "memory_efficiency", "kernel_overhead_us"},
               static_cast<int>(stage_rows.gemm.size())};
    hw = fit_stage(model, hw, s.keys, stage_rows.gemm, s.name, starts, &result.at_bounds);
    result.stages.push_back(s);
  }
  if (!stage_rows.attn_prefill.empty()) {
    FitStage s{"attn_prefill", {"attention_efficiency", "attention_row_overhead_keys"},
               static_cast<int>(stage_rows.attn_prefill.size())};
    hw = fit_stage(model, hw, s.keys, stage_rows.attn_prefill, s.name, starts, &result.at_bounds);
    result.stages.push_back(s);
  }
  FitStage last{"steps", steps_stage_keys(stage_rows), static_cast<int>(stage_rows.steps.size())};
  hw = fit_stage(model, hw, last.keys, stage_rows.steps, last.name, starts, &result.at_bounds);
  result.stages.push_back(last);

  result.hardware = hw;
  score_calibrated_rows(model, rows, prepared, options, result);
  return result;
}

}  // namespace servesim
