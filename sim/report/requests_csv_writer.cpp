#include "sim/report/requests_csv_writer.h"

#include <cstdio>
#include <ostream>

#include "sim/core/assert.h"
#include "sim/core/errors.h"

namespace servesim {

namespace {

constexpr const char* kOutputsKey = "outputs.requests_csv";

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::completed: return "completed";
    case Outcome::rejected: return "rejected";
    case Outcome::unfinished: return "unfinished";
  }
  return "";
}

// A latency in ms, or an empty cell when the request has none (negative marker).
std::string ms_cell(Tick ns) { return ns >= 0 ? format_scaled_integer(ns, 6) : std::string(); }

// The columns appended after the contract's. Only a completed request's parts add up to a measured
// latency; other requests get empty cells.
void write_accounting(std::ostream& o, const RequestRecord& r) {
  if (r.outcome != Outcome::completed) {
    o << std::string(16, ',');
    return;
  }
  const RequestAccounting& a = r.acct;
  const TtftParts& t = a.ttft;
  const DecodeParts& d = a.decode;
  // requests.csv has no column for adapter loads: they stay in ttft_overhead_ms there, so
  // that the row's parts still sum to its TTFT (summary.json has lora_load_ms apart).
  for (Tick ns : {t.queue_ns, t.prefill_compute_ns, t.batch_share_ns, t.stall_ns, t.preemption_ns, t.kv_transfer_ns,
                  t.overhead_ns + t.lora_load_ns, r.frontend_ns, d.decode_compute_ns, d.prefill_interference_ns, d.stall_ns, d.preemption_ns,
                  d.overhead_ns})
    o << ',' << ms_cell(ns);
  o << ',' << ms_cell(a.max_itl_ns) << ',' << ms_cell(a.prefill_saved_ns) << ',';
  const double usd = r.cost_usd;
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", usd);
  o << text;
}

}  // namespace

std::string format_scaled_integer(std::int64_t value, int decimals) {
  SS_ASSERT(decimals >= 0 && decimals <= 18, "decimals out of range");
  // Work on the magnitude as unsigned so INT64_MIN has one too.
  const bool negative = value < 0;
  std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(value)
                                     : static_cast<std::uint64_t>(value);
  std::uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  std::string text = std::to_string(magnitude / scale);
  std::string fraction = std::to_string(magnitude % scale);
  fraction.insert(0, static_cast<std::size_t>(decimals) - fraction.size(), '0');
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) text += "." + fraction;
  return negative ? "-" + text : text;
}

RequestsCsvWriter::RequestsCsvWriter(const std::string& path, std::vector<std::string> class_names,
                                     std::vector<std::string> pool_names, bool kv_tiers)
    : path_(path),
      file_(std::make_unique<std::ofstream>(path, std::ios::out | std::ios::trunc)),
      out_(file_.get()),
      class_names_(std::move(class_names)),
      pool_names_(std::move(pool_names)),
      kv_tiers_(kv_tiers) {
  if (!*file_) throw ConfigError(path, 0, kOutputsKey, "cannot open the file for writing");
  *out_ << kHeader << (kv_tiers_ ? kKvTierColumns : "") << '\n';
}

RequestsCsvWriter::RequestsCsvWriter(std::ostream& out, std::vector<std::string> class_names,
                                     std::vector<std::string> pool_names, bool kv_tiers)
    : out_(&out), class_names_(std::move(class_names)), pool_names_(std::move(pool_names)), kv_tiers_(kv_tiers) {
  *out_ << kHeader << (kv_tiers_ ? kKvTierColumns : "") << '\n';
}

void RequestsCsvWriter::write(const RequestRecord& r) {
  SS_ASSERT(r.class_index >= 0 && r.class_index < static_cast<int>(class_names_.size()),
            "request of an unknown class");
  SS_ASSERT(r.pool_index >= -1 && r.pool_index < static_cast<int>(pool_names_.size()),
            "request of an unknown pool");
  const bool routed = r.pool_index >= 0;
  const bool rejected = r.outcome == Outcome::rejected;
  const bool in_session = r.session_id != 0;
  std::ostream& o = *out_;
  o << r.id << ',' << csv_cell(class_names_[static_cast<std::size_t>(r.class_index)]) << ','
    << (routed ? csv_cell(pool_names_[static_cast<std::size_t>(r.pool_index)]) : "") << ',';
  if (r.replica_index >= 0) o << r.replica_index;
  o << ',' << outcome_name(r.outcome) << ','
    << (rejected && r.reject_reason != nullptr ? csv_cell(r.reject_reason) : "") << ','
    << format_scaled_integer(r.arrival_ns, 9) << ',' << ms_cell(r.queue_ns()) << ','
    << ms_cell(r.ttft_ns()) << ',' << ms_cell(r.e2el_ns()) << ',' << ms_cell(r.tpot_ns()) << ','
    << r.prompt_tokens << ',' << r.output_tokens << ',' << r.output_tokens_done << ','
    << r.cached_prompt_tokens << ',' << r.preemptions << ',';
  if (in_session) o << r.session_id << ',' << r.turn;
  else o << ',';
  write_accounting(o, r);
  if (kv_tiers_) {
    // Like the other parts, the load is a completed request's only.
    o << ',' << (r.outcome == Outcome::completed ? ms_cell(r.acct.ttft.kv_load_ns) : std::string()) << ','
      << r.tier_hit_tokens[0] << ',' << r.tier_hit_tokens[1];
  }
  o << '\n';
  ++rows_;
}

void RequestsCsvWriter::close() {
  out_->flush();
  if (!*out_) {
    throw ConfigError(path_.empty() ? "requests.csv" : path_, 0, kOutputsKey,
                      "writing the file failed (disk full or removed?)");
  }
}

}  // namespace servesim
