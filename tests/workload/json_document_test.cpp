// JsonDocument finds the line of any value of a JSON file, for benchmark readers' errors.
#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/json_document.h"

namespace json_document_test {

using servesim::ConfigError;
using servesim::JsonDocument;
using json_pointer = nlohmann::json::json_pointer;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string("/tmp/servesim_json_document_") + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("JsonDocument gives the line of nested values and array elements and of numbers at a line end",
          "[workload][benchmark]") {
  const std::string text =
      "{\n"                          // 1
      "  \"ttfts\": [0.1,\n"         // 2
      "            0.2,\n"           // 3
      "            0.3\n"            // 4
      "  ],\n"                       // 5
      "  \"meta\": {\"rate\": 4,\n"  // 6
      "    \"inner\": [[1, 2],\n"    // 7
      "               [3, {\"x\": \"y\"}]]\n"  // 8
      "  }\n"                        // 9
      "}\n";
  const JsonDocument doc(write_temp("lines.json", text));
  CHECK(doc.line_of(json_pointer("/ttfts")) == 2);
  CHECK(doc.line_of(json_pointer("/ttfts/0")) == 2);
  CHECK(doc.line_of(json_pointer("/ttfts/1")) == 3);
  CHECK(doc.line_of(json_pointer("/ttfts/2")) == 4);
  CHECK(doc.line_of(json_pointer("/meta/rate")) == 6);
  CHECK(doc.line_of(json_pointer("/meta/inner/1/1/x")) == 8);
  CHECK(doc.line_of(json_pointer("/meta/inner/0/1")) == 7);
  // An absent member: the line of its nearest existing ancestor.
  CHECK(doc.line_of(json_pointer("/meta/missing")) == 6);
  CHECK(doc.line_of(json_pointer("/ttfts/7")) == 2);
  CHECK(doc.root()["meta"]["rate"] == 4);
}

TEST_CASE("JsonDocument fail names the file and the line and the field", "[workload][benchmark]") {
  const std::string path = write_temp("fail.json", "{\n\"a\": [\n1,\n\"two\"\n]\n}\n");
  const JsonDocument doc(path);
  try {
    doc.fail(json_pointer("/a/1"), "a[1]", "must be a number");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 4);
    CHECK(e.key() == "a[1]");
  }
}

TEST_CASE("JsonDocument refuses a missing or empty or malformed file with its line", "[workload][benchmark]") {
  CHECK_THROWS_AS(JsonDocument("/tmp/servesim_json_document_absent.json"), ConfigError);
  CHECK_THROWS_AS(JsonDocument(write_temp("empty.json", "  \n")), ConfigError);
  try {
    JsonDocument doc(write_temp("bad.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 3);
  }
}

}  // namespace json_document_test
