#pragma once
// requests.csv: one row per request, written as each request leaves the system, so the run
// never holds all records in memory. Columns and units: docs/metrics.md.
#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/text.h"
#include "sim/metrics/request_record.h"

namespace servesim {

class RequestsCsvWriter {
 public:
  static constexpr const char* kHeader =
      "id,class,pool,replica,outcome,reject_reason,arrival_s,queue_ms,ttft_ms,e2el_ms,tpot_ms,"
      "prompt_tokens,output_tokens,output_tokens_done,cached_prompt_tokens,preemptions,"
      "session_id,turn,"
      // Appended after the contract's columns (docs/metrics.md): attribution, longest gap, cost.
      "ttft_queue_ms,ttft_prefill_compute_ms,ttft_batch_share_ms,ttft_stall_ms,ttft_preemption_ms,"
      "ttft_kv_transfer_ms,ttft_overhead_ms,ttft_frontend_ms,decode_compute_ms,decode_prefill_interference_ms,"
      "decode_stall_ms,decode_preemption_ms,decode_overhead_ms,max_itl_ms,prefill_saved_ms,cost_usd";
  // Appended last where some pool keeps KV tiers (kv_offload): the TTFT part spent loading
  // prefix blocks back, and the prompt tokens found in each tier below HBM.
  static constexpr const char* kKvTierColumns = ",ttft_kv_load_ms,cpu_hit_tokens,disk_hit_tokens";

  // Creates (or truncates) the file at `path` and writes the header.
  // Throws ConfigError naming the path when it cannot be opened.
  // `kv_tiers`: write kKvTierColumns too.
  RequestsCsvWriter(const std::string& path, std::vector<std::string> class_names,
                    std::vector<std::string> pool_names, bool kv_tiers = false);
  // Writes to a stream the caller keeps alive for the writer's lifetime.
  RequestsCsvWriter(std::ostream& out, std::vector<std::string> class_names,
                    std::vector<std::string> pool_names, bool kv_tiers = false);

  // One row. Cells that do not apply are empty: pool and replica of a request never
  // routed, reject_reason unless rejected, each latency the request does not have,
  // session_id and turn outside a session.
  // REQUIRES: class_index and pool_index (or -1) name a class and pool given above.
  void write(const RequestRecord& record);

  // Flushes; throws ConfigError naming the path when any write failed (e.g. disk full).
  void close();

  std::int64_t rows_written() const { return rows_; }

 private:
  std::string path_;  // empty for a caller's stream
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_;
  std::vector<std::string> class_names_;
  std::vector<std::string> pool_names_;
  std::int64_t rows_ = 0;
  bool kv_tiers_ = false;
};

// `value` / 10^decimals, exact, without trailing zeros ("1.5", "2", "-0.25"). Integer
// nanoseconds as seconds (decimals 9) or milliseconds (decimals 6) need no rounding.
std::string format_scaled_integer(std::int64_t value, int decimals);

}  // namespace servesim
