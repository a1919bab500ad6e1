// The measurement CSV reader against the shared H200 file (row counts by kind, counted
// with grep) and against broken files.
#include <catch2/catch.hpp>

#include <string>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/scenario/measurements_csv.h"

namespace measurements_csv_test {

using namespace servesim;

TEST_CASE("measurements: the H200 file has 76 rows of six kinds - kernel rows' commas rejoined", "[fidelity]") {
  const auto rows = read_measurements(std::string(SERVESIM_SOURCE_DIR) +
                                      "/data/measurements/h200_llama3_8b_steps.csv");
  REQUIRE(rows.size() == 76);
  int ceiling = 0, gemm = 0, prefill = 0, decode = 0, attn_prefill = 0, attn_decode = 0;
  for (const auto& r : rows) {
    ceiling += r.kind == MeasurementKind::ceiling;
    gemm += r.kind == MeasurementKind::gemm;
    prefill += r.kind == MeasurementKind::step && r.kind_name == "prefill";
    decode += r.kind == MeasurementKind::step && r.kind_name == "decode";
    attn_prefill += r.kind == MeasurementKind::attn_prefill;
    attn_decode += r.kind == MeasurementKind::attn_decode;
  }
  CHECK(ceiling == 3);
  CHECK(gemm == 40);
  CHECK(prefill == 8);
  CHECK(decode == 15);
  CHECK(attn_prefill == 4);
  CHECK(attn_decode == 6);
  // Line 5: "gemm,,,,,,1,4096,6144,bf16,0.02".
  CHECK(rows[3].line == 5);
  CHECK(rows[3].gemm_m == 1);
  CHECK(rows[3].gemm_n == 6144);
  CHECK(rows[3].ms == 0.02);
  // The last row: attention of 1 sequence over 131072 tokens; the model cell had a comma.
  CHECK(rows.back().model == "attention 32q/8kv heads,head_dim 128");
  CHECK(rows.back().decode_batch == 1);
  CHECK(rows.back().decode_context == 131072);
  CHECK(rows.back().label() == "attn_decode 1 x 131072");
}

TEST_CASE("measurements: bad files are refused with the line and column", "[fidelity]") {
  servesim::testing::TempDir dir("measurements");
  const std::string header =
      "kind,model,prefill_tokens,past_tokens,decode_batch,decode_context,gemm_m,gemm_k,gemm_n,dtype,ms\n";
  const auto fails = [&](const std::string& body, const std::string& expected) {
    const auto path = dir.write("m.csv", body).string();
    INFO(body);
    CHECK_THROWS_WITH(read_measurements(path), Catch::Contains(expected));
  };
  fails("kind,ms\n", "header must be exactly");
  fails(header + "prefill,m,128,0,,,,,,bf16,abc\n", "m.csv:2:11: ms: must be a number");
  fails(header + "prefill,m,-5,0,,,,,,bf16,1\n", "m.csv:2:3: prefill_tokens");
  fails(header + "decode,m,,,0,100,,,,bf16,1\n", "decode_batch >= 1");
  fails(header + "warmup,m,1,0,,,,,,bf16,1\n", "unknown kind 'warmup'");
  fails(header + "prefill,m,1,0,,,,,,fp4,1\n", "dtype");
  fails(header + "prefill,m,1,0\n", "expected 11 cells");
  fails(header + "gemm,,,,,,1,0,5,bf16,1\n", "gemm_m, gemm_k and gemm_n");
  fails(header + "prefill,m,1,0,,,,,,bf16,0\n", "must be > 0 ms");
  CHECK_THROWS_WITH(read_measurements(dir.path.string() + "/none.csv"), Catch::Contains("cannot open"));
}

}  // namespace measurements_csv_test
