// `servesim cache-curve --trace FILE --format FMT --sizes S1,S2,...|inf [--json]
//                       [--replicas N --router R] [--hash-block-tokens N]
//                       [--cpu-tokens S] [--disk-tokens S]`:
// the token hit ratio of a prefix cache of each size, replaying the trace's prefix
// structure with LRU eviction and no timing (docs/prefix-caching.md, "cache-curve").
// With --replicas, N caches of the given size each, and the router picks one per request.
// With --cpu-tokens / --disk-tokens, KV tiers of those sizes below each cache. The study is
// sim/study/cache_curve_study.h, its report sim/report/cache_curve_report.h.
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cluster/router.h"
#include "sim/report/cache_curve_report.h"
#include "sim/study/cache_curve_study.h"

namespace po = boost::program_options;

namespace servesim::cli {
namespace {

// The options as typed, before they are checked.
struct CacheCurveOptions {
  std::string trace_path, format, sizes_text, router_name = "round-robin", cpu_text, disk_text;
  int replicas = 1;
  std::int64_t hash_block_tokens = 512;
};

po::options_description cache_curve_options(CacheCurveOptions& o) {
  po::options_description opts("servesim cache-curve --trace FILE --format FMT --sizes S1,S2,...|inf [options]");
  opts.add_options()("help,h", "show this help")("trace", po::value(&o.trace_path), "trace file")(
      "format", po::value(&o.format), "trace format: mooncake | csv")(
      "sizes", po::value(&o.sizes_text), "cache sizes in tokens, comma separated (k, M, G suffixes; inf)")(
      "json", "print a JSON list of {size_tokens, hit_ratio, hit_tokens, prompt_tokens}")(
      "replicas", po::value(&o.replicas), "N per-replica caches of each size (default 1: one global cache)")(
      "router", po::value(&o.router_name), "router that picks each request's replica (default round-robin)")(
      "hash-block-tokens", po::value(&o.hash_block_tokens), "csv: tokens per prefix hash (default 512)")(
      "cpu-tokens", po::value(&o.cpu_text), "a CPU KV tier of this many tokens below each cache (k, M, G; inf)")(
      "disk-tokens", po::value(&o.disk_text), "a disk KV tier of this many tokens below the CPU tier (k, M, G; inf)");
  return opts;
}

// "inf", or a whole number of tokens with an optional k / M / G (powers of 1000) suffix;
// `option` names the option in the error, `help` follows it.
std::int64_t parse_cache_size(const std::string& text, const std::string& option, const std::string& help) {
  if (text == "inf") return kUnlimitedCacheTokens;
  std::int64_t scale = 1;
  std::string digits = text;
  if (!digits.empty()) {
    const char unit = digits.back();
    if (unit == 'k' || unit == 'K') scale = 1'000;
    if (unit == 'M') scale = 1'000'000;
    if (unit == 'G') scale = 1'000'000'000;
    if (scale > 1) digits.pop_back();
  }
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || v < 0 ||
      v > 1'000'000'000'000 / scale) {
    throw UsageError{option + " takes token counts (e.g. 100000, 500k, 2M) or inf, got '" + text + "'", help};
  }
  return v * scale;
}

std::vector<std::int64_t> parse_cache_sizes(const std::string& list, const std::string& help) {
  std::vector<std::int64_t> sizes;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) sizes.push_back(parse_cache_size(item, "--sizes", help));
  if (sizes.empty()) throw UsageError{"--sizes needs at least one size", help};
  return sizes;
}

// The options checked and turned into the study's request; a UsageError, followed by
// `help`, names the first that is wrong.
CacheCurveRequest cache_curve_request(const CacheCurveOptions& o, const po::variables_map& vm,
                                      const std::string& help) {
  const auto usage = [&](const std::string& message) { return UsageError{message, help}; };
  if (o.trace_path.empty() || o.format.empty() || o.sizes_text.empty())
    throw usage("--trace, --format and --sizes are required");
  if (o.format != "mooncake" && o.format != "csv")
    throw usage("--format must be mooncake or csv (the formats with prefix information), got '" + o.format + "'");
  if (o.replicas < 1 || o.replicas > 4096) throw usage("--replicas must be from 1 to 4096");
  // One global cache has nothing to route among: a --router there would change nothing.
  if (vm.count("router") && o.replicas == 1) throw usage("--router picks one of --replicas N caches; give --replicas 2 or more");
  if (o.hash_block_tokens < 1 || o.hash_block_tokens > (1 << 24)) throw usage("--hash-block-tokens must be 1 to 16777216");
  if (vm.count("hash-block-tokens") && o.format != "csv") throw usage("--hash-block-tokens applies to --format csv");
  CacheCurveRequest request;
  request.trace_path = o.trace_path;
  request.format = o.format;
  request.sizes = parse_cache_sizes(o.sizes_text, help);
  request.replicas = o.replicas;
  request.router = o.router_name;
  request.hash_block_tokens = o.hash_block_tokens;
  if (!o.cpu_text.empty()) request.tiers.cpu_tokens = parse_cache_size(o.cpu_text, "--cpu-tokens", help);
  if (!o.disk_text.empty()) request.tiers.disk_tokens = parse_cache_size(o.disk_text, "--disk-tokens", help);
  if (make_router_registry().find(o.router_name) == nullptr)
    throw usage("unknown router '" + o.router_name + "'; valid: " + make_router_registry().names());
  return request;
}

}  // namespace

int cache_curve_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CacheCurveOptions options;
  const po::options_description opts = cache_curve_options(options);
  const char* about =
      "Replays a trace's prefix structure through an LRU prefix cache of each size, with no\n"
      "timing, and prints the token hit ratio per size. Blocks are the trace's own (512\n"
      "tokens for mooncake). See docs/prefix-caching.md.\n";
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, about, Operands(), vm, out, err)) return *done;
  const CacheCurveRequest request = cache_curve_request(options, vm, "\n" + options_text(opts));
  const auto start = std::chrono::steady_clock::now();
  const CacheCurveStudy study = run_cache_curve(request);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (vm.count("json")) {
    out << cache_curve_to_json(request, study).dump(2) << "\n";
    return 0;
  }
  print_cache_curve_table(request, study, out);
  err << "(read and replayed in " << std::fixed << std::setprecision(0) << elapsed_ms << " ms)\n";
  return 0;
}

}  // namespace servesim::cli
