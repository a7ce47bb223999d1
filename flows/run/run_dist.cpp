// A run under mpirun. Rank 0's RunApp hands the pending layers one at a time to whichever rank
// asks (dynamic load balancing) and records each layer a rank sends back as if searched here;
// every other rank (run_worker) runs a RunApp of its own in the scratch folder
// <out>/.ranks/<rank>, searches and verifies one layer per message on its own RTL workers and
// sends the layer back (its record, its best-so-far curve and its samples). Told to stop, a rank
// closes its store and removes its scratch folder before it says it is done; rank 0 removes
// <out>/.ranks only after every rank has said so.
#include "run/run_app.hpp"

#include <deque>
#include <iostream>

#include "common/signals.hpp"
#include "mapwright/support/test_hooks.hpp"
#include "mapwright/flows/dist.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The settings and process knobs a rank needs to search and verify a layer exactly as rank 0
/// would (rank 0's, after a --resume took the settings from the run folder).
json worker_options_json(const RunOptions& o) {
  return {{"settings", settings_to_json(o.settings)},
          {"jobs", o.jobs},
          {"worker_exe", o.worker_exe},
          {"rtl_watchdog_cycles", o.rtl_watchdog_cycles},
          {"sim_max_cycles", o.sim_limits.max_cycles},
          {"sim_max_seconds", o.sim_limits.max_seconds},
          {"sim_max_memory_mb", o.sim_limits.max_memory_mb}};
}

RunOptions worker_options_from_json(const json& j) {
  RunOptions o;
  o.settings = settings_from_json(j.at("settings"), "the message of rank 0");
  o.jobs = j.at("jobs").get<int>();
  o.worker_exe = j.at("worker_exe").get<std::string>();
  o.rtl_watchdog_cycles = j.at("rtl_watchdog_cycles").get<long long>();
  o.sim_limits.max_cycles = j.at("sim_max_cycles").get<long long>();
  o.sim_limits.max_seconds = j.at("sim_max_seconds").get<double>();
  o.sim_limits.max_memory_mb = j.at("sim_max_memory_mb").get<long long>();
  o.progress = false;
  return o;
}

}  // namespace

bool RunApp::dispatch_pending_layers() {
  std::deque<size_t> todo;
  for (size_t li = 0; li < rec_.layers.size(); ++li)
    if (rec_.layers[li].status == LayerStatus::Pending) todo.push_back(li);
  if (o_.stop_after_layers >= 0 && todo.size() > static_cast<size_t>(o_.stop_after_layers)) {
    todo.resize(static_cast<size_t>(o_.stop_after_layers));
    InterruptSignals::note();  // the test hook behaves like a Ctrl-C after these layers
  }
  const json options = worker_options_json(o_);
  bool no_valid = false;
  auto work = [&](int rank, size_t li) -> json {
    if (o_.progress)
      std::cerr << "rank " << rank << ": layer " << li + 1 << "/" << rec_.layers.size() << " "
                << rec_.layers[li].layer.name << "\n"
                << std::flush;
    return {{"index", li}, {"options", options}, {"dir", folder_.dir.string()}};
  };
  auto on_result = [&](int rank, const json& m) {
    const size_t li = m["index"].get<size_t>();
    if (m.value("interrupted", false)) {
      InterruptSignals::note();  // Ctrl-C reached that rank: its layer stays pending
    } else if (m.contains("failure")) {
      if (rank_failure_.empty())
        rank_failure_ = "rank " + std::to_string(rank) + " failed on layer " +
                        rec_.layers[li].layer.name + ": " + m["failure"].get<std::string>();
    } else {
      absorb_layer(li, m);
      no_valid = no_valid || rec_.layers[li].candidates.empty();
    }
  };
  try {
    dist::farm(std::move(todo), work, on_result,
               [&] { return InterruptSignals::count() > 0 || !rank_failure_.empty(); });
  } catch (const std::exception& e) {
    std::cerr << "mapwright: error on rank 0, stopping every rank: " << e.what() << "\n"
              << "continue with `mapwright run --resume --out " << folder_.dir.string() << "`\n";
    finish();
    dist::abort(2);
  }
  std::error_code ec;
  fs::remove_all(folder_.dir / ".ranks", ec);
  return !no_valid;
}

json RunApp::search_one(size_t li) {
  last_evals_.clear();
  const LayerOutcome r = search_layer_at(li);
  drain_rtl();
  if (r == LayerOutcome::Stopped) return {{"index", li}, {"interrupted", true}};
  const LayerRecord& L = rec_.layers[li];
  json evals = json::array();
  for (const auto& e : last_evals_)
    evals.push_back({e.sample, e.valid, e.cost, e.cycles, e.energy_pj, e.reason, e.point});
  return {{"index", li},
          {"layer", layer_record_to_json(L, rtl_)},
          {"curve", L.curve_csv.empty() ? std::string() : read_text(folder_.dir / L.curve_csv)},
          {"evals", evals}};
}

void RunApp::absorb_layer(size_t li, const json& m) {
  rec_.layers[li] = layer_record_from_json(m["layer"], "the message of an MPI rank");
  LayerRecord& R = rec_.layers[li];
  if (!R.curve_csv.empty()) write_atomic(folder_.dir / R.curve_csv, m["curve"].get<std::string>());
  std::vector<EvaluationRow> evals;
  for (const auto& e : m["evals"])
    evals.push_back({e[0].get<int64_t>(), e[1].get<bool>(), e[2].get<double>(),
                     e[3].get<long long>(), e[4].get<double>(), e[5].get<std::string>(),
                     e[6].get<std::string>()});
  db_->put_evaluations(rec_.run_id, static_cast<int>(li), evals);
  for (const auto& c : R.candidates)
    if (c.verification) db_->put_verification(rec_.run_id, static_cast<int>(li), c);
  if (R.status == LayerStatus::Done) {
    write_best(li);
  } else if (R.status == LayerStatus::Searched && rtl_) {
    submit_verifications(li);  // the rank was stopped before its checks came in
  }
  db_->put_layer(rec_.run_id, R);
  save();
}

int run_worker() {
  std::unique_ptr<rtlpool::RtlWorkerPool> pool;
  std::unique_ptr<RunApp> app;  // set up on the first layer, from rank 0's settings
  fs::path scratch;             // <out>/.ranks/<rank>, once chosen
  const InterruptSignals signals(/*also_term=*/true);
  auto answer = [&](const json& m) -> json {
    // Test hook (core/test_hooks.hpp): a rank that dies in the middle of a run.
    if (core::kill_point_reached("run_layer")) core::kill_self();
    const size_t li = m["index"].get<size_t>();
    try {
      if (!app) {
        RunOptions o = worker_options_from_json(m["options"]);
        RunInputs in = load_run_inputs(o.settings, nullptr);
        if (o.settings.rtl()) pool = start_rtl_pool(o, in.arch, run_jobs(o));
        scratch = fs::path(m["dir"].get<std::string>()) / ".ranks" / std::to_string(dist::rank());
        fs::remove_all(scratch);
        RunFolder folder;
        folder.dir = scratch;
        o.db = (scratch / "scratch.sqlite").string();
        app = std::make_unique<RunApp>(std::move(o), std::move(folder), std::move(in), pool.get());
      }
      return app->search_one(li);
    } catch (const std::exception& e) {
      return {{"index", li}, {"failure", e.what()}};
    }
  };
  // Told to stop: close the scratch store (SQLite removes its WAL files on close) and the RTL
  // workers, then remove the scratch folder, all before rank 0 hears that this rank is done and
  // removes <out>/.ranks.
  auto finish = [&] {
    app.reset();
    pool.reset();
    std::error_code ec;
    if (!scratch.empty()) fs::remove_all(scratch, ec);
  };
  return dist::serve_farm(answer, finish);
}

}  // namespace mapwright::flows
