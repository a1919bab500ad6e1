// JsonDocument: the whole file in memory, and a SAX pass that finds one value's line.
#include "sim/workload/benchmark/json_document.h"

#include <cstddef>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "sim/core/errors.h"

namespace servesim {
namespace {

using json = nlohmann::json;

int line_at_offset(const std::string& text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  int line = 1;
  for (std::size_t i = 0; i < offset; ++i) line += text[i] == '\n';
  return line;
}

// A character iterator that remembers the line of the last character that is not white
// space it handed out. The parser reads one character past a number to see where it ends;
// that character may be a newline, so the line of the last non-space character is the
// line of the token the parser has just reported.
struct LineCountingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  int* line = nullptr;             // line of *at
  int* last_token_line = nullptr;  // line of the last non-space character read

  reference operator*() const {
    const char c = *at;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') *last_token_line = *line;
    return *at;
  }
  LineCountingIterator& operator++() {
    if (*at == '\n') ++*line;
    ++at;
    return *this;
  }
  LineCountingIterator operator++(int) {
    LineCountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const LineCountingIterator& other) const { return at == other.at; }
  bool operator!=(const LineCountingIterator& other) const { return at != other.at; }
};

// Walks the SAX events keeping the pointer of the current value; stops at the target.
class LineFinder : public nlohmann::json_sax<json> {
 public:
  LineFinder(std::vector<std::string> target, const int* last_token_line)
      : target_(std::move(target)), last_token_line_(last_token_line) {}

  int found_line = 0;   // line of the target, or of its deepest existing ancestor
  int best_depth = -1;  // how many tokens of the target matched at found_line

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    if (!visit()) return false;
    frames_.push_back({false, 0, ""});
    return true;
  }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override { return end_container(); }
  bool start_array(std::size_t) override {
    if (!visit()) return false;
    frames_.push_back({true, 0, ""});
    return true;
  }
  bool end_array() override { return end_container(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool is_array;
    std::size_t index;
    std::string key;
  };

  std::string token_at(std::size_t depth) const {
    const Frame& f = frames_[depth];
    return f.is_array ? std::to_string(f.index) : f.key;
  }

  // Called at the start of every value: is it the target, or a deeper ancestor of it?
  // Returns false (stop parsing) once the target itself is reached.
  bool visit() {
    const std::size_t depth = frames_.size();  // tokens in the current value's pointer
    if (depth > target_.size()) return true;
    for (std::size_t i = 0; i < depth; ++i) {
      if (token_at(i) != target_[i]) return true;
    }
    if (static_cast<int>(depth) > best_depth) {
      best_depth = static_cast<int>(depth);
      found_line = *last_token_line_;
    }
    return depth != target_.size();
  }
  bool value() {
    if (!visit()) return false;
    advance();
    return true;
  }
  bool end_container() {
    frames_.pop_back();
    advance();
    return true;
  }
  void advance() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }

  std::vector<std::string> target_;
  const int* last_token_line_;
  std::vector<Frame> frames_;
};

std::vector<std::string> tokens_of(const json::json_pointer& pointer) {
  std::vector<std::string> tokens;
  json::json_pointer p = pointer;
  while (!p.empty()) {
    tokens.insert(tokens.begin(), p.back());
    p.pop_back();
  }
  return tokens;
}

}  // namespace

JsonDocument::JsonDocument(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw ConfigError(path_, 0, "", "cannot open the benchmark file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ConfigError(path_, 0, "", "cannot read the benchmark file (is it a folder?)");
  text_ = buffer.str();
  if (text_.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ConfigError(path_, 0, "", "the benchmark file is empty");
  }
  try {
    root_ = json::parse(text_);
  } catch (const json::parse_error& e) {
    throw ConfigError(path_, line_at_offset(text_, e.byte == 0 ? 0 : e.byte - 1), "",
                      std::string("not valid JSON: ") + e.what());
  } catch (const json::exception& e) {
    // out_of_range for a number beyond a double ("1e400"), which carries no offset: the
    // line is where the number it quotes first appears.
    const std::string what = e.what();
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    const std::size_t at = open != std::string::npos && close > open
                               ? text_.find(what.substr(open + 1, close - open - 1))
                               : std::string::npos;
    throw ConfigError(path_, at == std::string::npos ? 0 : line_at_offset(text_, at), "", "not valid JSON: " + what);
  }
}

int JsonDocument::line_of(const json::json_pointer& pointer) const {
  int line = 1;
  int last_token_line = 1;
  LineFinder finder(tokens_of(pointer), &last_token_line);
  LineCountingIterator first{text_.data(), &line, &last_token_line};
  LineCountingIterator last{text_.data() + text_.size(), &line, &last_token_line};
  json::sax_parse(first, last, &finder);
  return finder.found_line;
}

void JsonDocument::fail(const json::json_pointer& pointer, const std::string& field, const std::string& message) const {
  throw ConfigError(path_, line_of(pointer), field, message);
}

}  // namespace servesim
