// requests.csv: header, one row per record, empty cells where a value does not apply.
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/report/requests_csv_writer.h"

namespace requests_csv_writer_test {

using namespace servesim;

TEST_CASE("requests csv: scaled integers print exactly without trailing zeros", "[metrics]") {
  CHECK(format_scaled_integer(1'500'000, 6) == "1.5");
  CHECK(format_scaled_integer(2'000'000, 6) == "2");
  CHECK(format_scaled_integer(-250'000, 6) == "-0.25");
  CHECK(format_scaled_integer(0, 9) == "0");
  CHECK(format_scaled_integer(123, 9) == "0.000000123");
  CHECK(format_scaled_integer(3'600'000'000'001, 9) == "3600.000000001");
  CHECK(csv_cell("plain") == "plain");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("requests csv: rows hold every column in the header's order", "[metrics]") {
  std::ostringstream out;
  RequestsCsvWriter writer(out, {"chat", "batch, bulk"}, {"main", "big"});

  RequestRecord done;
  done.id = 17;
  done.class_index = 0;
  done.pool_index = 1;
  done.replica_index = 3;
  done.arrival_ns = 1'500'000'123;
  done.first_scheduled_ns = done.arrival_ns + 12'500'000;   // 12.5 ms queue
  done.first_token_ns = done.arrival_ns + 250'000'000;      // 250 ms TTFT
  done.finish_ns = done.arrival_ns + 1'250'000'000;         // 1250 ms E2E
  done.prompt_tokens = 2048;
  done.output_tokens = done.output_tokens_done = 11;        // TPOT 1000 ms / 10 = 100 ms
  done.cached_prompt_tokens = 1024;
  done.preemptions = 2;
  done.session_id = 9;
  done.turn = 4;
  done.acct.ttft.queue_ns = 12'500'000;  // the TTFT parts add up to 250 ms
  done.acct.ttft.prefill_compute_ns = 200'000'000;
  done.acct.ttft.batch_share_ns = 30'000'000;
  done.acct.ttft.stall_ns = 7'500'000;
  done.acct.decode.decode_compute_ns = 900'000'000;  // and the decode parts to 1000 ms
  done.acct.decode.prefill_interference_ns = 100'000'000;
  done.acct.max_itl_ns = 150'000'000;
  done.cost_usd = 0.25;
  writer.write(done);

  RequestRecord refused;
  refused.id = 18;
  refused.class_index = 1;
  refused.outcome = Outcome::rejected;
  refused.reject_reason = "queue_full";
  refused.arrival_ns = 2 * kNsPerSec;
  refused.prompt_tokens = 100;
  refused.output_tokens = 20;
  writer.write(refused);

  RequestRecord cut;
  cut.id = 19;
  cut.class_index = 0;
  cut.pool_index = 0;
  cut.replica_index = 0;
  cut.outcome = Outcome::unfinished;
  cut.arrival_ns = 3 * kNsPerSec;
  cut.first_scheduled_ns = 3 * kNsPerSec;
  cut.first_token_ns = 3 * kNsPerSec + 40 * kNsPerMs;
  cut.prompt_tokens = 10;
  cut.output_tokens = 100;
  cut.output_tokens_done = 7;  // no finish: no e2el and no tpot
  writer.write(cut);
  writer.close();

  const std::string expected =
      "id,class,pool,replica,outcome,reject_reason,arrival_s,queue_ms,ttft_ms,e2el_ms,tpot_ms,"
      "prompt_tokens,output_tokens,output_tokens_done,cached_prompt_tokens,preemptions,"
      "session_id,turn,"
      "ttft_queue_ms,ttft_prefill_compute_ms,ttft_batch_share_ms,ttft_stall_ms,ttft_preemption_ms,"
      "ttft_kv_transfer_ms,ttft_overhead_ms,ttft_frontend_ms,decode_compute_ms,decode_prefill_interference_ms,"
      "decode_stall_ms,decode_preemption_ms,decode_overhead_ms,max_itl_ms,prefill_saved_ms,cost_usd\n"
      "17,chat,big,3,completed,,1.500000123,12.5,250,1250,100,2048,11,11,1024,2,9,4,"
      "12.5,200,30,7.5,0,0,0,0,900,100,0,0,0,150,0,0.25\n"
      "18,\"batch, bulk\",,,rejected,queue_full,2,,,,,100,20,0,0,0,,,,,,,,,,,,,,,,,,\n"
      "19,chat,main,0,unfinished,,3,0,40,,,10,100,7,0,0,,,,,,,,,,,,,,,,,,\n";
  CHECK(out.str() == expected);
  CHECK(writer.rows_written() == 3);
}

TEST_CASE("requests csv: an unwritable path is reported as bad input", "[metrics]") {
  CHECK_THROWS_AS(RequestsCsvWriter("/nonexistent-dir/requests.csv", {"a"}, {"p"}), ConfigError);
}

}  // namespace requests_csv_writer_test
