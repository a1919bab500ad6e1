#pragma once
// Open-loop source: arrivals from a gap process (poisson, gamma, constant), lengths from a
// LengthSource (distributions, or a length-only file). The first request arrives one gap
// after t = 0. Arrival times are kept as a running sum in seconds and rounded to the
// nearest nanosecond per request, so rounding never accumulates.
// It is exhausted when its lengths run out or its arrivals end (the last of the arrival
// stages is over); without stages the run's `stop` ends synthetic traffic.
#include <memory>
#include <optional>

#include "sim/workload/arrival_process.h"
#include "sim/workload/length_source.h"
#include "sim/workload/source.h"

namespace servesim {

class SyntheticSource : public RequestSource {
 public:
  SyntheticSource(std::unique_ptr<ArrivalProcess> arrivals, std::unique_ptr<LengthSource> lengths,
                  int class_index);

  std::optional<Tick> peek_arrival_ns() override;
  RequestSpec pop() override;
  // An open loop that has nothing to offer now never will again.
  bool exhausted() override { return !peek_arrival_ns().has_value(); }
  // Prompt samples below 1 token that were raised to 1 (see sampled_lengths.h).
  std::uint64_t raised_input_samples() const override { return lengths_->raised_input_samples(); }

 private:
  std::unique_ptr<ArrivalProcess> arrivals_;
  std::unique_ptr<LengthSource> lengths_;
  int class_index_;
  double clock_s_ = 0;            // arrival time of the last request drawn
  std::optional<Tick> next_ns_;   // drawn but not yet popped
  bool arrivals_ended_ = false;   // the arrival process's last stage is over
};

}  // namespace servesim
