#pragma once
/// \file clock_text.hpp
/// The timing statement of the run's text summary and report: the architecture's clock against
/// the clock model's maximum frequency for its array (model/clock.hpp), labelled as modeled.

#include <string>

namespace mapwright::flows {

/// One sentence, plain text: "145 MHz (the architecture's clock); the clock model gives this
/// 16x16 array 147.3 MHz at HP45: met, modeled slack +0.108 ns; the fold set-up chain sets it".
std::string clock_statement(int rows, int cols, double clock_mhz);

}  // namespace mapwright::flows
