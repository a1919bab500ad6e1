// How fast is one cost-model query? Prices a fixed mix of batch shapes (decode-only,
// chunked prefill with decodes, a long prompt) with the roofline of Llama-3-8B on H100 SXM
// and prints nanoseconds per step_cost call, the figure a capacity loop or an external
// tool pays per query in-process (`servesim step` adds process start and YAML loading;
// bench/run_all.sh times that). docs/performance.md.
//   usage: step_latency [CALLS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "servesim/servesim.h"

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 2000000;
  const std::string root = SERVESIM_SOURCE_DIR_BENCH;
  try {
    const servesim::ModelSpec model = servesim::load_model(root + "/models/llama-3-8b.yaml");
    const servesim::HardwareSpec hw = servesim::load_hardware(root + "/configs/hardware/h100-sxm.yaml");
    servesim::Deployment dep;
    const auto cost = servesim::make_cost_model(servesim::CostModelSpec{}, model, hw, dep);
    // Shapes seen in the throughput benchmark; context sums vary per call, as in a run,
    // so an exact-shape cache cannot make every call a hit.
    std::vector<servesim::BatchShape> shapes(3);
    shapes[0].decode_seqs = 24;
    shapes[1].decode_seqs = 20;
    shapes[1].prefills.push_back(servesim::PrefillChunk{1200, 0, true});
    shapes[2].prefills.push_back(servesim::PrefillChunk{8192, 4096, false});
    double sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i) {
      servesim::BatchShape& b = shapes[static_cast<std::size_t>(i % 3)];
      if (b.decode_seqs > 0) b.decode_context_sum = 24000 + (i % 5000);
      sink += static_cast<double>(cost->step_cost(b).total_ns);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("step_cost calls %ld  wall %.3f s  %.1f ns/call  (checksum %.0f)\n", calls, wall,
                1e9 * wall / static_cast<double>(calls), sink);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "step_latency: %s\n", e.what());
    return 2;
  }
  return 0;
}
