// Signal: the one observer type (sim/core/signal.h). Every watcher connected is called,
// in the order connected, with the arguments emitted; a Signal without watchers is empty.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/signal.h"

namespace servesim {

TEST_CASE("signal: every slot is called in the order connected with the emitted arguments", "[core]") {
  Signal<void(int, const std::string&)> changed;
  CHECK(changed.empty());
  changed(1, "nobody listens");  // no slot: nothing happens
  std::vector<std::string> calls;
  changed.connect([&](int n, const std::string& s) { calls.push_back("a" + std::to_string(n) + s); });
  changed.connect([&](int n, const std::string& s) { calls.push_back("b" + std::to_string(n) + s); });
  CHECK_FALSE(changed.empty());
  changed(7, "x");
  changed(8, "y");
  CHECK(calls == std::vector<std::string>{"a7x", "b7x", "a8y", "b8y"});
}

}  // namespace servesim
