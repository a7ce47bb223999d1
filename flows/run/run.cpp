// `mapwright run`, the main job, as a command: settles the run folder (a resumed run's settings
// come from it), checks the options, loads the inputs, starts the RTL workers, runs a RunApp
// session (run_app.hpp) and prints the summary (or results.json). Under mpirun, ranks other
// than 0 serve rank 0's layers instead (run_dist.cpp).
#include "mapwright/flows/run.hpp"

#include <iostream>

#include "mapwright/flows/dist.hpp"
#include "mapwright/flows/synth.hpp"
#include "run/run_app.hpp"
#include "run/run_output.hpp"

namespace mapwright::flows {

int cmd_run(const RunOptions& opt, std::ostream& out) {
  if (opt.distribute && dist::size() > 1 && dist::rank() != 0) return run_worker();
  RunOptions o = opt;
  if (o.out_dir.empty()) o.out_dir = default_run_dir(o.settings).string();
  RunFolder folder = open_run_folder(o);
  // Everything is validated before any work.
  check_run_options(o);
  RunInputs inputs = load_run_inputs(o.settings, &std::cerr);
  // --synth needs an architecture the RTL elaborates for (refused now, before any work).
  if (o.synth) synth_params(inputs.arch, "--arch");
  const std::unique_ptr<rtlpool::RtlWorkerPool> pool =
      o.settings.rtl() ? start_rtl_pool(o, inputs.arch, run_jobs(o)) : nullptr;
  RunApp app(o, std::move(folder), std::move(inputs), pool.get());
  const RunRecord rec = app.run();
  if (o.json)
    out << run_record_to_json(rec).dump(2) << "\n";
  else
    print_run_summary(rec, out);
  if (!app.rank_failure().empty())
    std::cerr << "mapwright: " << app.rank_failure()
              << "; the layer stays pending: continue with `mapwright run --resume --out "
              << rec.run_dir << "`\n";
  return app.exit_code();
}

}  // namespace mapwright::flows
