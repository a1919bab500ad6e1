#pragma once
// A study's runs reported to Python as they end (a notebook's progress bar), and Ctrl-C
// between them. The studies call their hook (run_each's on_done, through run_sweep's
// on_point and run_search's on_done) from whichever thread ran the run, one call at a time,
// while the binding has released the GIL; each call takes the GIL to call Python.
// Stopping the study is throwing from the hook: run_parallel starts no further run, lets
// the running ones finish and rethrows it from the study, where the binding, holding the
// GIL again, raises the Python exception (the callable's own, or KeyboardInterrupt).
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace servesim_python {

namespace py = pybind11;

// Thrown from a study's hook to stop the study; raise_stopped() says why in Python.
struct StudyStopped {};

class StudyProgress {
 public:
  // `callback`: None, or progress(done, total) called once the study knows its runs and
  // after each. `interrupted`: set by a Ctrl-C on the main thread (SigintScope).
  StudyProgress(py::object callback, const std::atomic<bool>* interrupted)
      : callback_(std::move(callback)), interrupted_(interrupted) {}

  void start(std::size_t total) {
    total_ = total;
    call();
  }

  // After each run. Throws StudyStopped after Ctrl-C, or when the callable raised.
  void one_done() {
    ++done_;
    call();
    if (error_ || (interrupted_ && interrupted_->load())) throw StudyStopped{};
  }

  // With the GIL held, after the study threw StudyStopped: the callable's exception, else
  // KeyboardInterrupt.
  [[noreturn]] void raise_stopped() {
    if (error_) {
      py::error_already_set error = std::move(*error_);
      error_.reset();
      throw error;
    }
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }

 private:
  void call() {
    if (callback_.is_none() || error_) return;
    py::gil_scoped_acquire gil;
    try {
      callback_(done_, total_);
    } catch (py::error_already_set& e) {
      error_ = std::make_unique<py::error_already_set>(std::move(e));
    }
  }

  py::object callback_;
  const std::atomic<bool>* interrupted_;
  std::size_t done_ = 0;
  std::size_t total_ = 0;
  std::unique_ptr<py::error_already_set> error_;  // the callable's exception, raised once the study ends
};

}  // namespace servesim_python
