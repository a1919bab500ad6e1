// prefix-affinity: send a request where its longest prefix is already cached, unless that
// replica is overloaded (docs/prefix-caching.md, "Routing"). Two rules, after SGLang's
// cache-aware router (now the SGLang Model Gateway) and llm-d's weighted scorers:
//
// 1. Balance guard (SGLang): when the pool is out of balance,
//        max_outstanding - min_outstanding > 64  and  max_outstanding > 1.5 * min_outstanding
//    (SGLang's balance_abs_threshold and balance_rel_threshold defaults), the least loaded
//    replica gets the request, whatever is cached.
// 2. Otherwise the highest score (llm-d style: each term normalised to 0..1, weighted sum)
//        score_i = 2 * cached_i / prompt_tokens + 1 * (1 - outstanding_i / max_j outstanding_j)
//    The prefix term weighs twice the load term: the busiest replica still beats an idle
//    one that caches nothing when it holds more than half the prompt (2c > 1), and among
//    replicas with equal hits the load term alone decides. Ties go to the fewer
//    outstanding, then the lower index.
// cached_i comes from the replica's own prefix cache (what a precise, KV-event-driven
// scorer sees), so blocks still being computed do not attract requests yet.
#include <algorithm>

#include "sim/cluster/router.h"

namespace servesim {
namespace {

constexpr std::int64_t kBalanceAbsThreshold = 64;
constexpr double kBalanceRelThreshold = 1.5;
constexpr double kPrefixWeight = 2.0;
constexpr double kLoadWeight = 1.0;

class PrefixAffinityRouter final : public Router {
 public:
  bool wants_cached_prefix() const override { return true; }

  RouteDecision route(const RequestSpec& request, std::span<const ReplicaSnapshot> r) override {
    std::int64_t lo = r[0].outstanding, hi = r[0].outstanding;
    int least = 0;
    for (int i = 1; i < static_cast<int>(r.size()); ++i) {
      hi = std::max(hi, r[i].outstanding);
      if (r[i].outstanding < r[least].outstanding) least = i;
      lo = std::min(lo, r[i].outstanding);
    }
    if (hi - lo > kBalanceAbsThreshold && static_cast<double>(hi) > kBalanceRelThreshold * static_cast<double>(lo)) {
      return {least, "least loaded (pool out of balance)"};
    }
    const double prompt = static_cast<double>(std::max<std::int64_t>(request.prompt_tokens, 1));
    const double max_load = static_cast<double>(std::max<std::int64_t>(hi, 1));
    int best = 0;
    double best_score = -1;
    for (int i = 0; i < static_cast<int>(r.size()); ++i) {
      const double score = kPrefixWeight * static_cast<double>(r[i].cached_prefix_tokens) / prompt +
                           kLoadWeight * (1.0 - static_cast<double>(r[i].outstanding) / max_load);
      if (score > best_score || (score == best_score && r[i].outstanding < r[best].outstanding)) {
        best = i;
        best_score = score;
      }
    }
    return {best, r[best].cached_prefix_tokens > 0 ? "longest cached prefix, balanced against load"
                                                   : "least loaded (nothing cached)"};
  }
};

}  // namespace

std::unique_ptr<Router> make_prefix_affinity_router() { return std::make_unique<PrefixAffinityRouter>(); }

}  // namespace servesim
