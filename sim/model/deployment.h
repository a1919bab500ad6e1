#pragma once
// How one replica runs a model: parallelism and numeric formats.
#include "sim/model/dtype.h"

namespace servesim {

struct Deployment {
  int tp = 1;                  // tensor-parallel degree (GPUs per stage)
  int pp = 1;                  // pipeline-parallel stages
  Dtype weights = Dtype::bf16; // int4/int8 are weight-only: math stays in bf16
  Dtype kv = Dtype::bf16;
  Dtype activations = Dtype::bf16;
  int gpus() const { return tp * pp; }
};

}  // namespace servesim
