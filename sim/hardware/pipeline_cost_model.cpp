#include "sim/hardware/pipeline_cost_model.h"

#include <algorithm>
#include <sstream>

#include "sim/core/assert.h"

namespace servesim {

std::vector<BatchShape> split_micro_batches(const BatchShape& batch, int m) {
  SS_ASSERT(m >= 1, "at least one micro-batch");
  std::vector<BatchShape> parts(static_cast<std::size_t>(m));
  std::vector<std::int64_t> tokens(parts.size(), 0);
  // Decode sequences: B/m each, the remainder one more to the first; context in
  // proportion to the sequences (the same remainder rule).
  const std::int64_t seqs = batch.decode_seqs;
  std::int64_t context_left = batch.decode_context_sum;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::int64_t n = seqs / m + (static_cast<std::int64_t>(i) < seqs % m ? 1 : 0);
    parts[i].decode_seqs = n;
    const std::int64_t ctx = seqs > 0 ? batch.decode_context_sum / seqs * n : 0;
    parts[i].decode_context_sum = ctx;
    context_left -= ctx;
    tokens[i] = n;
  }
  if (seqs > 0) parts[0].decode_context_sum += context_left;  // what integer division left
  for (const PrefillChunk& c : batch.prefills) {
    const auto lightest = static_cast<std::size_t>(
        std::min_element(tokens.begin(), tokens.end()) - tokens.begin());
    parts[lightest].prefills.push_back(c);
    tokens[lightest] += c.new_tokens;
  }
  parts[0].extra_sampled_tokens = batch.extra_sampled_tokens;
  std::vector<BatchShape> out;
  for (BatchShape& p : parts) {
    if (!p.empty()) out.push_back(std::move(p));
  }
  return out;
}

PipelineCostModel::PipelineCostModel(std::unique_ptr<CostModel> stage, int pp, int micro_batches)
    : stage_(std::move(stage)), pp_(pp), micro_batches_(micro_batches) {
  SS_ASSERT(stage_ != nullptr && pp_ >= 2 && micro_batches_ >= 1, "checked by make_cost_model");
}

StepCost PipelineCostModel::step_cost(const BatchShape& batch) const {
  SS_ASSERT(!batch.empty(), "a step computes at least one token");
  StepCost total;
  total.total_ns = 0;
  Tick longest = 0;
  for (const BatchShape& part : split_micro_batches(batch, micro_batches_)) {
    const StepCost c = stage_->step_cost(part);
    total.compute_ns += c.compute_ns;
    total.memory_ns += c.memory_ns;
    total.comm_ns += c.comm_ns;
    total.overhead_ns += c.overhead_ns;
    total.total_ns += c.total_ns;
    total.table_fallback_ops += c.table_fallback_ops;
    longest = std::max(longest, c.total_ns);
  }
  // Fill and drain: the first micro-batch reaches the last stage after pp - 1 stage
  // times, the last one leaves the first stage pp - 1 stage times before the end.
  const Tick bubble = static_cast<Tick>(pp_ - 1) * longest;
  total.overhead_ns += bubble;
  total.total_ns += bubble;
  return total;
}

std::vector<OpTiming> PipelineCostModel::breakdown(const BatchShape& batch) const {
  std::vector<OpTiming> out;
  if (batch.empty()) return out;
  double longest_s = 0;
  for (const BatchShape& part : split_micro_batches(batch, micro_batches_)) {
    double part_s = 0;
    for (const OpTiming& op : stage_->breakdown(part)) {
      part_s += op.time_s;
      auto same = std::find_if(out.begin(), out.end(), [&](const OpTiming& o) { return o.name == op.name; });
      if (same == out.end()) {
        out.push_back(op);
        continue;
      }
      same->flops += op.flops;
      same->bytes += op.bytes;
      same->comm_bytes += op.comm_bytes;
      same->compute_s += op.compute_s;
      same->memory_s += op.memory_s;
      same->comm_s += op.comm_s;
      same->overhead_s += op.overhead_s;
      same->time_s += op.time_s;
    }
    longest_s = std::max(longest_s, part_s);
  }
  out.push_back(overhead_timing("pp_bubble", (pp_ - 1) * longest_s));
  return out;
}

std::string PipelineCostModel::describe() const {
  std::ostringstream s;
  s << stage_->describe() << " x pipeline(pp=" << pp_ << ", " << micro_batches_ << " micro-batches)";
  return s.str();
}

}  // namespace servesim
