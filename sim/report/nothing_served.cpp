#include "sim/report/nothing_served.h"

#include "sim/engine/rejection_fixes.h"

namespace servesim {

std::string nothing_served_message(const RunResult& r) {
  std::string text = "no request completed: arrived " + std::to_string(r.arrived) + ", rejected " +
                     std::to_string(r.rejected) + ", unfinished " + std::to_string(r.unfinished) + "\n";
  for (const auto& [reason, count] : r.summary.overall.rejected_reasons) {
    text += "  " + std::to_string(count) + " rejected " + reason;
    if (reason == "exceeds_max_context") text += std::string(": ") + kExceedsMaxContextFix;
    if (reason == "exceeds_kv_capacity") text += std::string(": ") + kExceedsKvCapacityFix;
    text += "\n";
  }
  if (r.unfinished > 0 && r.stopped_by_time) text += "  stop.time ended the run before any request finished: lengthen it\n";
  return text;
}

}  // namespace servesim
