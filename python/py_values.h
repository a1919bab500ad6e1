#pragma once
// A study's result handed to Python as Python values (dict, list, str, int, float, bool,
// None), built from the result's JSON value in memory rather than printed and parsed again:
// the same dict `json.loads` of the CLI's --json output gives, key order included (an
// ordered_json keeps its insertion order, a json its sorted one), with no text between.
#include <pybind11/pybind11.h>

#include <cmath>
#include <string>

namespace servesim_python {

namespace py = pybind11;

// Text as str; bytes that are not UTF-8 (a class name from a user's file) become U+FFFD, as
// the CLI's writers replace them.
inline py::str utf8_text(const std::string& text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

template <class Json>
py::object to_python(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      py::dict d;
      for (auto it = value.begin(); it != value.end(); ++it) d[utf8_text(it.key())] = to_python(it.value());
      return d;
    }
    case Json::value_t::array: {
      py::list l;
      for (const auto& item : value) l.append(to_python(item));
      return l;
    }
    case Json::value_t::string:
      return utf8_text(value.template get_ref<const std::string&>());
    case Json::value_t::boolean:
      return py::bool_(value.template get<bool>());
    case Json::value_t::number_integer:
      return py::int_(value.template get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(value.template get<std::uint64_t>());
    case Json::value_t::number_float: {
      // The CLI's JSON writes a NaN or an infinity as null (nlohmann::json's dump).
      const double x = value.template get<double>();
      return std::isfinite(x) ? py::object(py::float_(x)) : py::object(py::none());
    }
    default:  // null, and the binary and discarded kinds no result uses
      return py::none();
  }
}

}  // namespace servesim_python
