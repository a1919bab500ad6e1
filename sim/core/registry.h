#pragma once
// One registry per kind of plug-in (routers, scheduling policies, cost models, trace
// formats): a name, a one-line description and a factory. Filled by an explicit
// register_builtin_*() call, never by static constructors, so there is no global state.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace servesim {

template <typename Factory>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::string description;
    Factory factory;
  };

  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  void add(std::string name, std::string description, Factory factory) {
    entries_.push_back(Entry{std::move(name), std::move(description), std::move(factory)});
  }
  const Entry* find(const std::string& name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  // "a | b | c", for error messages that list the valid choices.
  std::string names() const {
    std::string out;
    for (const auto& e : entries_) out += (out.empty() ? "" : " | ") + e.name;
    return out;
  }
  // The names alone, in the order they were added, for validation.
  std::vector<std::string> entry_names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::vector<Entry> entries_;
};

}  // namespace servesim
