// The timing statement of run summaries and reports (common/clock_text.hpp).
#include "common/clock_text.hpp"

#include "common/text.hpp"
#include "mapwright/model/clock.hpp"

namespace mapwright::flows {

std::string clock_statement(int rows, int cols, double clock_mhz) {
  core::Arch a;
  a.rows = rows;
  a.cols = cols;
  const model::ClockConstants k;
  const model::ClockEstimate e = model::estimate_clock(a, k);
  const double slack_ns = 1000.0 / clock_mhz - e.period_ns;
  return fmt_g(clock_mhz, 4) +
         " MHz; the clock model (fitted on OpenSTA timing, OSU 0.18 um scaled to " + k.node +
         ", docs/synthesis.md) gives a " + std::to_string(rows) + "x" + std::to_string(cols) +
         " array " + fmt_fixed(e.fmax_mhz, 1) + " MHz: " + (slack_ns >= 0 ? "met" : "NOT met") +
         ", modeled slack " + (slack_ns >= 0 ? "+" : "") + fmt_fixed(slack_ns, 3) + " ns, " +
         (e.setup_chain_limits ? "limited by the fold set-up chain (mw_fold_seq)"
                               : "limited by paths that do not grow with the array");
}

}  // namespace mapwright::flows
