#pragma once
/// \file error.hpp
/// The one exception type for bad user input: it always names where (file or flag), the key
/// and the offending value (control characters escaped), so the CLI can print it and exit non-zero.

#include <cstdio>
#include <stdexcept>
#include <string>

namespace mapwright::core {

/// Text safe for a terminal: control characters become \n, \t, \r or \xNN; with `max_len`
/// > 0, longer text is cut with "...". Used for every part of a SpecError message.
inline std::string escape_text(const std::string& s, size_t max_len = 0) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (max_len > 0 && out.size() >= max_len) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

class SpecError : public std::runtime_error {
 public:
  SpecError(const std::string& where, const std::string& key, const std::string& value,
            const std::string& why)
      : std::runtime_error(escape_text(where) + ": key '" + escape_text(key) + "' = '" +
                           escape_text(value, 240) + "': " + escape_text(why)),
        where_(where),
        key_(key),
        value_(value),
        why_(why) {}
  const std::string& where() const { return where_; }  ///< File or flag.
  const std::string& key() const { return key_; }      ///< Offending key (dotted path).
  const std::string& value() const { return value_; }  ///< Offending value as text.
  const std::string& why() const { return why_; }      ///< What is wrong with it.

 private:
  std::string where_;  ///< File or flag.
  std::string key_;    ///< Key.
  std::string value_;  ///< Value.
  std::string why_;    ///< Reason.
};

}  // namespace mapwright::core
