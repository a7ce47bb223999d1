// The schema checker of json_schema.hpp: walks a value and its schema together, and refuses the
// first value that does not fit with its key path.
#include "record/json_schema.hpp"

#include <cmath>

#include "mapwright/support/error.hpp"

namespace mapwright::flows {

using json = nlohmann::json;

JsonChecker::JsonChecker(std::string file, std::string advice, std::map<std::string, json> refs)
    : file_(std::move(file)), advice_(std::move(advice)), refs_(std::move(refs)) {}

void JsonChecker::check(const json& v, const json& schema, const std::string& path) const {
  if (schema.is_object()) {
    if (!v.is_object()) fail(path, v, "must be an object");
    for (const auto& [k, sub] : schema.items()) {
      const bool optional = !k.empty() && k.back() == '?';
      const std::string key = optional ? k.substr(0, k.size() - 1) : k;
      const std::string p = path.empty() ? key : path + "." + key;
      if (!v.contains(key)) {
        if (optional) continue;
        fail(p, json(), "is missing");
      }
      check(v.at(key), sub, p);
    }
    return;
  }
  if (schema.is_array()) {
    if (!v.is_array()) fail(path, v, "must be a list");
    for (size_t i = 0; i < v.size(); ++i)
      check(v[i], schema[0], path + "[" + std::to_string(i) + "]");
    return;
  }
  std::string type = schema.get<std::string>();
  if (!type.empty() && type[0] == '@') return check(v, refs_.at(type.substr(1)), path);
  if (!type.empty() && type[0] == '?') {
    if (v.is_null()) return;
    type = type.substr(1);
  }
  check_scalar(v, type, path);
}

void JsonChecker::fail(const std::string& path, const json& v, const std::string& why) const {
  const std::string value = v.is_null()     ? std::string()
                            : v.is_string() ? v.get<std::string>()
                                            : v.dump();
  throw core::SpecError(file_, path, value, why + " (" + advice_ + ")");
}

void JsonChecker::check_scalar(const json& v, const std::string& type,
                               const std::string& path) const {
  if (type == "any") return;
  if (type == "string" && !v.is_string()) fail(path, v, "must be a string");
  if (type == "bool" && !v.is_boolean()) fail(path, v, "must be true or false");
  if (type == "object" && !v.is_object()) fail(path, v, "must be an object");
  if (type == "number" && (!v.is_number() || !std::isfinite(v.get<double>())))
    fail(path, v, "must be a finite number");
  if (type == "int" || type == "uint" || type == "count") {
    if (!v.is_number_integer()) fail(path, v, "must be an integer");
    if (type != "int" && v.is_number_integer() && !v.is_number_unsigned() &&
        v.get<long long>() < (type == "count" ? 1 : 0))
      fail(path, v, type == "count" ? "must be >= 1" : "must be >= 0");
    if (type == "count" && v.is_number_unsigned() && v.get<unsigned long long>() < 1)
      fail(path, v, "must be >= 1");
  }
  if (type.rfind("enum:", 0) == 0) {
    if (!v.is_string()) fail(path, v, "must be one of " + type.substr(5));
    const std::string s = "|" + type.substr(5) + "|";
    if (s.find("|" + v.get<std::string>() + "|") == std::string::npos)
      fail(path, v, "must be one of " + type.substr(5));
  }
}

}  // namespace mapwright::flows
