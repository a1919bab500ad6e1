// The what-if library (docs/what-if.md), claims read from the reports: latency attribution
// (which phase owns the wait) and the cost of each token class.
#include "whatif/whatif_util.h"

namespace whatif_report_test {

using namespace servesim;
using namespace servesim::whatif;

TEST_CASE("what-if 1: a 30k-token document's TTFT is its prefill and the rest of the wait is decode", "[whatif]") {
  const RunResult r = run_scenario("whatif-01-document-assistant.yaml");
  REQUIRE(r.completed == 200);
  const SummaryBlock& b = r.summary.overall;
  const double ttft = b.get("mean_ttft_ms");
  const double decode = b.get("mean_e2el_ms") - ttft;
  const double prefill_own = object_field(b, "ttft_attribution", "prefill_compute_ms");
  const double decode_own = object_field(b, "itl_attribution", "decode_compute_ms");
  const double itl = b.get("mean_itl_ms");
  INFO("mean TTFT " << ttft << " ms (own prefill " << prefill_own << "), decode " << decode << " ms, ITL " << itl
                    << " ms (own decode " << decode_own << ")");
  // Reported apart: the 399 decode gaps are the rest of the request's time.
  CHECK(decode == Approx(399 * itl).epsilon(0.02));
  CHECK(decode > 2 * ttft);
  // One request every 10 s rarely waits: TTFT is the document's own prefill...
  CHECK(prefill_own > 0.85 * ttft);
  // ...which `servesim step` prices, as vLLM's 8192-token budget chunks it (8192, 8192 over
  // 8192, 8192 over 16384, 5424 over 24576 cached), at 184.1 + 233.3 + 290.0 + 218.8 =
  // 926 ms on an H100 from the measured vLLM kernels.
  CHECK(prefill_own == Approx(926).epsilon(0.05));
  // and each decode gap is mostly the decode pass itself; the rest is the occasional gap
  // stretched by another user's 30k-token prefill sharing the step.
  CHECK(decode_own > 0.8 * itl);
  CHECK(decode_own + object_field(b, "itl_attribution", "prefill_interference_ms") > 0.95 * itl);
}

TEST_CASE("what-if 11: short calls wait on fixed per-step costs and queueing more than on their own compute",
          "[whatif]") {
  const RunResult r = run_scenario("whatif-11-short-calls.yaml");
  REQUIRE(r.completed == 5000);
  const SummaryBlock& b = r.summary.overall;
  const double e2e = b.get("mean_e2el_ms");
  const double ttft = b.get("mean_ttft_ms");
  const double own_prefill = object_field(b, "ttft_attribution", "prefill_compute_ms");
  const double waiting = object_field(b, "ttft_attribution", "queue_ms") +
                         object_field(b, "ttft_attribution", "batch_share_ms") +
                         object_field(b, "ttft_attribution", "stall_ms");
  // The call's own arithmetic: 2 x 8.03e9 parameters x (200 + 4) tokens at the H100's dense
  // bf16 peak of 989.5 TFLOP/s is 3.3 ms, a few percent of its latency.
  const double own_flops_ms = 2 * 8.03e9 * 204 / 989.5e12 * 1e3;
  INFO("mean E2E " << e2e << " ms, TTFT " << ttft << " ms: own prefill " << own_prefill << ", waiting " << waiting
                   << "; own FLOPs at peak " << own_flops_ms << " ms");
  CHECK(own_flops_ms < 0.1 * e2e);
  // Within TTFT, waiting (queue, others' work in its step) outweighs its own prefill.
  CHECK(waiting > own_prefill);
}

TEST_CASE("what-if 12: cached input is cheaper than input and input than output per million tokens", "[whatif]") {
  const RunResult r = run_scenario("whatif-12-pricing.yaml");
  REQUIRE(r.completed == 3000);
  const SummaryBlock& b = r.summary.overall;
  const double cached = b.get("cost_per_1m_cached_input_tokens");
  const double input = b.get("cost_per_1m_input_tokens");
  const double output = b.get("cost_per_1m_output_tokens");
  INFO("USD per 1M tokens: cached input " << cached << ", input " << input << ", output " << output << " (ratios 1 : "
                                           << input / cached << " : " << output / cached << ")");
  CHECK(cached > 0);
  CHECK(cached < input);
  CHECK(input < output);
  // Decode emits one token per sequence per step and re-reads the weights for it; a prompt
  // token is one row of a big GEMM: output tokens cost many times input tokens.
  CHECK(output > 5 * input);
  CHECK(b.get("cost_per_request") > 0);
}

}  // namespace whatif_report_test
