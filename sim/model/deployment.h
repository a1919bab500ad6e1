#pragma once
// How one replica runs a model: parallelism and numeric formats.
#include <optional>

#include "sim/model/dtype.h"

namespace servesim {

struct Deployment {
  int tp = 1;                  // tensor-parallel degree (GPUs per stage)
  int pp = 1;                  // pipeline-parallel stages
  // Expert-parallel degree within a stage (mixture-of-experts models only): the routed
  // experts are split into `ep` groups of whole experts, each group tensor-split over
  // tp/ep GPUs. ep = 1 splits every expert over all tp GPUs; ep = tp gives each GPU
  // num_experts/tp whole experts (vLLM's --enable-expert-parallel). ep divides tp, so it
  // adds no GPUs.
  int ep = 1;
  // Pipeline micro-batching (pp > 1 only). 0: the step costs one stage's time, as when
  // consecutive steps' batches fill the pipeline (vLLM keeps pp batches in flight).
  // m >= 1: each step's batch is split into m micro-batches that pass through all pp
  // stages (GPipe): step = sum of micro-batch stage times + (pp - 1) x the longest, so an
  // even split idles (pp - 1) / (m + pp - 1) of the time.
  int micro_batches = 0;
  Dtype weights = Dtype::bf16; // int4/int8 are weight-only: math stays in bf16
  // The routed and shared experts' format when it differs from `weights` (FP8-dynamic
  // MoE checkpoints ship fp8 experts beside bf16 attention; the router stays bf16 either
  // way). Unset: the experts are in `weights` too. Mixture-of-experts models only.
  std::optional<Dtype> expert_weights;
  Dtype kv = Dtype::bf16;
  Dtype activations = Dtype::bf16;
  int gpus() const { return tp * pp; }
  Dtype expert_dtype() const { return expert_weights.value_or(weights); }
};

}  // namespace servesim
