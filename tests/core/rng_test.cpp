#include <catch2/catch.hpp>
#include <cmath>

#include "sim/core/rng.h"

namespace rng_test {

using namespace servesim;

TEST_CASE("rng: equal seed and stream give equal sequences - other streams differ", "[core]") {
  Rng a(42, "workload/chat"), b(42, "workload/chat"), c(42, "workload/batch"), d(43, "workload/chat");
  bool differ_c = false, differ_d = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    CHECK(x == b.next_u64());
    differ_c |= x != c.next_u64();
    differ_d |= x != d.next_u64();
  }
  CHECK(differ_c);
  CHECK(differ_d);
}

TEST_CASE("rng: uniform - normal - exponential and gamma moments match their closed forms", "[core]") {
  Rng rng(7, "moments");
  const int n = 400000;
  double su = 0, sn = 0, sn2 = 0, se = 0, sg = 0, sg2 = 0;
  for (int i = 0; i < n; ++i) {
    su += rng.uniform01();
    const double z = rng.normal();
    sn += z;
    sn2 += z * z;
    se += rng.exponential(3.0);
    const double g = rng.gamma(0.5, 4.0);  // mean 2, variance 8
    sg += g;
    sg2 += g * g;
  }
  CHECK(su / n == Approx(0.5).margin(0.003));
  CHECK(sn / n == Approx(0.0).margin(0.006));
  CHECK(sn2 / n == Approx(1.0).epsilon(0.01));
  CHECK(se / n == Approx(3.0).epsilon(0.01));
  const double gm = sg / n;
  CHECK(gm == Approx(2.0).epsilon(0.015));
  CHECK(sg2 / n - gm * gm == Approx(8.0).epsilon(0.04));
}

TEST_CASE("rng: uniform_int covers its closed range without bias", "[core]") {
  Rng rng(1, "ints");
  int counts[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 100000; ++i) counts[rng.uniform_int(3, 7) - 3]++;
  for (int c : counts) CHECK(c == Approx(20000).epsilon(0.03));
}

}  // namespace rng_test
