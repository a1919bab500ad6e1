// Input audit, traces: every trace format x every kind of bad file, through the
// real `servesim run`, must exit 2 with `FILE:LINE` and the field in the message, leave no
// summary.json behind, and never crash. Each case writes a header (line 1), one good row
// (line 2) and the bad row (line 3), so the expected line is known without reading code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace trace_audit_test {

using namespace servesim::testing;
namespace fs = std::filesystem;

namespace {

// One row of a trace in a given format, from its three cells as text.
struct Format {
  const char* name;
  const char* header;  // "" for JSON lines (no header)
  const char* time_key, *prompt_key, *output_key;
  std::string (*row)(const std::string& time, const std::string& prompt, const std::string& output);
  bool has_time;  // lengths files take their arrivals from `arrival`
  int first_row_line;
};

std::string csv3(const std::string& t, const std::string& p, const std::string& o) { return t + "," + p + "," + o + "\n"; }
std::string lengths_row(const std::string&, const std::string& p, const std::string& o) { return p + "," + o + "\n"; }
std::string azure_row(const std::string& t, const std::string& p, const std::string& o) {
  // Time given as seconds past 18:15:00 (or a non-number, kept as written).
  const bool numeric = !t.empty() && t.find_first_not_of("0123456789.") == std::string::npos;
  return (numeric ? "2023-11-16 18:15:" + std::string(t.size() < 2 || t[1] == '.' ? "0" : "") + t : t) + "," + p +
         "," + o + "\n";
}
std::string mooncake_row(const std::string& t, const std::string& p, const std::string& o) {
  return R"({"timestamp": )" + t + R"(, "input_length": )" + p + R"(, "output_length": )" + o +
         R"(, "hash_ids": [1]})" + "\n";
}

const std::vector<Format> kFormats = {
    {"azure", "TIMESTAMP,ContextTokens,GeneratedTokens\n", "TIMESTAMP", "ContextTokens", "GeneratedTokens", azure_row,
     true, 2},
    {"vidur", "arrived_at,num_prefill_tokens,num_decode_tokens\n", "arrived_at", "num_prefill_tokens",
     "num_decode_tokens", csv3, true, 2},
    {"lengths", "num_prefill_tokens,num_decode_tokens\n", "", "num_prefill_tokens", "num_decode_tokens", lengths_row,
     false, 2},
    {"csv", "arrival_s,input_tokens,output_tokens\n", "arrival_s", "input_tokens", "output_tokens", csv3, true, 2},
    {"mooncake", "", "timestamp", "input_length", "output_length", mooncake_row, true, 1},
};

// A bad second row: which cell is replaced, by what, and which key must be named.
enum class Cell { time, prompt, output };
struct BadRow {
  const char* what;
  Cell cell;
  const char* text;
};

const std::vector<BadRow> kBadRows = {
    {"wrong type", Cell::prompt, "many"},
    {"NaN", Cell::output, "nan"},
    {"infinity", Cell::output, "inf"},
    {"negative number", Cell::output, "-5"},
    {"zero-length prompt", Cell::prompt, "0"},
    {"absurd size", Cell::prompt, "99999999999999999999"},
    {"fraction of a token", Cell::prompt, "12.5"},
    {"unsorted timestamp", Cell::time, "1"},
    {"NaN timestamp", Cell::time, "nan"},
    {"negative timestamp", Cell::time, "-3"},
};

std::string scenario_for(const Format& f, const fs::path& trace) {
  std::string cls = "  - trace: {format: " + std::string(f.name) + ", path: " + trace.string() + "}\n";
  if (!f.has_time) cls += "    arrival: {process: poisson, rate: 10}\n";
  return "name: audit\nworkload:\n" + cls + "cluster: {pools: [{name: main, model: llama-3-8b, hardware: h100-sxm}]}\n";
}

struct Outcome {
  CliResult cli;
  fs::path out;
};

Outcome run_trace(const TempDir& dir, const Format& f, const std::string& tag, const std::string& content) {
  const auto trace = dir.write(std::string(f.name) + "-" + tag + (f.header[0] ? ".csv" : ".jsonl"), content);
  const auto scenario = dir.write(std::string(f.name) + "-" + tag + ".yaml", scenario_for(f, trace));
  const auto out = dir.path / (std::string(f.name) + "-" + tag + "-out");
  return {run_cli("run " + scenario.string() + " --quiet --out " + out.string()), out};
}

// What every rejection must look like.
void check_rejected(const Outcome& o, const std::string& where, const std::string& key) {
  INFO(o.cli.output);
  CHECK(o.cli.exit_code == 2);
  CHECK(o.cli.output.find("error: " + where) != std::string::npos);
  if (!key.empty()) CHECK(o.cli.output.find(key) != std::string::npos);
  CHECK(o.cli.output.find("Sanitizer") == std::string::npos);
  CHECK(o.cli.output.find("terminate") == std::string::npos);
  CHECK_FALSE(fs::exists(o.out / "summary.json"));
  CHECK_FALSE(fs::exists(o.out / "requests.csv"));
}

}  // namespace

TEST_CASE("input audit: every trace format rejects each bad row with exit 2 at file:line and its field",
          "[reliability][audit]") {
  TempDir dir("trace-audit");
  int rows = 0;
  for (const Format& f : kFormats) {
    for (const BadRow& bad : kBadRows) {
      if (bad.cell == Cell::time && !f.has_time) continue;
      std::string t = "5", p = "100", o = "10";
      (bad.cell == Cell::time ? t : bad.cell == Cell::prompt ? p : o) = bad.text;
      const std::string content = f.header + f.row("2", "100", "10") + f.row(t, p, o);
      const std::string tag = std::to_string(rows++);
      INFO(f.name << ": " << bad.what << "\n" << content);
      const Outcome outcome = run_trace(dir, f, tag, content);
      const char* key = bad.cell == Cell::time ? f.time_key : bad.cell == Cell::prompt ? f.prompt_key : f.output_key;
      const fs::path trace = dir.path / (std::string(f.name) + "-" + tag + (f.header[0] ? ".csv" : ".jsonl"));
      // JSON has no nan/inf/-5-as-word: mooncake reports the line as not JSON, without a key.
      const bool not_json = f.header[0] == '\0' && (std::string(bad.text) == "nan" || std::string(bad.text) == "inf" ||
                                                    std::string(bad.text) == "many");
      check_rejected(outcome, trace.string() + ":" + std::to_string(f.first_row_line + 1), not_json ? "" : key);
    }
  }
  CHECK(rows == 47);
}

TEST_CASE("input audit: every trace format rejects a missing - empty or binary file with exit 2 naming it",
          "[reliability][audit]") {
  TempDir dir("trace-audit-files");
  const std::string garbage("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe\x00\x13,\n\x89PNG\r\n\x1a\n", 24);
  for (const Format& f : kFormats) {
    INFO(f.name);
    {
      const auto trace = dir.path / (std::string(f.name) + "-missing.csv");
      const auto scenario = dir.write(std::string(f.name) + "-missing.yaml", scenario_for(f, trace));
      const Outcome o{run_cli("run " + scenario.string() + " --quiet --out " + (dir.path / "m").string()), dir.path / "m"};
      check_rejected(o, "", "trace.path");
      CHECK(o.cli.output.find(trace.string()) != std::string::npos);
    }
    // A JSON-lines file with no rows is an empty trace, not an error: the run has nothing
    // to do. A CSV without its header line cannot name its columns.
    if (f.header[0]) check_rejected(run_trace(dir, f, "empty", ""), (dir.path / (std::string(f.name) + "-empty.csv")).string() + ":1", "");
    const std::string ext = f.header[0] ? ".csv" : ".jsonl";
    check_rejected(run_trace(dir, f, "garbage", garbage), (dir.path / (std::string(f.name) + "-garbage" + ext)).string() + ":1", "");
  }
}

TEST_CASE("input audit: equal timestamps are a burst and are kept in file order", "[reliability][audit]") {
  // docs/reliability.md: rows must be in arrival order; equal times are fine.
  TempDir dir("trace-audit-burst");
  for (const Format& f : kFormats) {
    if (!f.has_time) continue;
    const std::string content = f.header + f.row("2", "100", "10") + f.row("2", "100", "10") + f.row("2", "50", "1");
    const Outcome o = run_trace(dir, f, "burst", content);
    INFO(f.name << "\n" << o.cli.output);
    CHECK(o.cli.exit_code == 0);
    const std::string summary = read_file(o.out / "summary.json");
    CHECK(summary.find("\"completed\": 3") != std::string::npos);
    CHECK(summary.find("\"total_input_tokens\": 250") != std::string::npos);
  }
}

TEST_CASE("input audit: a line too long to be a trace row is rejected at its line without reading it whole",
          "[reliability][audit]") {
  // A 17 MiB line with no newline (a corrupted export, a binary blob): readers stop at
  // 16 MiB (sim/core/bounded_line.h) instead of reading on to the end of the file.
  TempDir dir("trace-audit-long-line");
  const std::string blob(std::size_t{17} << 20, 'x');
  for (const Format& f : kFormats) {
    const std::string content = f.header + f.row("2", "100", "10") + blob;
    const Outcome o = run_trace(dir, f, "long", content);
    const std::string ext = f.header[0] ? ".csv" : ".jsonl";
    INFO(f.name);
    check_rejected(o, (dir.path / (std::string(f.name) + "-long" + ext)).string() + ":" + std::to_string(f.first_row_line + 1),
                   "16 MiB");
  }
}

}  // namespace trace_audit_test
