// The flows' text helpers: names made safe for terminals and files, HTML and gnuplot quoting
// (nothing a user names can break out of a page or a script), and the number formats of every
// page, table and message of the flows.
#include "common/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

namespace mapwright::flows {

std::string one_line(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return s;
}

std::string fit_name(const std::string& s, size_t width) {
  const std::string t = one_line(s);
  if (t.size() <= width) return t;
  if (width <= 3) return t.substr(0, width);
  return "..." + t.substr(t.size() - (width - 3));
}

size_t name_column_width(size_t longest_name) {
  return std::min<size_t>(56, std::max<size_t>(24, longest_name + 1));
}

std::string safe_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return s;
}

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string gp_quote(const std::string& s) {
  // In a gnuplot single-quoted string nothing is expanded (no backquote command substitution,
  // no macros, no backslash escapes). gnuplot 5.4's '' escape misparses runs of quotes at the
  // end of a string, so a quote is drawn as U+2019 instead; a line break would end the
  // command, so every control character becomes a space.
  std::string o = "'";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'')
      o += "\xe2\x80\x99";
    else if (u < 0x20 || u == 0x7f)
      o += ' ';
    else
      o += c;
  }
  return o + "'";
}

std::string gp_data_label(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"')
      o += '\'';
    else if (u < 0x20 || u == 0x7f)
      o += ' ';
    else
      o += c;
  }
  return o + "\"";
}

namespace {

/// `x` printed by `format`, a printf format with one precision (*) and one double.
std::string printf_double(const char* format, int precision, double x) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, format, precision, x);
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n) + 1, '\0');  // %f of a huge number
  std::snprintf(s.data(), s.size(), format, precision, x);
  s.resize(static_cast<size_t>(n));
  return s;
}

}  // namespace

std::string fmt_g(double x, int digits) {
  return printf_double("%.*g", digits, x);
}

std::string fmt_fixed(double x, int decimals) {
  return printf_double("%.*f", decimals, x);
}

std::string fmt_sci(double x, int decimals) {
  return printf_double("%.*e", decimals, x);
}

std::string with_commas(long long v) {
  // The magnitude as unsigned, so that the most negative value has one too.
  const unsigned long long m = v < 0 ? 0ULL - static_cast<unsigned long long>(v) : v;
  const std::string s = std::to_string(m);
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) o += ',';
    o += s[i];
  }
  return (v < 0 ? "-" : "") + o;
}

std::string si(double x, int digits) {
  static const char* big[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* small[] = {"", "m", "u", "n", "p", "f"};
  if (x == 0 || !std::isfinite(x)) return fmt_g(x);
  int u = 0;
  if (std::abs(x) >= 1) {
    while (std::abs(x) >= 1000 && u < 6) {
      x /= 1000;
      ++u;
    }
    return fmt_g(x, digits) + big[u];
  }
  while (std::abs(x) < 1 && u < 5) {
    x *= 1000;
    ++u;
  }
  return fmt_g(x, digits) + small[u];
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

}  // namespace mapwright::flows
