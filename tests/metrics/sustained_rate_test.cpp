// The sustained-rate meter every run is judged by (sim/metrics/sustained_rate.h): served
// against offered over the second half of the arrivals, counted in cells of time since the
// first arrival so that its memory does not grow with the requests. The expectations place
// each window edge on its cell by hand: a cell is 2^e ns wide where the offset d satisfies
// 256 <= d / 2^e < 512.
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/metrics/request_record.h"
#include "sim/metrics/sustained_rate.h"

namespace sustained_rate_test {

using namespace servesim;

namespace {

RequestRecord record(double arrival_s, double finish_s) {
  RequestRecord r;
  r.arrival_ns = static_cast<Tick>(arrival_s * 1e9);
  r.finish_ns = finish_s < 0 ? -1 : static_cast<Tick>(finish_s * 1e9);
  r.outcome = finish_s < 0 ? Outcome::unfinished : Outcome::completed;
  return r;
}

// Arrivals are noted in time order before any record, as a run does; with `in_flight`,
// the requests inside after each arrival, as a function of its time in seconds.
SustainedRate measure(const std::vector<RequestRecord>& records, double tolerance,
                      std::int64_t (*in_flight)(double) = nullptr) {
  SustainedRateMeter m;
  for (const auto& r : records) {
    m.note_arrival(r.arrival_ns);
    if (in_flight) m.note_in_flight(r.arrival_ns, in_flight(r.arrival_ns * 1e-9));
  }
  for (const auto& r : records) m.add(r);
  return m.measure(tolerance);
}

}  // namespace

TEST_CASE("sustained rate: cells are 1 ns below 512 ns - then 256 per doubling", "[capacity]") {
  CHECK(SustainedRateMeter::cell_of(0) == 0);
  CHECK(SustainedRateMeter::cell_of(511) == 511);
  CHECK(SustainedRateMeter::cell_of(512) == 512);  // 256 x 2^1: cells of 2 ns
  CHECK(SustainedRateMeter::cell_of(513) == 512);
  CHECK(SustainedRateMeter::cell_of(1023) == 767);
  CHECK(SustainedRateMeter::cell_of(1024) == 768);  // 256 x 2^2: cells of 4 ns
  CHECK(SustainedRateMeter::cell_start(768) == 1024);
  // 2e11 ns = 372.53 x 2^29: cell 372 x 2^29 of the 2^29-ns cells, which start at 2^37.
  CHECK(SustainedRateMeter::cell_start(SustainedRateMeter::cell_of(200'000'000'000)) == 372LL << 29);
  // An hour is 2^41.7 ns: about 8,500 cells.
  CHECK(SustainedRateMeter::cell_of(3'600'000'000'000) < 9000);
}

TEST_CASE("sustained rate: served against offered over the second half of the arrivals", "[capacity]") {
  // 1 arrival every 0.1 s for 400 s. The midpoint, 200 s = 372.53 x 2^29 ns, rounds up to
  // the cell edge 373 x 2^29 ns = 200.2529 s; the last arrival, 400 s = 372.53 x 2^30 ns,
  // lies in the cell from 372 x 2^30 ns = 399.4320 s. The window is 199.1791 s and holds the
  // arrivals 0.1 i for i = 2,003..3,994: 1,992.
  const double window_s = ((372LL << 30) - (373LL << 29)) * 1e-9;
  SECTION("a stable queue: every arrival completes 0.5 s later") {
    std::vector<RequestRecord> recs;
    for (int i = 0; i <= 4000; ++i) recs.push_back(record(0.1 * i, 0.1 * i + 0.5));
    const SustainedRate r = measure(recs, 0.05);
    CHECK(r.window_s == Approx(window_s));
    CHECK(r.window_s == Approx(199.1791).epsilon(1e-6));
    CHECK(r.arrivals == 1992);
    // Completions in it are the arrivals of i = 1,998..3,989: as many.
    CHECK(r.completions == 1992);
    CHECK(r.mean_latency_s == Approx(0.5));
    CHECK(r.offered_per_s == Approx(1992 / window_s));
    // sqrt(2 x 10 x 0.5) / (10 x 199) = 0.16%: well inside 5% / 3.
    CHECK(r.noise == Approx(std::sqrt(2 * r.offered_per_s * 0.5) / (r.offered_per_s * window_s)));
    CHECK(r.long_enough);
    CHECK(r.sustained(0.05));
    CHECK_FALSE(r.plainly_short(0.05));
  }
  SECTION("an overloaded one: 10 req/s offered, 8 served") {
    std::vector<RequestRecord> recs;
    for (int i = 0; i <= 4000; ++i) recs.push_back(record(0.1 * i, i < 3200 ? 0.125 * i + 0.5 : -1));
    const SustainedRate r = measure(recs, 0.05);
    // Completions at 0.125 i + 0.5 inside [200.2529, 399.4320): i from 1,599 to 3,191.
    CHECK(r.arrivals == 1992);
    CHECK(r.completions == 1593);
    CHECK(r.served_per_s == Approx(1593 / window_s));
    CHECK(r.served_per_s == Approx(8.0).epsilon(0.001));
    CHECK_FALSE(r.sustained(0.05));
    // Latencies 0.025 i + 0.5 s average 60.375 s over those: the noise is
    // sqrt(2 x 10 x 60.4) / 1,992 = 1.74%, 3 of which exceed 5%, so the run cannot tell a 5%
    // shortfall; but 20% short is beyond 5% + 3 x 1.74%: plainly short.
    CHECK(r.mean_latency_s == Approx(60.375));
    CHECK(r.noise == Approx(0.01745).epsilon(0.002));
    CHECK_FALSE(r.long_enough);
    CHECK(r.latency_fits);
    CHECK(r.plainly_short(0.05));
  }
  SECTION("a queue that wanders near capacity cannot be judged on the Poisson estimate alone") {
    // Every request still completes 0.5 s after it arrives, but the requests inside swing
    // between 50 and 150 every 20 s, as a queue near capacity does: their spread about the
    // (flat) fitted line is 50, so served / offered wanders by sqrt(2) x 50 / 1,992 = 3.5%,
    // 3 of which exceed 5%: too short, to be lengthened 3 x 3.5% / 5% = 2.1x.
    std::vector<RequestRecord> recs;
    for (int i = 0; i <= 4000; ++i) recs.push_back(record(0.1 * i, 0.1 * i + 0.5));
    const SustainedRate r = measure(recs, 0.05, [](double t) -> std::int64_t {
      return static_cast<std::int64_t>(t / 20) % 2 == 0 ? 150 : 50;
    });
    CHECK(r.queue_spread == Approx(50).epsilon(0.05));
    CHECK(r.noise == Approx(std::sqrt(2.0) * r.queue_spread / 1992));
    CHECK_FALSE(r.long_enough);
    CHECK(r.needed_scale == Approx(3 * r.noise / 0.05));
    CHECK(r.needed_scale == Approx(2.1).epsilon(0.06));
    CHECK(r.sustained(0.05));
  }
  SECTION("a steady overload grows along its line: not noise") {
    // The overloaded queue above, its requests inside growing by 2 per second: the fitted
    // line takes it all, leaving only the rounding to whole requests (at most 0.5).
    std::vector<RequestRecord> recs;
    for (int i = 0; i <= 4000; ++i) recs.push_back(record(0.1 * i, i < 3200 ? 0.125 * i + 0.5 : -1));
    const SustainedRate r =
        measure(recs, 0.05, [](double t) -> std::int64_t { return static_cast<std::int64_t>(10 + 2 * t); });
    CHECK(r.queue_spread < 0.5);
    CHECK(r.noise == Approx(0.01745).epsilon(0.002));  // the Poisson estimate, as above
    CHECK(r.plainly_short(0.05));
  }
  SECTION("rejected requests are neither offered nor served") {
    std::vector<RequestRecord> recs;
    for (int i = 0; i <= 4000; ++i) {
      recs.push_back(record(0.1 * i, 0.1 * i + 0.5));
      if (i % 2 == 1) recs.back().outcome = Outcome::rejected;
    }
    const SustainedRate r = measure(recs, 0.05);
    CHECK(r.arrivals == 996);  // the even i of 2,003..3,994
    CHECK(r.completions == 996);
  }
  SECTION("too short: 20 requests whose latency is a third of the run") {
    // Arrivals every 0.5 s to 9.5 s: the window runs from 284 x 2^24 ns = 4.7647 s to
    // 283 x 2^25 ns = 9.4959 s, 4.7312 s holding the arrivals at 5.0..9.0 s, 9 of them,
    // and the completions of the arrivals at 2.0..6.0 s, 9 of them, 3 s after arrival.
    std::vector<RequestRecord> recs;
    for (int i = 0; i < 20; ++i) recs.push_back(record(0.5 * i, 0.5 * i + 3));
    const SustainedRate r = measure(recs, 0.05);
    const double w = ((283LL << 25) - (284LL << 24)) * 1e-9;
    CHECK(r.window_s == Approx(w));
    CHECK(r.arrivals == 9);
    CHECK(r.completions == 9);
    CHECK_FALSE(r.long_enough);
    // The latency needs 2 x 3 / 4.73 = 1.27x; the noise, sqrt(2 x 1.90 x 3) / 9 = 37.5%,
    // needs (3 x 0.375 / 0.05)^2 = 507x.
    const double noise = std::sqrt(2 * (9 / w) * 3) / 9;
    CHECK(noise == Approx(0.3754).epsilon(0.001));
    CHECK(r.noise == Approx(noise));
    CHECK(r.needed_scale == Approx(std::pow(3 * noise / 0.05, 2)));
    CHECK(r.why_short.find("too short") != std::string::npos);
  }
  SECTION("every request at one instant cannot be judged") {
    std::vector<RequestRecord> recs;
    for (int i = 0; i < 10; ++i) recs.push_back(record(1.0, 2.0));
    const SustainedRate r = measure(recs, 0.05);
    CHECK_FALSE(r.long_enough);
    CHECK(r.why_short == "every request arrived at one instant");
  }
}

}  // namespace sustained_rate_test
