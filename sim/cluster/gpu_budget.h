#pragma once
// `cluster.gpus`: the GPUs every pool of the cluster draws from (docs/cluster.md, "Several
// models"). A replica holds tp x pp GPUs from the moment it is paid for (starting, active
// or draining) until it turns off. Fixed pools hold theirs for the whole run; autoscalers
// take GPUs for each replica they start and give them back when it turns off, and a start
// that does not fit waits for a later evaluation. The budget never goes over its total.
#include "sim/core/assert.h"

namespace servesim {

class GpuBudget {
 public:
  explicit GpuBudget(int total_gpus) : total_(total_gpus) {}

  int total() const { return total_; }
  int held() const { return held_; }
  int peak() const { return peak_; }
  bool fits(int gpus) const { return held_ + gpus <= total_; }

  // REQUIRES: fits(gpus).
  void take(int gpus) {
    SS_ASSERT(gpus >= 0 && fits(gpus), "a GPU budget taken beyond its total");
    held_ += gpus;
    if (held_ > peak_) peak_ = held_;
  }
  // REQUIRES: gpus <= held().
  void give(int gpus) {
    SS_ASSERT(gpus >= 0 && gpus <= held_, "GPUs given back that were not held");
    held_ -= gpus;
  }

 private:
  int total_;
  int held_ = 0;
  int peak_ = 0;
};

}  // namespace servesim
