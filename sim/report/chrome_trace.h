#pragma once
// trace.json (outputs.chrome_trace): the run in the Chrome trace event format, which
// chrome://tracing and https://ui.perfetto.dev open. Format reference: "Trace Event
// Format" (Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
//
// Layout (docs/metrics.md): one process per pool with one thread (track) per replica,
// holding one complete event ("ph": "X") per engine step with args {prefill_tokens,
// decode_tokens, batch}; one process "requests" with one track per request holding its
// "queued", "prefill" and "decode" spans. Timestamps are microseconds of simulated time.
// Events are written as they happen (steps when they start, a request's spans when it
// leaves), so memory does not grow with the run.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/metrics/request_record.h"
#include "sim/metrics/timeseries.h"

namespace servesim {

class ChromeTraceWriter {
 public:
  // Writes the opening of the JSON object and the process and thread names of the pools.
  // REQUIRES: `out` outlives the writer.
  ChromeTraceWriter(std::ostream& out, std::vector<std::string> class_names, std::vector<std::string> pool_names,
                    std::vector<int> replicas_per_pool);

  void on_step(const StepSample& s);
  // A request that left (completed, rejected or unfinished). An unfinished request's open
  // span ends at the latest time the trace has seen.
  void on_request(const RequestRecord& r);
  // Closes the JSON. Call once, after the run.
  void finish();

  // The pid of pool p's process and of the requests' process.
  static int pool_pid(int pool) { return pool + 1; }
  int requests_pid() const { return static_cast<int>(pool_names_.size()) + 1; }

 private:
  void begin_event();  // the comma between events
  void span(std::uint64_t id, const char* name, Tick from_ns, Tick to_ns, const RequestRecord& r);

  std::ostream& out_;
  std::vector<std::string> class_names_;
  std::vector<std::string> pool_names_;
  std::int64_t events_ = 0;
  Tick latest_ns_ = 0;
  bool finished_ = false;
};

}  // namespace servesim
