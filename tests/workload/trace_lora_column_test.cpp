// A timed trace's optional lora_adapter column (docs/workload.md, "Trace formats"): each
// row's adapter reaches its request, a bad cell is refused at its line, and a class may not
// take adapters from both the column and `lora:`.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/workload/source.h"
#include "workload_test_util.h"

namespace trace_lora_column_test {

using namespace servesim;
using servesim::testing::TempFile;

namespace {

ClassSpec vidur_class(const std::string& path) {
  ClassSpec spec;
  spec.name = "tenants";
  spec.trace = TraceSpec{};
  spec.trace->format = "vidur";
  spec.trace->path = path;
  return spec;
}

std::string error_of(const ClassSpec& spec) {
  try {
    make_source(spec, 0, 1);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("trace lora_adapter column: each row's adapter is its request's", "[workload][lora]") {
  TempFile file("lora.csv",
                "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n"
                "0.0,100,5,3\n"
                "0.5,200,6,0\n"
                "1.0,300,7,32767\n");
  auto source = make_source(vidur_class(file.path()), 0, 1);
  CHECK(source->names_adapters());
  std::vector<int> adapters;
  while (source->peek_arrival_ns()) adapters.push_back(source->pop().lora_adapter);
  CHECK(adapters == std::vector<int>{3, 0, 32767});
  // Without the column nobody names an adapter.
  TempFile plain("plain.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,100,5\n");
  auto base = make_source(vidur_class(plain.path()), 0, 1);
  CHECK_FALSE(base->names_adapters());
  CHECK(base->pop().lora_adapter == 0);
}

TEST_CASE("trace lora_adapter column: bad cells and a second source of adapters are refused", "[workload][lora]") {
  TempFile negative("neg.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,-1\n");
  CHECK_THAT(error_of(vidur_class(negative.path())), Catch::Contains(negative.path() + ":2"));
  CHECK_THAT(error_of(vidur_class(negative.path())), Catch::Contains("lora_adapter"));
  TempFile big("big.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,32768\n");
  CHECK_THAT(error_of(vidur_class(big.path())), Catch::Contains("must be at most 32767"));
  TempFile text("text.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,sql\n");
  CHECK_THAT(error_of(vidur_class(text.path())), Catch::Contains(text.path() + ":2"));
  // The column and a `lora:` distribution both: one would be silently unused.
  TempFile ok("ok.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,1\n");
  ClassSpec both = vidur_class(ok.path());
  both.lora = LoraDemandSpec{};
  CHECK_THAT(error_of(both), Catch::Contains("lora_adapter column") && Catch::Contains("lora"));
}

}  // namespace trace_lora_column_test
