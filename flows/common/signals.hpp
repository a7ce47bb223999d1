#pragma once
/// \file signals.hpp
/// Ctrl-C (SIGINT) and SIGTERM during a flow: counted, never fatal, so a flow stops cleanly.

namespace mapwright::flows {

/// While alive, SIGINT (and with `also_term` SIGTERM) only counts: a flow polls count() and
/// stops cleanly, keeping what is finished. The previous handlers come back on destruction.
/// One at a time (the flows do not nest).
class InterruptSignals {
 public:
  explicit InterruptSignals(bool also_term = false);
  ~InterruptSignals();
  InterruptSignals(const InterruptSignals&) = delete;
  InterruptSignals& operator=(const InterruptSignals&) = delete;
  static int count();  ///< Signals received since construction.
  static void note();  ///< Counts one as if received (test hooks, internal stops).

 private:
  void (*old_int_)(int) = nullptr;
  void (*old_term_)(int) = nullptr;
  bool term_ = false;
};

}  // namespace mapwright::flows
