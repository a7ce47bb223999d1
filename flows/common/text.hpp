#pragma once
/// \file text.hpp
/// Text helpers of the flows: names safe for files, one-line text, HTML and gnuplot quoting, and
/// the flows' number formats (every page, table and message formats its numbers here).

#include <string>

namespace mapwright::flows {

/// `s` with every control character (line breaks, escapes, DEL) replaced by a space: safe to
/// print on a terminal or inside a one-line comment of a file.
std::string one_line(std::string s);
/// `s` on one line in at most `width` characters: a longer name keeps its end after "..." (the
/// end tells ONNX node names such as "/layers.0/self_attn/MatMul_1" apart).
std::string fit_name(const std::string& s, size_t width);
/// The width of a table's name column: the longest name plus one, at least 24 and at most 56
/// (ONNX node names run long; longer ones are cut by fit_name).
size_t name_column_width(size_t longest_name);
/// A file-name-safe version of `s` (letters, digits, '.', '-', '_').
std::string safe_name(std::string s);

/// Escapes & < > " ' for HTML text and attributes (also valid for XML).
std::string html_escape(const std::string& s);
/// Quotes a string for a gnuplot single-quoted literal (a quote becomes U+2019, control
/// characters become spaces): safe for any user string, nothing in it is expanded or executed.
std::string gp_quote(const std::string& s);
/// Quotes a label for a gnuplot data file column (double quotes; '"' and control characters
/// replaced), so that a hostile name stays one field of one line.
std::string gp_data_label(const std::string& s);

/// `x` with `digits` significant digits in the shorter of fixed and scientific notation (printf's
/// %.<digits>g, as an ostream writes it after setprecision(digits)): 60 -> "60", 0.1 -> "0.1",
/// fmt_g(0.0041372, 4) -> "0.004137", fmt_g(1.5e12) -> "1.5e+12".
std::string fmt_g(double x, int digits = 6);
/// `x` with `decimals` digits after the point (%.<decimals>f, as std::fixed writes it):
/// fmt_fixed(2.0 / 3, 2) -> "0.67".
std::string fmt_fixed(double x, int decimals);
/// `x` in scientific notation with `decimals` digits after the point (%.<decimals>e):
/// fmt_sci(4349245839.28, 4) -> "4.3492e+09".
std::string fmt_sci(double x, int decimals);
/// `v` with its thousands separated by commas: 1234567 -> "1,234,567".
std::string with_commas(long long v);
/// 1234567 -> "1.235M"; engineering notation with an SI prefix and `digits` significant digits.
std::string si(double x, int digits = 4);
/// Local time now, ISO 8601.
std::string now_iso();

}  // namespace mapwright::flows
