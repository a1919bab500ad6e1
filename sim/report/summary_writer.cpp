#include "sim/report/summary_writer.h"

#include <ostream>

namespace servesim {

nlohmann::ordered_json summary_file_json(const RunSummary& summary, const ReplicateIntervals* replicates) {
  nlohmann::ordered_json j = summary_to_json(summary);
  if (replicates) j["replicates"] = replicates_to_json(*replicates);
  return j;
}

void write_summary_json(const RunSummary& summary, std::ostream& out, const ReplicateIntervals* replicates) {
  const nlohmann::ordered_json j = summary_file_json(summary, replicates);
  // `replace`: a class name with invalid UTF-8 must not abort the write of a finished run.
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace servesim
