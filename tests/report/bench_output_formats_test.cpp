// The scenario layer's list of benchmark output formats (sim/scenario/bench_output_formats.h) is
// the report layer's registry of writers, name for name and in order.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/scenario/bench_output_formats.h"

namespace bench_output_formats_test {

TEST_CASE("benchmark output formats: the scenario's names are the registered writers", "[report][scenario]") {
  std::vector<std::string> registered;
  for (const servesim::BenchmarkWriterFormat& w : servesim::benchmark_writer_formats()) registered.emplace_back(w.name);
  CHECK(registered == servesim::bench_output_format_names());
}

}  // namespace bench_output_formats_test
