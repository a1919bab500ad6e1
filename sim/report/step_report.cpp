#include "sim/report/step_report.h"

#include <iomanip>
#include <ostream>
#include <sstream>

namespace servesim {
namespace {

std::string describe_batch(const BatchShape& b) {
  std::ostringstream s;
  s << b.prefills.size() << " prefill sequence(s) (" << b.prefill_tokens() << " new tokens), "
    << b.decode_seqs << " decode sequence(s) (" << b.decode_context_sum
    << " context tokens): " << b.total_tokens() << " tokens computed";
  return s.str();
}

void print_table(std::ostream& out, const std::string& header, const BatchShape& batch,
                 const StepCost& cost, const std::vector<OpTiming>& ops) {
  out << header << "\n" << describe_batch(batch) << "\n\n";
  out << std::left << std::setw(20) << "op" << std::right << std::setw(13) << "GFLOP"
      << std::setw(12) << "MB" << std::setw(12) << "comm MB" << std::setw(11) << "ms"
      << "  bound\n";
  out << std::fixed;
  for (const OpTiming& op : ops) {
    out << std::left << std::setw(20) << op.name << std::right << std::setprecision(3)
        << std::setw(13) << op.flops / 1e9 << std::setw(12) << op.bytes / 1e6 << std::setw(12)
        << op.comm_bytes / 1e6 << std::setw(11) << op.time_s * 1e3 << "  " << op.bound
        << (op.link.empty() ? "" : " over " + op.link)
        << (op.algorithm.empty() ? "" : " (" + op.algorithm + ")")
        << (op.source == "roofline" || op.bound == "overhead" ? "" : "  [" + op.source + "]") << "\n";
  }
  out << "\ntotal " << std::setprecision(3) << ms_from_ticks(cost.total_ns)
      << " ms = compute " << ms_from_ticks(cost.compute_ns) << " + memory "
      << ms_from_ticks(cost.memory_ns) << " + communication " << ms_from_ticks(cost.comm_ns)
      << " + overhead " << ms_from_ticks(cost.overhead_ns) << "\n";
  if (cost.table_fallback_ops > 0) {
    out << cost.table_fallback_ops
        << " table operator(s) outside the measured range were timed by the roofline\n";
  }
  out.unsetf(std::ios::fixed);
}

}  // namespace

nlohmann::ordered_json step_to_json(const StepStudy& step) {
  const StepCost& cost = step.cost;
  const Deployment& dep = step.dep;
  const BatchShape& batch = step.batch;
  nlohmann::ordered_json j;
  j["ms"] = ms_from_ticks(cost.total_ns);
  j["compute_ms"] = ms_from_ticks(cost.compute_ns);
  j["memory_ms"] = ms_from_ticks(cost.memory_ns);
  j["comm_ms"] = ms_from_ticks(cost.comm_ns);
  j["overhead_ms"] = ms_from_ticks(cost.overhead_ns);
  j["model"] = step.model.name;
  j["hardware"] = step.hardware.name;
  j["cost_model"] = step.cost_model;
  j["tp"] = dep.tp;
  j["pp"] = dep.pp;
  j["ep"] = dep.ep;
  j["micro_batches"] = dep.micro_batches;
  j["weights"] = std::string(dtype_name(dep.weights));
  j["kv"] = std::string(dtype_name(dep.kv));
  j["activations"] = std::string(dtype_name(dep.activations));
  j["prefill_tokens"] = batch.prefill_tokens();
  j["decode_seqs"] = batch.decode_seqs;
  j["decode_context_tokens"] = batch.decode_context_sum;
  j["tokens"] = batch.total_tokens();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const OpTiming& op : step.ops) {
    list.push_back({{"name", op.name},
                    {"flops", op.flops},
                    {"bytes", op.bytes},
                    {"comm_bytes", op.comm_bytes},
                    {"ms", op.time_s * 1e3},
                    {"bound", op.bound},
                    {"source", op.source}});
    // Communication operators only: which link priced them (OpTiming::link).
    if (!op.link.empty()) list.back()["link"] = op.link;
    // And how it runs (OpTiming::algorithm): NCCL's algorithm and protocol across machines.
    if (!op.algorithm.empty()) list.back()["algorithm"] = op.algorithm;
  }
  j["ops"] = std::move(list);
  j["table_fallback_ops"] = cost.table_fallback_ops;
  return j;
}

void print_step_table(const StepStudy& step, std::ostream& out) {
  const Deployment& dep = step.dep;
  std::ostringstream header;
  header << step.model.name << " on " << step.hardware.name << " (tp=" << dep.tp << ", pp=" << dep.pp
         << (dep.ep > 1 ? ", ep=" + std::to_string(dep.ep) : std::string())
         << (dep.pp > 1 && dep.micro_batches > 0 ? ", " + std::to_string(dep.micro_batches) + " micro-batches"
                                                 : std::string())
         << ", weights " << dtype_name(dep.weights) << ", kv " << dtype_name(dep.kv) << ")\n"
         << "cost model: " << step.cost_model;
  print_table(out, header.str(), step.batch, step.cost, step.ops);
}

}  // namespace servesim
