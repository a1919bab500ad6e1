#pragma once
// Pricing one engine step (`servesim step`): a batch of prefill chunks and decode
// sequences on one deployment of a model on a GPU, by the cost model a pool would get
// (the measured kernels where they cover it, else the roofline), with every operator's
// FLOPs, bytes, time, bound and source.
#include <string>
#include <vector>

#include "sim/hardware/cost_model.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct StepRequest {
  std::string model;     // models/NAME.yaml, a YAML path or a Hugging Face config.json
  std::string hardware;  // configs/hardware/NAME.yaml or a path
  Deployment dep;
  BatchShape batch;
  std::string cost_model;      // "" (kernels where the tables cover it), roofline or kernels
  std::string table_path;      // the `table` cost model's Vidur profile instead
  std::string engine = "vllm";  // whose kernel tables: vllm | sglang | trtllm
  std::string engine_version;   // "" the engine's default
  int cuda_graph_max_batch = 0;  // decode-only steps padded to CUDA-graph sizes up to this
};

struct StepStudy {
  ModelSpec model;
  HardwareSpec hardware;
  Deployment dep;
  BatchShape batch;
  StepCost cost;
  std::vector<OpTiming> ops;
  std::string cost_model;  // describe() of the model that priced it
  // Where the tables priced the step under another release than the one asked for, that
  // substitution; where the roofline priced it by default, why the tables did not ("" else).
  std::string cost_model_note;
};

// A weights, KV or activations format by name: bf16, fp8, int8 or int4. Throws
// ConfigError("", 0, key, ...) for any other; the CLI and the Python package both read
// their format arguments through it.
Dtype parse_step_dtype(const std::string& text, const std::string& key);

// Every check of a step request, in one place so that the CLI and the Python package refuse
// the same requests with the same words: tp, pp and ep at least 1; micro_batches 0 or more,
// and only with a pipeline (pp >= 2); activations bf16 or fp8; a KV cache of bf16 or fp8;
// each prefill chunk at least 1 new token over 0 or more cached; decode counts not
// negative; something to price; a cost model and engine by a known name. Throws ConfigError
// whose key names the request field ("tp", "kv", "prefill", ...).
void check_step_request(const StepRequest& request);

// Prices the step (check_step_request first). Throws ConfigError for a model, hardware or
// option it cannot use (the key names the option: "cost_model", "engine", ...).
StepStudy price_step(const StepRequest& request);

}  // namespace servesim
