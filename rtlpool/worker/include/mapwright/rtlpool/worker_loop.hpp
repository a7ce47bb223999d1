#pragma once
/// \file worker_loop.hpp
/// The RTL worker process (`mapwright-rtl-worker`, or the hidden `mapwright rtl-worker`): the
/// server side of the RTL worker pool (rtl_pool.hpp), which spawns it.

#include <istream>

namespace mapwright::rtlpool {

/// The worker's main loop: reads one JSON request per line from `in` (protocol.hpp), runs it
/// on the process's RtlEvaluator, writes one JSON result per line to file descriptor `out_fd`.
/// Returns at EOF.
///
/// TEST HOOK (for the crash-retry tests only; never set it otherwise):
/// `MAPWRIGHT_TEST_CRASH_FIRST_JOB=<file>[:N]` (N defaults to 1) makes a worker that takes an
/// RTL job (not a probe) while `<file>` holds fewer than N bytes append one byte to it and die
/// by SIGSEGV before answering, so exactly N crashes happen across all workers (the file is
/// created if missing and updated under flock).
int worker_loop(std::istream& in, int out_fd);

}  // namespace mapwright::rtlpool
