// `validate` and `run` name each pool's cost model and, for the measured kernels, the table
// set it resolved to, so a user can tell which figures priced the run.
#include <catch2/catch.hpp>

#include <string>

#include "cli/cli_test_util.h"

namespace cost_model_report_test {

using namespace servesim::testing;

TEST_CASE("run and validate name the kernel table set each pool resolved to", "[cli][kernels]") {
  TempDir dir("cost-model-line");
  const auto validate = run_cli("validate scenarios/quickstart.yaml --set cluster.pools.0.engine.preset=vllm"
                                " --set cluster.pools.0.engine.version=0.15.1");
  REQUIRE(validate.exit_code == 0);
  CHECK(validate.output.find("cost model kernels (h100_sxm/vllm-0.14.0 tables; CUDA graphs up to 512 sequences; "
                             "vllm 0.15.1 has no tables of its own; using 0.14.0") != std::string::npos);
  CHECK(validate.output.find("KV cache: ") != std::string::npos);
  const auto run = run_cli("run scenarios/quickstart.yaml --set stop.requests=20 --out " + dir.path.string());
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("pool main: cost model kernels (h100_sxm/vllm-0.14.0 tables)") != std::string::npos);
  // A GPU without tables: the roofline, and an explicit kernels choice is refused (exit 2).
  const auto l40s = run_cli("validate scenarios/quickstart.yaml --set cluster.pools.0.hardware=l40s");
  REQUIRE(l40s.exit_code == 0);
  CHECK(l40s.output.find("cost model roofline") != std::string::npos);
  const auto refused = run_cli("validate scenarios/quickstart.yaml --set cluster.pools.0.hardware=l40s"
                               " --set cluster.pools.0.cost_model=kernels");
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("no measured kernel tables") != std::string::npos);
}

}  // namespace cost_model_report_test
