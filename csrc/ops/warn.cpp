// One-time warnings that reach Python's `warnings` module.
//
// TORCH_WARN becomes a Python warning only inside torch's own binding scopes; a custom op called
// as torch.ops.bw.* outside autograd is not in one, and its TORCH_WARN is printed to stderr where
// `warnings.catch_warnings`, `-W error` and pytest cannot see it (seen on the H200 with torch 2.11).
// So the warning is raised through the Python C API when an interpreter is running.
#include <Python.h>

#include <c10/util/Exception.h>

#include <mutex>
#include <string>
#include <unordered_set>

#include "ops/gemm_axpby.hpp"

namespace bw::ops {

namespace {
// The messages shown in this process (a function-local static: built on first use).
struct Shown {
  std::mutex mutex;
  std::unordered_set<std::string> messages;
};
Shown& shown() {
  static Shown s;
  return s;
}

// Returns "" when the warning was issued, else the error Python's warning filters turned it into.
std::string python_warn(const std::string& message) {
  PyGILState_STATE gil = PyGILState_Ensure();
  std::string error;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) {
    PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* str = value ? PyObject_Str(value) : nullptr;
    const char* text = str ? PyUnicode_AsUTF8(str) : nullptr;
    error = text ? text : message;
    Py_XDECREF(str);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
  }
  PyGILState_Release(gil);
  return error;
}
}  // namespace

void warn_once(const std::string& message) {
  Shown& s = shown();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.messages.count(message)) return;
  }
  if (!Py_IsInitialized()) {
    TORCH_WARN(message);
  } else {
    const std::string error = python_warn(message);
    // A filter such as `-W error` made the warning an exception: raise it, and warn again next time.
    TORCH_CHECK(error.empty(), error);
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  s.messages.insert(message);
}

void forget_warnings() {
  Shown& s = shown();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.messages.clear();
}

}  // namespace bw::ops
