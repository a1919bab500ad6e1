// Which adapter a class's requests name: ids first_adapter .. first_adapter + adapters - 1,
// uniform or zipf, from the class's own stream (docs/lora.md).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>

#include "sim/workload/lora_demand.h"
#include "sim/workload/source.h"

namespace servesim::lora_demand_test {

TEST_CASE("lora demand: zipf over two adapters names the first two thirds of the time", "[workload][lora]") {
  LoraDemandSpec spec;
  spec.adapters = 2;
  spec.first_adapter = 5;
  spec.distribution = LoraDemandSpec::Distribution::zipf;
  spec.zipf_exponent = 1.0;  // weights 1 and 1/2: P(5) = 2/3
  LoraAdapterPicker picker(spec, 7, "chat");
  std::map<int, int> counts;
  const int n = 30000;
  for (int i = 0; i < n; ++i) ++counts[picker.draw()];
  REQUIRE(counts.size() == 2);
  // A binomial's standard deviation here is sqrt(30000 x 2/3 x 1/3) = 82 draws: 400 is ~5 of them.
  CHECK(std::abs(counts[5] - 20000) < 400);
  CHECK(counts[5] + counts[6] == n);
}

TEST_CASE("lora demand: uniform over four adapters names each a quarter of the time", "[workload][lora]") {
  LoraDemandSpec spec;
  spec.adapters = 4;
  LoraAdapterPicker picker(spec, 7, "chat");
  std::map<int, int> counts;
  for (int i = 0; i < 40000; ++i) ++counts[picker.draw()];
  REQUIRE(counts.size() == 4);
  // sqrt(40000 x 1/4 x 3/4) = 87 draws.
  for (int id = 1; id <= 4; ++id) CHECK(std::abs(counts[id] - 10000) < 450);
}

TEST_CASE("lora demand: a class's adapters leave its lengths and arrivals as they were", "[workload][lora]") {
  ClassSpec plain;
  plain.name = "chat";
  plain.arrival = ArrivalSpec{};
  plain.arrival->rate_per_s = 5;
  plain.input = DistSpec{};
  plain.input->a = 100;
  plain.output = DistSpec{};
  plain.output->a = 10;
  ClassSpec tagged = plain;
  tagged.lora = LoraDemandSpec{};
  tagged.lora->adapters = 3;
  auto a = make_source(plain, 0, 11);
  auto b = make_source(tagged, 0, 11);
  for (int i = 0; i < 50; ++i) {
    REQUIRE(a->peek_arrival_ns() == b->peek_arrival_ns());
    const RequestSpec ra = a->pop();
    const RequestSpec rb = b->pop();
    CHECK(ra.arrival_ns == rb.arrival_ns);
    CHECK(ra.prompt_tokens == rb.prompt_tokens);
    CHECK(ra.lora_adapter == 0);
    CHECK(rb.lora_adapter >= 1);
    CHECK(rb.lora_adapter <= 3);
  }
}

}  // namespace servesim::lora_demand_test
