// The study flow: runs searchers x seeds x layers on the surrogate, measures every run against
// its layer's optimum (exact mapper), and reports samples-to-target (Kaplan-Meier medians over
// seeds, censored at the budget) and iso-sample gaps to the optimum with bootstrap intervals
// (seeds resampled within each layer), ratios against marl and ppo-box, invalid and duplicate
// rates, as CSVs, gnuplot SVG plots, study.json and study.html. This file is the pipeline;
// study_state (folder state, optima, trial log), study_exec (thread pool, MPI), study_figures
// (the statistics), study_output and study_summary (files, summary, table) do the work.
#include "mapwright/flows/study.hpp"

#include "codesign/codesign_study.hpp"
#include "common/files.hpp"
#include "mapwright/flows/dist.hpp"
#include "study/study_exec.hpp"
#include "study/study_figures.hpp"
#include "study/study_html.hpp"
#include "study/study_output.hpp"
#include "study/study_state.hpp"
#include "study/study_summary.hpp"

namespace mapwright::flows {

/// What a StudyApp keeps between construction and run().
struct StudyApp::Impl {
  StudySetup setup;  ///< The options and suite, resolved.
};

StudyApp::StudyApp(const StudyOptions& options, StudySuite suite)
    : impl_(std::make_unique<Impl>(Impl{make_study_setup(options, std::move(suite))})) {}

StudyApp::~StudyApp() = default;

// The pipeline: open the folder (lock, state, resume) -> the exact optimum of every layer ->
// plan the searcher runs (those recorded in an earlier session are kept) -> run the rest,
// recording each as it finishes -> references and figures -> runs.csv, summary.csv,
// searchers.csv, curves and plots -> study.json and study.html.
StudyResult StudyApp::run() {
  const StudySetup& s = impl_->setup;
  const FolderLock folder_lock(s.dir, "--out");  // one process per study folder
  make_output_dir(s.dir / "curves");             // fails here, before any work, when unwritable
  make_output_dir(s.dir / "plots");
  StudyState state(s);
  state.find_optima();
  state.plan_jobs();
  const ExecOutcome exec = StudyExecutor(s, state.jobs(), state.log()).run(state.from_log());
  const StudyRuns runs(s, state.jobs(), state.optimum());

  StudyResult r;
  r.suite = s.suite;
  r.suite_file = s.options.suite;
  r.arch = s.arch.name;
  r.search_options = s.search;
  for (const auto& l : s.layers) r.layers.push_back(l.name);
  r.optimum = state.optimum();
  r.exact_seconds = state.exact_seconds();
  r.wall_seconds = exec.wall_seconds;
  r.threads = exec.threads;
  r.interrupted = exec.stopped;
  r.runs_from_earlier_sessions = state.from_log();
  r.figures = study_figures(s, runs);
  r.dir = s.dir;

  write_runs_csv(s, runs);
  write_summary_csv(s, r.figures);
  write_searchers_csv(s, r.figures);
  StudyPlots plots = write_plots(s, runs);
  r.plotted = plots.plotted;
  const nlohmann::json summary = study_summary_json(r);
  write_atomic(s.dir / "study.json", summary.dump(2) + "\n");
  write_atomic(s.dir / "study.html", render_study_html(StudyPage{summary, std::move(plots.gap_svg),
                                                                 std::move(plots.layer_svgs)}));
  return r;
}

int StudyApp::serve() {
  std::vector<Job> none;
  return StudyExecutor(impl_->setup, none, nullptr).serve();
}

// load_study_suite lives in study_suite.cpp (a small unit the fuzz target compiles).

int cmd_study(const StudyOptions& o, std::ostream& out) {
  // A suite with `kind: codesign` measures the searchers over hardware spaces (codesign/).
  if (codesign::is_codesign_study(o.suite)) return codesign::cmd_codesign_study(o, out);
  StudyApp app(o, load_study_suite(o.suite));
  // Under mpirun, ranks other than 0 compute searcher runs for rank 0 (dist.hpp).
  if (dist::size() > 1 && dist::rank() != 0) return app.serve();
  const StudyResult r = app.run();
  if (o.json)
    out << study_summary_json(r).dump(2) << "\n";
  else
    print_study(r, out);
  return r.interrupted ? 130 : 0;
}

}  // namespace mapwright::flows
