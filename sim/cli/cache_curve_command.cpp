// `servesim cache-curve --trace FILE --format FMT --sizes S1,S2,...|inf [--json]
//                       [--replicas N --router R] [--hash-block-tokens N]
//                       [--cpu-tokens S] [--disk-tokens S]`:
// the token hit ratio of a prefix cache of each size, replaying the trace's prefix
// structure with LRU eviction and no timing (docs/prefix-caching.md, "cache-curve").
// With --replicas, N caches of the given size each, and the router picks one per request.
// With --cpu-tokens / --disk-tokens, KV tiers of those sizes below each cache.
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cluster/router.h"
#include "sim/core/errors.h"
#include "sim/study/cache_curve_study.h"

namespace po = boost::program_options;

namespace servesim::cli {
namespace {

// "inf", or a whole number of tokens with an optional k / M / G (powers of 1000) suffix;
// `option` names the option in the error.
std::int64_t parse_size(const std::string& text, const std::string& option = "--sizes") {
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
    throw UsageError{option + " takes token counts (e.g. 100000, 500k, 2M) or inf, got '" + text + "'"};
  }
  return v * scale;
}

std::vector<std::int64_t> parse_sizes(const std::string& list) {
  std::vector<std::int64_t> sizes;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) sizes.push_back(parse_size(item));
  if (sizes.empty()) throw UsageError{"--sizes needs at least one size"};
  return sizes;
}

std::string size_text(std::int64_t size) { return size == kUnlimitedCacheTokens ? "inf" : std::to_string(size); }

}  // namespace

int cache_curve_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim cache-curve --trace FILE --format FMT --sizes S1,S2,...|inf [options]");
  std::string trace_path, format, sizes_text, router_name = "round-robin", cpu_text, disk_text;
  int replicas = 1;
  std::int64_t hash_block_tokens = 512;
  opts.add_options()("help,h", "show this help")("trace", po::value(&trace_path), "trace file")(
      "format", po::value(&format), "trace format: mooncake | csv")(
      "sizes", po::value(&sizes_text), "cache sizes in tokens, comma separated (k, M, G suffixes; inf)")(
      "json", "print a JSON list of {size_tokens, hit_ratio, hit_tokens, prompt_tokens}")(
      "replicas", po::value(&replicas), "N per-replica caches of each size (default 1: one global cache)")(
      "router", po::value(&router_name), "router that picks each request's replica (default round-robin)")(
      "hash-block-tokens", po::value(&hash_block_tokens), "csv: tokens per prefix hash (default 512)")(
      "cpu-tokens", po::value(&cpu_text), "a CPU KV tier of this many tokens below each cache (k, M, G; inf)")(
      "disk-tokens", po::value(&disk_text), "a disk KV tier of this many tokens below the CPU tier (k, M, G; inf)");
  po::variables_map vm;
  if (!parse_options(args, opts, po::options_description(), po::positional_options_description(), vm, err)) return 2;
  if (vm.count("help")) {
    out << "Replays a trace's prefix structure through an LRU prefix cache of each size, with no\n"
           "timing, and prints the token hit ratio per size. Blocks are the trace's own (512\n"
           "tokens for mooncake). See docs/prefix-caching.md.\n\n"
        << opts;
    return 0;
  }
  try {
    if (trace_path.empty() || format.empty() || sizes_text.empty()) {
      throw UsageError{"--trace, --format and --sizes are required"};
    }
    if (format != "mooncake" && format != "csv") {
      throw UsageError{"--format must be mooncake or csv (the formats with prefix information), got '" + format + "'"};
    }
    if (replicas < 1 || replicas > 4096) throw UsageError{"--replicas must be from 1 to 4096"};
    // One global cache has nothing to route among: a --router there would change nothing.
    if (vm.count("router") && replicas == 1) throw UsageError{"--router picks one of --replicas N caches; give --replicas 2 or more"};
    if (hash_block_tokens < 1 || hash_block_tokens > (1 << 24)) throw UsageError{"--hash-block-tokens must be 1 to 16777216"};
    if (vm.count("hash-block-tokens") && format != "csv") throw UsageError{"--hash-block-tokens applies to --format csv"};
    const std::vector<std::int64_t> sizes = parse_sizes(sizes_text);
    CacheCurveRequest request;
    request.trace_path = trace_path;
    request.format = format;
    request.sizes = sizes;
    request.replicas = replicas;
    request.router = router_name;
    request.hash_block_tokens = hash_block_tokens;
    if (!cpu_text.empty()) request.tiers.cpu_tokens = parse_size(cpu_text, "--cpu-tokens");
    if (!disk_text.empty()) request.tiers.disk_tokens = parse_size(disk_text, "--disk-tokens");
    const bool tiers = request.tiers.any();
    if (make_router_registry().find(router_name) == nullptr) {
      throw UsageError{"unknown router '" + router_name + "'; valid: " + make_router_registry().names()};
    }
    const auto start = std::chrono::steady_clock::now();
    const CacheCurveStudy study = run_cache_curve(request);
    const std::vector<CacheCurvePoint>& points = study.points;
    const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    if (vm.count("json")) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const auto& p : points) {
        nlohmann::ordered_json o;
        o["size_tokens"] = p.size_tokens == kUnlimitedCacheTokens ? nlohmann::ordered_json(nullptr)
                                                                  : nlohmann::ordered_json(p.size_tokens);
        o["hit_ratio"] = p.hit_ratio;
        o["hit_tokens"] = p.hit_tokens;
        o["prompt_tokens"] = p.prompt_tokens;
        if (tiers) {
          o["cpu_hit_tokens"] = p.tier_hit_tokens[0];
          o["disk_hit_tokens"] = p.tier_hit_tokens[1];
        }
        list.push_back(o);
      }
      out << list.dump(2) << "\n";
    } else {
      out << "cache-curve: " << study.requests << " requests, " << study.prompt_tokens << " prompt tokens, blocks of "
          << study.block_tokens << " tokens";
      if (replicas > 1) out << ", " << replicas << " replicas (" << router_name << ")";
      if (tiers) out << ", KV tiers of " << size_text(request.tiers.cpu_tokens) << " (CPU) and "
                     << size_text(request.tiers.disk_tokens) << " (disk) tokens below each cache";
      out << "\n  size_tokens   hit_ratio   hit_tokens" << (tiers ? "   cpu_hit_tokens  disk_hit_tokens" : "") << "\n";
      for (const auto& p : points) {
        out << "  " << std::setw(11) << size_text(p.size_tokens) << "   " << std::fixed << std::setprecision(4)
            << std::setw(9) << p.hit_ratio << "   " << std::setw(10) << p.hit_tokens;
        if (tiers) out << "   " << std::setw(14) << p.tier_hit_tokens[0] << "  " << std::setw(15) << p.tier_hit_tokens[1];
        out << "\n";
      }
      err << "(read and replayed in " << std::fixed << std::setprecision(0) << elapsed_ms << " ms)\n";
    }
    return 0;
  } catch (const UsageError& e) {
    err << "servesim cache-curve: " << e.message << "\n\n" << opts;
    return 2;
  } catch (const ConfigError& e) {
    err << "servesim cache-curve: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace servesim::cli
