#pragma once
// Two step costs field by field, and exactly: the tests that price a step two ways (a
// cache against the full listing, a run against single steps) need the same sums in the
// same order, not close ones.
#include <catch2/catch.hpp>

#include "sim/hardware/cost_model.h"

namespace servesim::testing {

inline void require_same_step_cost(const StepCost& a, const StepCost& b) {
  REQUIRE(a.total_ns == b.total_ns);
  REQUIRE(a.compute_ns == b.compute_ns);
  REQUIRE(a.memory_ns == b.memory_ns);
  REQUIRE(a.comm_ns == b.comm_ns);
  REQUIRE(a.overhead_ns == b.overhead_ns);
  REQUIRE(a.table_fallback_ops == b.table_fallback_ops);
  REQUIRE(a.flops == b.flops);
  REQUIRE(a.bytes == b.bytes);
}

}  // namespace servesim::testing
