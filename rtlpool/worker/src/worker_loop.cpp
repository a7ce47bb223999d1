// The RTL worker process's loop: one request per line in (protocol.hpp), one answer per line
// out, one SystemC simulation per process (a systemc::RtlEvaluator kept across jobs, so a
// worker elaborates its architecture's model once). A probe elaborates the model and reads its
// parameters; a run is admitted against its limits (run_admission.hpp) and goes to the
// evaluator with the harness the process can serve fastest. A
// build without the RTL answers every job with a typed Arch failure. The loop holds one test
// hook (MAPWRIGHT_TEST_CRASH_FIRST_JOB, see crash_for_test) that makes a worker crash on
// purpose.
#include "mapwright/rtlpool/worker_loop.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/rtlpool/protocol.hpp"
#ifdef MAPWRIGHT_HAVE_RTL
#include "mapwright/rtlpool/run_admission.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"
#endif

namespace mapwright::rtlpool {

using core::RtlFailure;

namespace {

/// TEST HOOK, for the crash-retry tests only (documented at worker_loop):
/// MAPWRIGHT_TEST_CRASH_FIRST_JOB=<file>[:N]. While <file> holds fewer than N bytes (N = 1 by
/// default), the worker that takes a job appends one byte and dies by SIGSEGV without
/// answering; the flock makes the count exact when several workers race. Unset, it costs one
/// getenv per job.
void crash_for_test() {
  const char* v = std::getenv("MAPWRIGHT_TEST_CRASH_FIRST_JOB");
  if (!v || !*v) return;
  std::string file = v;
  long limit = 1;
  if (const size_t colon = file.rfind(':'); colon != std::string::npos) {
    limit = std::strtol(file.c_str() + colon + 1, nullptr, 10);
    file.resize(colon);
  }
  const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  bool crash = false;
  if (flock(fd, LOCK_EX) == 0) {
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size < limit) crash = write(fd, "x", 1) == 1;
  }
  close(fd);  // also drops the lock
  if (!crash) return;
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a deliberate crash leaves no core file behind
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
}

/// The process's simulator and the architectures its jobs named (each loaded once).
class Worker {
 public:
  /// The answer to one request (`id` is set as soon as the request names it). Throws on a
  /// malformed request or an architecture that does not load.
  RtlJobResult answer(const nlohmann::json& req, size_t& id) {
    id = req.at("id").get<size_t>();
    const RtlJob job = job_from_json(req);
    if (!archs_.count(job.arch)) archs_.emplace(job.arch, core::load_arch(job.arch));
    const core::Arch& arch = archs_.at(job.arch);
#ifdef MAPWRIGHT_HAVE_RTL
    if (job.probe) return probe(arch);
    crash_for_test();
    return run(arch, job);
#else
    (void)arch;
    RtlJobResult r;
    r.kind = RtlFailure::Arch;
    r.failure = "arch: this mapwright was built without the RTL (MAPWRIGHT_BUILD_RTL=OFF)";
    return r;
#endif
  }

 private:
#ifdef MAPWRIGHT_HAVE_RTL
  /// A probe: elaborates the model for `arch` and reads its parameters; nothing is simulated.
  RtlJobResult probe(const core::Arch& arch) {
    RtlJobResult r;
    systemc::RtlParams p;
    std::string failure;
    if (!rtl_.read_params(arch, p, failure, systemc::RtlHarness::Auto)) {
      std::string known;
      for (const auto& nm : systemc::RtlEvaluator::compiled_archs())
        known += (known.empty() ? "" : ", ") + nm;
      r.kind = RtlFailure::Arch;
      r.failure = failure + " (architectures with a compiled RTL model: " + known + ")";
    } else {
      r.functional_ok = true;
    }
    return r;
  }

  /// A run of `job` on `arch`, admitted against its cycle and memory limits first.
  RtlJobResult run(const core::Arch& arch, const RtlJob& job) {
    systemc::RtlRunOptions ro;
    ro.seed = job.seed;
    ro.watchdog_cycles = job.watchdog_cycles;
    ro.trace_file = job.trace_file;
    ro.limits = job.limits;
    ro.limits.max_seconds = 0;  // the pool enforces the wall clock by killing this process
    // The decoupled SystemC harness where the architecture has a plain model and no
    // waveform is asked for (same results, faster); else the pin-level testbench.
    ro.harness = systemc::RtlHarness::Auto;
    return run_admitted(rtl_, job.layer, arch, job.mapping, ro);
  }

  systemc::RtlEvaluator rtl_;  ///< The process's one simulation.
#endif
  std::map<std::string, core::Arch> archs_;  ///< Architectures by the name the jobs gave.
};

}  // namespace

int worker_loop(std::istream& in, int out_fd) {
  // A worker dies with its parent: the kernel sends SIGKILL when the parent exits (even by
  // SIGKILL), so no simulation runs on as an orphan. If the parent is already gone (it died
  // between the spawn and this call), exit at once.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (const char* parent = std::getenv("MAPWRIGHT_WORKER_PARENT"))
    if (std::to_string(getppid()) != parent) return 1;
  // The protocol owns out_fd; anything the simulator prints goes to stderr.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  Worker worker;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    size_t id = 0;
    RtlJobResult r;
    try {
      r = worker.answer(nlohmann::json::parse(line), id);
    } catch (const std::exception& e) {
      r.kind = RtlFailure::Internal;
      r.failure = std::string("worker: ") + e.what();
    }
    if (!write_line(out_fd, result_to_json(id, r))) std::exit(1);  // the parent went away
  }
  return 0;
}

}  // namespace mapwright::rtlpool
