#pragma once
// `servesim calibrate`: fits the roofline parameters of a hardware profile to measured
// times (sim/hardware/measurement.h) by least squares on relative error, in three stages
// that each fit only what their rows can tell apart (docs/cost-model.md section 5):
//   1. `gemm` rows         -> gemm_efficiency, memory_efficiency, kernel_overhead_us
//   2. `attn_prefill` rows -> attention_efficiency, attention_row_overhead_keys
//   3. whole steps (`prefill`, `decode`, `mixed`; plus `attn_decode` rows at a lower
//      weight) -> decode_attention_efficiency(_many), decode_attention_half_seqs,
//      elementwise_efficiency, layer_overhead_us, and the parameters of stages 1-2 when
//      the file has no rows for them.
// Datasheet figures, comm parameters and step_overhead_us are kept from the input profile:
// one model's steps cannot tell a per-step cost from a per-layer one.
#include <functional>
#include <string>
#include <vector>

#include "sim/hardware/hardware_spec.h"
#include "sim/hardware/measurement.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct CalibrationOptions {
  // Whole-step rows for which this returns false are held out: predicted, reported, and
  // not fitted. Empty = fit every step row.
  std::function<bool(const Measurement&)> fit_step;
  double attn_decode_weight = 0.3;  // weight of each attn_decode row in stage 3
  int random_starts = 4;            // extra seeded starting points per stage
};

enum class RowRole { fitted, held_out, not_used };

struct CalibratedRow {
  Measurement measurement;
  double predicted_ms = 0;
  double error = 0;  // (predicted - measured) / measured
  RowRole role = RowRole::not_used;
};

struct FitStage {
  std::string name;                  // "gemm", "attn_prefill", "steps"
  std::vector<std::string> keys;     // YAML keys fitted in this stage
  int rows = 0;                      // rows the stage fitted on
};

struct ErrorSummary {
  int rows = 0;
  double median_abs = 0;  // of |error|
  double max_abs = 0;
};

struct CalibrationResult {
  HardwareSpec hardware;            // the input profile with the fitted parameters
  std::vector<FitStage> stages;
  std::vector<CalibratedRow> rows;  // every row of the file, in file order
  ErrorSummary fitted_steps;        // whole-step rows fitted on
  ErrorSummary held_out_steps;      // whole-step rows held out (rows == 0 if none)
  // "gemm_efficiency = 1 (upper bound)": parameters the rows pushed to the edge of their
  // range, which usually means the rows cannot pin them (see docs/cost-model.md).
  std::vector<std::string> at_bounds;
  // |error| over rows of one kind and role.
  ErrorSummary summary(MeasurementKind kind, RowRole role) const;
};

// Throws ConfigError when the rows have no whole step to fit, or a step row cannot run
// the model (no GPU memory check is made: the rows were measured, so they ran).
CalibrationResult calibrate(const ModelSpec& model, const HardwareSpec& start,
                            const std::vector<Measurement>& rows,
                            const CalibrationOptions& options = {});

// Predicted milliseconds of one row (any kind but `ceiling`) with this profile.
double predict_ms(const ModelSpec& model, const HardwareSpec& hw, const Measurement& row);

// The value a fitted YAML key has in `hw`, in the YAML's unit (us for *_us keys).
double yaml_value(const HardwareSpec& hw, const std::string& key);

ErrorSummary summarize_errors(const std::vector<double>& errors);

}  // namespace servesim
