// RunApp's session (run_app.hpp): searches every pending layer on the surrogate (keeping the
// top-K distinct candidates the search's observe callback sees), verifies the candidates on the
// RTL in worker processes while the next layers are searched, picks each layer's best by RTL,
// and keeps the run folder (results.json, SQLite, curves, mappings) up to date as each search
// and each verification finishes, so Ctrl-C keeps everything done and --resume continues with
// the same seeds.
#include "run/run_app.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "common/signals.hpp"
#include "common/text.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/flows/synth.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/model/refined.hpp"
#include "report/render.hpp"
#include "run/run_output.hpp"
#include "verify/crosscheck.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The top-K distinct mappings by surrogate cost (ties keep the earlier sample).
struct TopK {
  struct Entry {
    double cost;      ///< Surrogate objective.
    int64_t sample;   ///< Sample index at which the search saw it.
    Mapping mapping;  ///< The mapping.
    Metrics metrics;  ///< Its surrogate metrics.
  };
  size_t k;                    ///< How many to keep.
  std::vector<Entry> entries;  ///< Sorted by (cost, sample).
  void offer(double cost, int64_t sample, const Mapping& m, const Metrics& met) {
    if (entries.size() >= k && !(cost < entries.back().cost)) return;
    for (const auto& e : entries)
      if (e.mapping == m) return;
    Entry e{cost, sample, m, met};
    auto it =
        std::upper_bound(entries.begin(), entries.end(), e, [](const Entry& a, const Entry& b) {
          return a.cost < b.cost || (a.cost == b.cost && a.sample < b.sample);
        });
    entries.insert(it, std::move(e));
    if (entries.size() > k) entries.pop_back();
  }
};

/// Leaves the run "interrupted" and resumable when the session ends by an exception (a full
/// disk, an unwritable file, anything thrown): what finished is already in results.json and
/// SQLite.
struct InterruptOnFailure {
  RunRecord& rec;        ///< The session's record.
  const fs::path& file;  ///< Its results.json.
  ~InterruptOnFailure() {
    if (std::uncaught_exceptions() == 0) return;
    rec.status = RunStatus::Interrupted;
    try {
      write_atomic(file, run_record_to_json(rec).dump(2) + "\n");
    } catch (...) {
      // The disk may still be full: results.json then says "running", which readers take as
      // interrupted once this process (the lock holder) is gone.
    }
    std::cerr << "mapwright: the run in " << file.parent_path().string()
              << " is interrupted; what finished is kept. Continue it with `mapwright run "
                 "--resume --out "
              << file.parent_path().string() << "`\n";
  }
};

/// The rtl_note of a run's record.
std::string rtl_note(const RunSettings& s) {
  return s.rtl() ? "each layer's top-" + std::to_string(s.top_k) +
                       " distinct surrogate candidates run on the Verilated RTL (bit-exact "
                       "check against a C++ reference, counters against the surrogate); "
                       "the best is chosen by RTL cost"
                 : "surrogate only (--no-rtl): no RTL verification in this run";
}

/// The layer's search record, best-so-far curve (written to `dir`) and candidates.
void record_search(LayerRecord& L, const fs::path& dir, const Arch& arch, const LayerSearch& ls,
                   const TopK& top, double secs) {
  json sr = ls.result.to_json();
  sr.erase("best_so_far");
  sr["seconds"] = secs;
  sr["searcher"] = ls.searcher;
  if (!ls.exact.is_null()) sr["exact"] = ls.exact;
  if (ls.reward.value("source", std::string()) == "rtl") sr["reward"] = ls.reward;
  L.search = sr;
  const std::string curve = "curves/" + layer_file_stem(L.index, L.layer.name) + ".csv";
  std::ostringstream c;
  c << "sample,best_cost\n";
  for (size_t i = 0; i < ls.result.best_so_far.size(); ++i) {
    const double v = ls.result.best_so_far[i];
    c << (i + 1) << ",";
    if (std::isfinite(v)) c << std::setprecision(10) << v;
    c << "\n";
  }
  write_atomic(dir / curve, c.str());
  L.curve_csv = curve;
  L.candidates.clear();
  for (size_t r = 0; r < top.entries.size(); ++r) {
    const auto& e = top.entries[r];
    Candidate cand;
    cand.rank = static_cast<int>(r);
    cand.sample = e.sample;
    cand.cost = e.cost;
    cand.mapping = e.mapping;
    cand.surrogate = e.metrics;
    cand.refined_cycles = model::refined_cycles(L.layer, arch, e.mapping).cycles;
    L.candidates.push_back(std::move(cand));
  }
  L.status = LayerStatus::Searched;
}

}  // namespace

RunApp::RunApp(RunOptions o, RunFolder folder, RunInputs inputs, rtlpool::RtlWorkerPool* pool)
    : o_(std::move(o)),
      folder_(std::move(folder)),
      in_(std::move(inputs)),
      pool_(pool),
      rtl_(pool != nullptr),
      jobs_(run_jobs(o_)),
      tty_(o_.progress && isatty(STDERR_FILENO)),
      resuming_(folder_.stored.has_value()),
      last_draw_(t_start_ - std::chrono::seconds(1)) {
  const fs::path& dir = folder_.dir;
  make_output_dir(dir / "mappings");
  make_output_dir(dir / "curves");
  const std::string db_path = o_.db.empty() ? (dir / "results.sqlite").string() : o_.db;
  db_ = std::make_unique<ResultsDb>(db_path);
  rec_ = resuming_ ? std::move(*folder_.stored)
                   : new_run_record(o_.settings, dir, in_.arch, in_.target, in_.layers);
  folder_.stored.reset();
  rec_.run_dir = dir.string();
  rec_.db = db_path;
  rec_.import_skipped = in_.import_skipped;
  rec_.import_warnings = in_.import_warnings;
  rec_.rtl_note = rtl_note(o_.settings);
  rec_.status = RunStatus::Running;
  rec_.jobs = jobs_;
}

RunApp::~RunApp() = default;

RunRecord RunApp::run() {
  const InterruptSignals signals(/*also_term=*/true);
  const fs::path results_file = folder_.dir / "results.json";
  const InterruptOnFailure interrupt_on_failure{rec_, results_file};
  save();
  resume_verifications();
  if (o_.distribute && dist::size() > 1)
    all_valid_ = dispatch_pending_layers();
  else
    all_valid_ = search_pending_layers();
  drain_rtl();
  finish();
  if (o_.synth && !InterruptSignals::count()) synthesize_arch();
  write_run_csvs(rec_, folder_.dir);
  render_run_report(run_record_to_json(rec_), folder_.dir, folder_.dir / "report.html");
  return rec_;
}

int RunApp::exit_code() const {
  const bool complete = rec_.status == RunStatus::Complete;
  if (!rank_failure_.empty()) return 4;
  if (!complete && InterruptSignals::count()) return 130;
  if (summarize(rec_).failed > 0) return 4;
  if (!all_valid_) return 3;
  return complete ? 0 : 130;
}

void RunApp::save() {
  rec_.updated = now_iso();
  const RunSummary summary = summarize(rec_);
  write_atomic(folder_.dir / "results.json", run_record_to_json(rec_, summary).dump(2) + "\n");
  db_->put_run(rec_, summary);
}

void RunApp::resume_verifications() {
  // Verifications that failed for infrastructure reasons (a worker crashed on every try) are no
  // verdict: forget them and reopen their layers. Then re-queue verifications not finished and
  // settle layers whose checks all came in.
  if (rtl_ && resuming_) {
    for (auto& L : rec_.layers) {
      if (L.status == LayerStatus::Pending) continue;
      bool reopened = false;
      for (auto& c : L.candidates)
        if (c.verification && c.verification->kind == VerificationKind::Infrastructure) {
          c.verification.reset();
          reopened = true;
        }
      if (reopened && L.status == LayerStatus::Done) {
        L.status = LayerStatus::Searched;
        L.best.reset();
      }
    }
  }
  if (rtl_)
    for (size_t li = 0; li < rec_.layers.size(); ++li)
      if (rec_.layers[li].status == LayerStatus::Searched) submit_verifications(li);
  for (size_t li = 0; li < rec_.layers.size(); ++li) finish_layer_if_verified(li);
  save();
}

bool RunApp::search_pending_layers() {
  bool no_valid = false;
  int searched_now = 0;
  for (size_t li = 0; li < rec_.layers.size(); ++li) {
    if (InterruptSignals::count()) break;
    if (rec_.layers[li].status != LayerStatus::Pending) continue;
    if (o_.stop_after_layers >= 0 && searched_now >= o_.stop_after_layers) {
      InterruptSignals::note();  // the test hook behaves like a Ctrl-C here
      break;
    }
    const LayerOutcome r = search_layer_at(li);
    if (r == LayerOutcome::Stopped) break;  // discarded; --resume redoes it (same seed)
    ++searched_now;
    no_valid = no_valid || r == LayerOutcome::NoValid;
  }
  return !no_valid;
}

void RunApp::drain_rtl() {
  if (pool_) {
    while (pool_->running() + pool_->queued() > 0) {
      if (InterruptSignals::count() && pool_->queued()) pool_->drop_queued();
      const RunSummary s = summarize(rec_);
      draw(std::string(InterruptSignals::count() ? "interrupted: finishing RTL runs in flight"
                                                 : "verifying on RTL") +
               " " + std::to_string(s.done) + "/" + std::to_string(s.planned),
           false);
      collect(200);
    }
  }
  if (tty_) std::cerr << "\r" << std::string(120, ' ') << "\r" << std::flush;
}

void RunApp::finish() {
  bool complete = true;
  for (const auto& L : rec_.layers) complete = complete && L.status == LayerStatus::Done;
  rec_.status = complete ? RunStatus::Complete : RunStatus::Interrupted;
  rec_.wall_seconds_last_session =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
  save();
  for (const auto& L : rec_.layers)
    if (L.status == LayerStatus::Done) db_->put_layer(rec_.run_id, L);
}

void RunApp::synthesize_arch() {
  if (tty_) std::cerr << "synthesizing " << in_.arch.name << " with yosys..." << std::flush;
  const SynthOutcome so = synthesize(in_.arch, "", (folder_.dir / "synth").string());
  if (tty_) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  rec_.synthesis = synth_record(so);
  rec_.area = area_parts_json(model::estimate_area(in_.arch), true);
  if (so.failure != SynthFailureKind::None)
    std::cerr << "run: synthesis of " << in_.arch.name << " failed: " << so.message
              << (so.log.empty() ? "" : " (log: " + so.log + ")") << "\n";
  save();
}

void RunApp::submit_verifications(size_t li) {
  const LayerRecord& L = rec_.layers[li];
  for (size_t ci = 0; ci < L.candidates.size(); ++ci) {
    const Candidate& c = L.candidates[ci];
    if (c.verification) continue;
    rtlpool::RtlJob j;
    j.arch = o_.settings.arch;
    j.layer = L.layer;
    j.mapping = c.mapping;
    j.seed = rtl_seed(o_.settings.seed, li, c.rank);
    j.watchdog_cycles = o_.rtl_watchdog_cycles;
    j.limits = o_.sim_limits;
    job_of_[pool_->submit(std::move(j))] = {li, ci};
  }
}

void RunApp::write_best(size_t li) {
  LayerRecord& L = rec_.layers[li];
  if (!L.best) return;
  const RunSettings& s = o_.settings;
  const std::string f = "mappings/" + layer_file_stem(li, L.layer.name) + ".yaml";
  std::ostringstream y;
  y << "# " << L.layer.name << ": " << L.layer.describe() << "\n"
    << "# chosen by " << chosen_by_name(L.best->chosen_by) << " (candidate " << L.best->rank
    << " of " << L.candidates.size() << "), searcher " << s.searcher << ", seed " << L.seed
    << ", objective " << in_.objective.name << ", budget " << s.budget << "\n"
    << mapping_to_yaml(L.best->mapping);
  write_atomic(folder_.dir / f, y.str());
  L.mapping_file = f;
}

void RunApp::finish_layer_if_verified(size_t li) {
  LayerRecord& L = rec_.layers[li];
  if (L.status != LayerStatus::Searched) return;
  for (const auto& c : L.candidates)
    if (rtl_ && !c.verification) return;
  choose_best(L, in_.objective, rtl_);
  L.status = LayerStatus::Done;
  write_best(li);
  db_->put_layer(rec_.run_id, L);
}

void RunApp::collect(int timeout_ms) {
  if (!pool_) return;
  if (InterruptSignals::count() >= 2) pool_->kill_all();
  for (auto& [id, r] : pool_->poll(timeout_ms)) {
    auto it = job_of_.find(id);
    if (it == job_of_.end()) continue;
    const auto [li, ci] = it->second;
    job_of_.erase(it);
    // A run killed by a second Ctrl-C is not a verdict on the mapping: leave it for --resume.
    if (InterruptSignals::count() >= 2 && r.kind == RtlFailure::Worker) continue;
    Candidate& c = rec_.layers[li].candidates[ci];
    c.verification = verification_of(r, rec_.layers[li].layer, in_.arch, c.mapping, c.surrogate,
                                     rtl_seed(o_.settings.seed, li, c.rank));
    db_->put_verification(rec_.run_id, static_cast<int>(li), c);
    finish_layer_if_verified(li);
    save();
  }
}

void RunApp::draw(const std::string& what, bool force) {
  if (!tty_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::ostringstream s;
  s << "\r" << what;
  if (pool_) s << " | RTL " << (pool_->running()) << " running, " << pool_->queued() << " queued";
  const double secs = std::chrono::duration<double>(now - t_start_).count();
  s << " | " << static_cast<long long>(secs) << " s";
  std::string line = s.str();
  if (line.size() > 118) line = line.substr(0, 118);
  std::cerr << line << std::string(120 - line.size(), ' ') << std::flush;
}

RunApp::LayerOutcome RunApp::search_layer_at(size_t li) {
  const RunSettings& s = o_.settings;
  const Layer& layer = rec_.layers[li].layer;
  TopK top{static_cast<size_t>(s.top_k), {}};
  std::vector<EvaluationRow> evals;
  evals.reserve(static_cast<size_t>(s.budget));
  const std::string label =
      "[" + std::to_string(li + 1) + "/" + std::to_string(rec_.layers.size()) + "] " + layer.name;
  auto observe = [&](const SampleSeen& x) {
    evals.push_back({x.sample, x.outcome->valid, x.outcome->cost, x.metrics->cycles,
                     x.metrics->energy_pj, x.outcome->reason, json(*x.point).dump()});
    if (x.outcome->valid) top.offer(x.outcome->cost, x.sample, *x.mapping, *x.metrics);
  };
  auto keep_going = [&](const search::SearchProgress& p) {
    collect(0);
    std::ostringstream w;
    w << label << " search " << p.samples << "/" << p.budget;
    if (p.found) w << " best " << si(p.best_cost, 3);
    draw(w.str(), false);
    return InterruptSignals::count() == 0;
  };
  const auto t0 = std::chrono::steady_clock::now();
  if (s.searcher == "exact") {
    std::ostringstream w;
    w << label << " exact search (at most " << s.exact.time_limit_s << " s)";
    draw(w.str(), false);
  }
  ExactOptions ex = s.exact;
  ex.top_k = s.top_k;
  const LayerSearchRequest rq{
      layer,    in_.arch,      s.searcher, in_.search_options, rec_.layers[li].seed,
      s.budget, in_.objective, ex};
  LayerSearch ls = search_layer(rq, *reward_evaluator(rq, reward_options(), reward_pool()),
                                {keep_going, observe});
  if (ls.result.stopped_early || InterruptSignals::count()) return LayerOutcome::Stopped;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  record_search(rec_.layers[li], folder_.dir, in_.arch, ls, top, secs);
  db_->put_evaluations(rec_.run_id, static_cast<int>(li), evals);
  last_evals_ = std::move(evals);
  if (rtl_) submit_verifications(li);
  finish_layer_if_verified(li);
  db_->put_layer(rec_.run_id, rec_.layers[li]);
  save();
  collect(0);
  return top.entries.empty() ? LayerOutcome::NoValid : LayerOutcome::Searched;
}

RtlRewardOptions RunApp::reward_options() const {
  // The searchers' RTL reward (--reward rtl): the RTL after the warm-up, in worker processes of
  // their own (reward_pool()).
  RtlRewardOptions r;
  r.surrogate_warmup = o_.settings.surrogate_warmup;
  r.jobs = jobs_;
  r.watchdog_cycles = o_.rtl_watchdog_cycles;
  r.limits = o_.sim_limits;
  r.arch = o_.settings.arch;
  return r;
}

rtlpool::RtlWorkerPool* RunApp::reward_pool() {
  // --reward rtl: the searchers' workers (as many as the verification pool, whose results
  // collect() takes), started for the first layer searched and kept for the others; else null.
  if (o_.settings.reward == "rtl" && !reward_pool_)
    reward_pool_ = rtl_reward_pool(o_.settings.arch, o_.worker_exe, jobs_);
  return reward_pool_.get();
}

}  // namespace mapwright::flows
