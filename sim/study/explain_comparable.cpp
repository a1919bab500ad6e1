#include "sim/study/explain_comparable.h"

#include <cstdint>

namespace servesim {

std::string overload_of(const SummaryBlock& run, const SummaryBlock* base) {
  std::string why;
  if (run.get("saturated") > 0) {
    why = "saturated by " + run.label("saturated_by");
    const std::string resource = run.label("saturated_resource");
    if (!resource.empty() && resource != "none") why += ", short of " + resource;
  }
  std::int64_t extra = 0;
  std::string reasons;
  for (const auto& [reason, count] : run.rejected_reasons) {
    std::int64_t more = 0;
    if (base) {
      const auto it = base->rejected_reasons.find(reason);
      more = count - (it == base->rejected_reasons.end() ? 0 : it->second);
    } else if (reason == "queue_full" || reason == "timed_out") {
      more = count;
    }
    if (more <= 0) continue;
    extra += more;
    reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(more);
  }
  if (extra > 0) {
    if (!why.empty()) why += "; ";
    why += "rejected " + std::to_string(extra) + (base ? " more requests than the base" : " requests") + " (" +
           reasons + ")";
  }
  return why;
}

std::string too_short_of(const SummaryBlock& run) {
  if (!(run.get("too_short_to_judge") > 0)) return "";
  const std::string note = run.label("saturation_note");
  return note.empty() ? "too short to judge whether it kept up" : note;
}

bool several_tokens_per_step(const Scenario& s) {
  for (const auto& p : s.cluster.pools)
    if (p.engine.speculative.enabled) return true;
  return false;
}

}  // namespace servesim
