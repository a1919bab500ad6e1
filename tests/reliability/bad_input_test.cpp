// Inputs the fuzzers found crashing, each fixed and pinned here through the public path.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"
#include "sim/workload/azure_trace_source.h"

namespace bad_input_test {

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("bad input: Azure timestamps outside 1970..2261 are rejected at their line - not overflowed",
          "[reliability]") {
  // Year 1 and year 9999 once overflowed int64 nanoseconds (undefined behaviour). Every
  // year of the range, and every difference of two such times, now fits.
  CHECK(parse_azure_timestamp_ns("2261-12-31 23:59:59.999999999") == 9'214'646'399'999'999'999);  // 106650 days
  CHECK_FALSE(parse_azure_timestamp_ns("2262-01-01 00:00:00").has_value());
  CHECK_FALSE(parse_azure_timestamp_ns("1969-12-31 23:59:59").has_value());
  CHECK_FALSE(parse_azure_timestamp_ns("0001-01-01 00:00:00").has_value());

  TempDir dir("azure-years");
  const auto trace = dir.write("t.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n1970-01-01 00:00:00,1,1\n"
                                        "9999-12-31 23:59:59.999999999,1,1\n");
  try {
    make_azure_trace_source(trace.string(), 1.0, 0);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 3);
    CHECK(e.column() == 1);
    CHECK(e.key() == "TIMESTAMP");
    CHECK(e.message().find("years 1970 to 2261") != std::string::npos);
  }
}

TEST_CASE("bad input: a config.json number too large for a double is a ConfigError - exit 2 from the CLI",
          "[reliability]") {
  // nlohmann throws out_of_range (not parse_error) for 1e400; it once escaped as a crash.
  TempDir dir("hf-overflow");
  const auto cfg = dir.write("config.json",
                             R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
 "intermediate_size": 14336, "vocab_size": 1e400, "max_position_embeddings": 8192})");
  try {
    load_model(cfg.string());
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file() == cfg.string());
    CHECK(e.message().find("1e400") != std::string::npos);
  }
  const auto r = run_cli("step --model " + cfg.string() + " --hardware h100-sxm --decode 1:100");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("config.json") != std::string::npos);
}

}  // namespace bad_input_test
