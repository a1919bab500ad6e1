#include "sim/scenario/slo_parse.h"

#include "sim/scenario/slo_vocabulary.h"

namespace servesim {

namespace {

// One metric's entry: its bound and the statistic it is stated for.
void read_bound(const Field& f, std::optional<Tick>& bound_ns, std::string& stat) {
  if (f.is_map()) {
    const std::vector<std::string> keys = f.keys();
    if (keys.size() != 1)
      f.fail("give one statistic and its bound, e.g. {p99: 2s} or {every: 50ms}; statistics: " +
             std::string(kSloStatisticsHelp));
    std::vector<std::string> spellings = slo_statistics();
    spellings.push_back("median");
    spellings.push_back("p99.9");
    f.expect_map(spellings);
    const Field value = f.require(keys.front());
    stat = *canonical_slo_statistic(keys.front());
    if (!value.is_scalar()) value.fail("expected a duration like 250ms or 2s, got " + value.describe());
    bound_ns = parse_slo_bound_ns(value.node().Scalar(), value.file(), value.line(), value.key());
    return;
  }
  if (!f.is_scalar()) f.fail("expected a duration like 2s, or {STATISTIC: DURATION}, got " + f.describe());
  stat = kDefaultSloStatistic;
  bound_ns = parse_slo_bound_ns(f.node().Scalar(), f.file(), f.line(), f.key());
}

}  // namespace

SloSpec parse_slo_block(const Field& f) {
  f.expect_map(slo_metrics());
  SloSpec slo;
  if (auto v = f.get("ttft")) read_bound(*v, slo.ttft_ns, slo.ttft_stat);
  if (auto v = f.get("tpot")) read_bound(*v, slo.tpot_ns, slo.tpot_stat);
  if (auto v = f.get("itl")) read_bound(*v, slo.itl_ns, slo.itl_stat);
  if (auto v = f.get("e2el")) read_bound(*v, slo.e2el_ns, slo.e2el_stat);
  return slo;
}

}  // namespace servesim
