#include "sim/report/chrome_trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "sim/core/assert.h"

namespace servesim {
namespace {

// Integer nanoseconds as microseconds, exact ("1234.5", "7", "0.001").
std::string us(Tick ns) {
  std::string s = std::to_string(ns / 1000);
  const Tick frac = ns % 1000;
  if (frac == 0) return s;
  std::string f = std::to_string(frac);
  f.insert(0, 3 - f.size(), '0');
  while (f.back() == '0') f.pop_back();
  return s + "." + f;
}

std::string quoted(const std::string& text) { return nlohmann::json(text).dump(); }

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::ostream& out, std::vector<std::string> class_names,
                                     std::vector<std::string> pool_names, std::vector<int> replicas_per_pool)
    : out_(out), class_names_(std::move(class_names)), pool_names_(std::move(pool_names)) {
  SS_ASSERT(pool_names_.size() == replicas_per_pool.size(), "one replica count per pool");
  out_ << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"servesim\",\"time\":\"simulated\"},"
          "\"traceEvents\":[\n";
  for (int p = 0; p < static_cast<int>(pool_names_.size()); ++p) {
    begin_event();
    out_ << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pool_pid(p) << ",\"args\":{\"name\":"
         << quoted("pool " + pool_names_[static_cast<std::size_t>(p)]) << "}}";
    for (int r = 0; r < replicas_per_pool[static_cast<std::size_t>(p)]; ++r) {
      begin_event();
      out_ << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pool_pid(p) << ",\"tid\":" << r
           << ",\"args\":{\"name\":\"replica " << r << "\"}}";
    }
  }
  begin_event();
  out_ << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << requests_pid()
       << ",\"args\":{\"name\":\"requests\"}}";
}

void ChromeTraceWriter::begin_event() {
  if (events_ > 0) out_ << ",\n";
  ++events_;
}

void ChromeTraceWriter::on_step(const StepSample& s) {
  begin_event();
  out_ << "{\"ph\":\"X\",\"name\":\"step\",\"cat\":\"step\",\"pid\":" << pool_pid(s.pool) << ",\"tid\":" << s.replica
       << ",\"ts\":" << us(s.start_ns) << ",\"dur\":" << us(s.duration_ns) << ",\"args\":{\"prefill_tokens\":"
       << s.prefill_tokens << ",\"decode_tokens\":" << s.decode_tokens << ",\"batch\":" << s.batch
       << ",\"kv_used_blocks\":" << s.kv_used_blocks << ",\"waiting\":" << s.waiting << "}}";
  latest_ns_ = std::max(latest_ns_, s.start_ns + s.duration_ns);
}

void ChromeTraceWriter::span(std::uint64_t id, const char* name, Tick from_ns, Tick to_ns, const RequestRecord& r) {
  if (to_ns <= from_ns) return;  // e.g. no decode span for a one-token output
  begin_event();
  out_ << "{\"ph\":\"X\",\"name\":\"" << name << "\",\"cat\":\"request\",\"pid\":" << requests_pid()
       << ",\"tid\":" << id << ",\"ts\":" << us(from_ns) << ",\"dur\":" << us(to_ns - from_ns)
       << ",\"args\":{\"id\":" << id << ",\"class\":" << quoted(class_names_[static_cast<std::size_t>(r.class_index)])
       << ",\"prompt_tokens\":" << r.prompt_tokens << ",\"cached_prompt_tokens\":" << r.cached_prompt_tokens
       << ",\"output_tokens\":" << r.output_tokens_done << ",\"preemptions\":" << r.preemptions << "}}";
}

void ChromeTraceWriter::on_request(const RequestRecord& r) {
  latest_ns_ = std::max(latest_ns_, r.finish_ns);
  // Where each phase ends: the next phase's start, else the finish, else (unfinished) the
  // latest time seen.
  const Tick end_ns = r.finish_ns >= 0 ? r.finish_ns : std::max(latest_ns_, r.arrival_ns);
  const std::string cls = class_names_[static_cast<std::size_t>(r.class_index)];
  begin_event();
  out_ << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << requests_pid() << ",\"tid\":" << r.id
       << ",\"args\":{\"name\":" << quoted("request " + std::to_string(r.id) + " (" + cls + ")") << "}}";
  if (r.outcome == Outcome::rejected) {
    begin_event();
    out_ << "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"rejected\",\"cat\":\"request\",\"pid\":" << requests_pid()
         << ",\"tid\":" << r.id << ",\"ts\":" << us(r.finish_ns) << ",\"args\":{\"reason\":" << quoted(r.reject_reason)
         << "}}";
    return;
  }
  const Tick scheduled = r.first_scheduled_ns;
  const Tick first_token = r.first_token_ns;
  span(r.id, "queued", r.arrival_ns, scheduled >= 0 ? scheduled : end_ns, r);
  if (scheduled < 0) return;
  span(r.id, "prefill", scheduled, first_token >= 0 ? first_token : end_ns, r);
  if (first_token >= 0) span(r.id, "decode", first_token, end_ns, r);
}

void ChromeTraceWriter::finish() {
  if (finished_) return;
  finished_ = true;
  out_ << "\n]}\n";
  out_.flush();
}

}  // namespace servesim
