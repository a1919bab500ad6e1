#include "sim/report/replicate_report.h"

#include <cstdio>
#include <ostream>

namespace servesim {

void print_replicate_intervals(const ReplicateIntervals& replicates, std::ostream& out) {
  static const char* const kHeadline[][2] = {
      {"request_throughput", "req/s"}, {"output_throughput", "tok/s"}, {"median_ttft_ms", "ms"},
      {"p99_ttft_ms", "ms"},           {"median_itl_ms", "ms"},        {"p99_itl_ms", "ms"},
      {"median_tpot_ms", "ms"},        {"p99_e2el_ms", "ms"}};
  out << "\nover " << replicates.n << " seeds (" << replicates.seeds.front() << ".." << replicates.seeds.back()
      << "), mean and 95% interval of the mean:\n";
  char buf[160];
  bool any_width = false;
  for (const auto& [name, f] : replicates.figures) any_width = any_width || f.hi > f.lo;
  if (!any_width)
    out << "  (every figure is the same in every run: the scenario draws nothing at random, e.g. it replays a "
           "trace's own times and lengths)\n";
  for (const auto& [field, unit] : kHeadline) {
    const FigureInterval* f = replicates.find(field);
    if (!f) continue;
    std::snprintf(buf, sizeof buf, "  %-20s %12.4g %-5s [%.4g, %.4g]\n", field, f->mean, unit, f->lo, f->hi);
    out << buf;
  }
}

}  // namespace servesim
