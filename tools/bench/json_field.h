// Reading a JSON document of a known shape with errors that name the field:
// "tables[1].rows[3].contenders.Loom.median_s: expected a number or null,
// found a string".  Used by `loom bench summary` on the benchmark JSON, so
// that a file of another shape is reported, not a crash.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace loom_bench {

// A value in the document that is not what the reader expects; what() is
// "<path>: <what is wrong>".
class ShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value and its path from the document's root.
class JsonField {
 public:
  JsonField(const nlohmann::json &value, std::string path)
      : v_(&value), path_(std::move(path)) {}

  const std::string &path() const { return path_; }
  const nlohmann::json &value() const { return *v_; }
  bool is_null() const { return v_->is_null(); }

  // Member `key` of this object; ShapeError when this is not an object or
  // has no such member.
  JsonField at(const std::string &key) const;
  // Whether this object has member `key` (ShapeError when not an object).
  bool has(const std::string &key) const;
  // Element i of this array.
  JsonField at(size_t i) const;
  // The number of elements of this array (ShapeError when not an array).
  size_t size() const;
  // ShapeError unless this is an object.
  void expect_object() const;

  std::string str() const;
  bool boolean() const;
  int64_t integer() const;
  double number() const;
  double number_or_nan() const;  // null reads as NAN

  // Throws ShapeError("<path>: <what>").
  [[noreturn]] void fail(const std::string &what) const;

 private:
  [[noreturn]] void wrong_type(const char *expected) const;
  const nlohmann::json *v_;
  std::string path_;
};

}  // namespace loom_bench
