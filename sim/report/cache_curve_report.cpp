#include "sim/report/cache_curve_report.h"

#include <iomanip>
#include <ostream>
#include <string>

namespace servesim {
namespace {

std::string cache_size_text(std::int64_t size_tokens) {
  return size_tokens == kUnlimitedCacheTokens ? "inf" : std::to_string(size_tokens);
}

}  // namespace

nlohmann::ordered_json cache_curve_to_json(const CacheCurveRequest& request, const CacheCurveStudy& study) {
  const bool tiers = request.tiers.any();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CacheCurvePoint& p : study.points) {
    nlohmann::ordered_json o;
    o["size_tokens"] = p.size_tokens == kUnlimitedCacheTokens ? nlohmann::ordered_json(nullptr)
                                                              : nlohmann::ordered_json(p.size_tokens);
    o["hit_ratio"] = p.hit_ratio;
    o["hit_tokens"] = p.hit_tokens;
    o["prompt_tokens"] = p.prompt_tokens;
    if (tiers) {
      o["cpu_hit_tokens"] = p.tier_hit_tokens[0];
      o["disk_hit_tokens"] = p.tier_hit_tokens[1];
    }
    list.push_back(o);
  }
  return list;
}

void print_cache_curve_table(const CacheCurveRequest& request, const CacheCurveStudy& study, std::ostream& out) {
  const bool tiers = request.tiers.any();
  out << "cache-curve: " << study.requests << " requests, " << study.prompt_tokens << " prompt tokens, blocks of "
      << study.block_tokens << " tokens";
  if (request.replicas > 1) out << ", " << request.replicas << " replicas (" << request.router << ")";
  if (tiers) out << ", KV tiers of " << cache_size_text(request.tiers.cpu_tokens) << " (CPU) and "
                 << cache_size_text(request.tiers.disk_tokens) << " (disk) tokens below each cache";
  out << "\n  size_tokens   hit_ratio   hit_tokens" << (tiers ? "   cpu_hit_tokens  disk_hit_tokens" : "") << "\n";
  for (const CacheCurvePoint& p : study.points) {
    out << "  " << std::setw(11) << cache_size_text(p.size_tokens) << "   " << std::fixed << std::setprecision(4)
        << std::setw(9) << p.hit_ratio << "   " << std::setw(10) << p.hit_tokens;
    if (tiers) out << "   " << std::setw(14) << p.tier_hit_tokens[0] << "  " << std::setw(15) << p.tier_hit_tokens[1];
    out << "\n";
  }
}

}  // namespace servesim
