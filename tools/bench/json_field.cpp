#include "json_field.h"

#include <cmath>

namespace loom_bench {

namespace {

const char *type_name(const nlohmann::json &v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::binary: return "binary data";
    default: return "a number";
  }
}

}  // namespace

void JsonField::fail(const std::string &what) const {
  throw ShapeError((path_.empty() ? std::string("the document") : path_) + ": " + what);
}

void JsonField::wrong_type(const char *expected) const {
  fail(std::string("expected ") + expected + ", found " + type_name(*v_));
}

void JsonField::expect_object() const {
  if (!v_->is_object()) wrong_type("an object");
}

bool JsonField::has(const std::string &key) const {
  expect_object();
  return v_->contains(key);
}

JsonField JsonField::at(const std::string &key) const {
  expect_object();
  auto it = v_->find(key);
  const std::string p = path_.empty() ? key : path_ + "." + key;
  if (it == v_->end()) throw ShapeError(p + ": missing");
  return JsonField(*it, p);
}

size_t JsonField::size() const {
  if (!v_->is_array()) wrong_type("an array");
  return v_->size();
}

JsonField JsonField::at(size_t i) const {
  if (i >= size()) fail("index " + std::to_string(i) + " out of range");
  return JsonField((*v_)[i], path_ + "[" + std::to_string(i) + "]");
}

std::string JsonField::str() const {
  if (!v_->is_string()) wrong_type("a string");
  return v_->get<std::string>();
}

bool JsonField::boolean() const {
  if (!v_->is_boolean()) wrong_type("true or false");
  return v_->get<bool>();
}

int64_t JsonField::integer() const {
  if (!v_->is_number_integer()) wrong_type("an integer");
  return v_->get<int64_t>();
}

double JsonField::number() const {
  if (!v_->is_number()) wrong_type("a number");
  return v_->get<double>();
}

double JsonField::number_or_nan() const {
  if (v_->is_null()) return NAN;
  if (!v_->is_number()) wrong_type("a number or null");
  return v_->get<double>();
}

}  // namespace loom_bench
