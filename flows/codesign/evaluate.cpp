// The codesign point evaluator: every unique layer of the workload solved by the exact mapper on
// a hardware point's architecture, memoized per (layer shape, architecture), with the shortcut
// through the space's largest buffers (an optimum that fits smaller buffers stays optimal
// there), and the composition of the layers' figures into the networks' and the workload's.
#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "codesign/codesign_search.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/mapper/mapper.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright::core;

namespace mapwright::flows::codesign {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Every architecture field a mapper solve depends on that a space can change.
std::string arch_key(const Arch& a) {
  std::ostringstream k;
  k << a.rows << "x" << a.cols << ":" << a.input_buf_bytes << "," << a.weight_buf_bytes << ","
    << a.accum_buf_bytes << ":" << a.dram_bytes_per_cycle << ":" << a.buffer_banks << ":";
  for (Dataflow d : a.dataflows) k << dataflow_name(d);
  const EnergyTable& e = a.energy;
  k << ":" << e.mac_pj << "," << e.input_buf_pj << "," << e.weight_buf_pj << "," << e.accum_buf_pj
    << "," << e.dram_pj_per_byte << "," << e.pe_static_pj;
  return k.str();
}

}  // namespace

PointEvaluator::PointEvaluator(const CodesignSpace& s) : s_(s), t0_(now_s()) {
  std::map<std::string, size_t> ids;
  for (const WorkloadNetwork& w : s.workload) {
    std::vector<std::pair<size_t, int>> use;
    for (const auto& [layer, count] : w.layers) {
      const auto [it, fresh] = ids.emplace(layer.shape_key(), layers_.size());
      if (fresh) layers_.push_back(layer);
      use.push_back({it->second, count});
    }
    uses_.push_back(use);
  }
}

double PointEvaluator::elapsed() const {
  return now_s() - t0_;
}

LayerFigures solve_layer(const Layer& layer, const Arch& a, const Objective& objective,
                         double time_limit_s) {
  mapper::Options o;
  o.objective = objective;
  o.target_gap = 0;
  o.threads = 1;  // the layers of a point are solved in parallel instead (all_layers)
  o.time_limit_s = time_limit_s;
  const mapper::Result r = mapper::solve(layer, a, o);
  LayerFigures f;
  f.found = r.found;
  f.optimal = r.found && (r.optimal || r.stop == mapper::StopReason::ProvedOptimal);
  f.mapping = r.best;
  f.metrics = r.metrics;
  f.cost = r.best_cost;
  f.lower_bound = f.optimal ? r.best_cost : std::min(r.best_cost, r.lower_bound);
  if (!r.found) f.lower_bound = r.stop == mapper::StopReason::Infeasible ? INFINITY : r.lower_bound;
  return f;
}

std::string solve_key(const Layer& layer, const Arch& a) {
  // By the layer's shape, not its id in a workload: the journal (solve_journal.cpp) keeps the
  // keys across runs.
  return layer.shape_key() + "@" + arch_key(a);
}

Arch largest_buffers(const CodesignSpace& s, const Arch& a) {
  Arch big = a;
  big.accum_buf_bytes = s.values[static_cast<int>(HwParam::AccumKib)].back() * 1024;
  big.weight_buf_bytes = s.values[static_cast<int>(HwParam::WeightKib)].back() * 1024;
  big.input_buf_bytes = s.values[static_cast<int>(HwParam::InputKib)].back() * 1024;
  return big;
}

double PointEvaluator::solve_limit(double deadline_s) const {
  if (deadline_s <= 0) return s_.mapper_time_limit_s;
  return std::max(1e-3, std::min(s_.mapper_time_limit_s, deadline_s - elapsed()));
}

LayerFigures PointEvaluator::solve(size_t u, const Arch& a, double deadline_s) {
  const std::string key = solve_key(layers_[u], a);
  {
    std::lock_guard<std::mutex> lock(memo_mu_);
    if (auto it = memo_.find(key); it != memo_.end()) {
      ++hits_;
      return it->second;
    }
    // Solved on another rank (prefetch): counted as this process's solve, as if made here.
    if (auto it = fetched_.find(key); it != fetched_.end()) {
      const LayerFigures f = it->second;
      fetched_.erase(it);
      ++solves_;
      if (memo_.emplace(key, f).second) remember(key, f);
      return f;
    }
  }
  const LayerFigures f = solve_layer(layers_[u], a, s_.objective, solve_limit(deadline_s));
  std::lock_guard<std::mutex> lock(memo_mu_);
  ++solves_;
  if (memo_.emplace(key, f).second) remember(key, f);
  return f;
}

LayerFigures PointEvaluator::fits_point(size_t u, const Arch& a, LayerFigures f, bool& ok) const {
  ok = false;
  if (!f.found || !f.optimal) return f;
  // Buffer sizes decide only which mappings fit: an optimum over the larger buffers that fits
  // this point's is optimal here, with the same figures.
  model::Surrogate sur;
  const Metrics m = sur.evaluate(layers_[u], a, f.mapping);
  if (!m.valid || s_.objective.cost(m) != f.cost) return f;
  f.metrics = m;
  ok = true;
  return f;
}

LayerFigures PointEvaluator::from_largest_buffers(size_t u, const Arch& a, bool& ok,
                                                  double deadline_s) {
  ok = false;
  // With capacity-scaled buffer energies a point's costs differ from the largest buffers'.
  if (s_.base.energy.capacity_scaling) return LayerFigures{};
  return fits_point(u, a, solve(u, largest_buffers(s_, a), deadline_s), ok);
}

std::vector<LayerFigures> PointEvaluator::all_layers(const Arch& fits, const Arch& fallback,
                                                     double deadline_s,
                                                     std::vector<char>& shortcut) {
  if (farm_) prefetch(fits, fallback, deadline_s);
  std::vector<LayerFigures> f(layers_.size());
  shortcut.assign(layers_.size(), 0);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t u = next++; u < f.size(); u = next++) {
      bool ok = false;
      f[u] = from_largest_buffers(u, fits, ok, deadline_s);
      shortcut[u] = ok;
      if (!ok) f[u] = solve(u, fallback, deadline_s);
    }
  };
  std::vector<std::thread> pool;
  const size_t jobs = std::min<size_t>(static_cast<size_t>(default_jobs()), f.size());
  for (size_t t = 1; t < jobs; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return f;
}

void PointEvaluator::compose(PointResult& r, const std::vector<LayerFigures>& f) const {
  r.found = true;
  r.exact = true;
  r.cost = r.lower_bound = 0;
  r.cycles.assign(uses_.size(), 0);
  r.energy_pj.assign(uses_.size(), 0);
  for (size_t w = 0; w < uses_.size(); ++w) {
    std::vector<double> lbs;
    std::vector<int> counts;
    bool exact = true;
    for (const auto& [u, n] : uses_[w]) {
      if (!f[u].found) r.found = false;
      exact = exact && f[u].optimal;
      r.cycles[w] += n * static_cast<double>(f[u].metrics.cycles);
      r.energy_pj[w] += n * f[u].metrics.energy_pj;
      lbs.push_back(f[u].lower_bound);
      counts.push_back(n);
    }
    const double weight = s_.workload[w].weight;
    const double factor = clock_cost_factor(s_, r.clock_mhz);
    const double cost = factor * s_.objective.cost(r.cycles[w], r.energy_pj[w]);
    r.cost += weight * cost;
    r.lower_bound +=
        weight * (exact ? cost : factor * compose_layer_bounds(s_.objective, lbs, counts));
    r.exact = r.exact && exact;
    const double ms = r.cycles[w] / (r.clock_mhz * 1e3);
    if (s_.max_latency_ms > 0 && ms > s_.max_latency_ms && r.infeasible.empty())
      r.infeasible = s_.workload[w].name + ": latency " + std::to_string(ms) + " ms > " +
                     std::to_string(s_.max_latency_ms);
    const double uj = r.energy_pj[w] * 1e-6;
    if (s_.max_energy_uj > 0 && uj > s_.max_energy_uj && r.infeasible.empty())
      r.infeasible = s_.workload[w].name + ": energy " + std::to_string(uj) + " uJ > " +
                     std::to_string(s_.max_energy_uj);
  }
  if (!r.found) {
    r.infeasible = "a layer has no mapping that fits";
    r.exact = false;
  }
}

PointResult PointEvaluator::evaluate(const HwIndex& i, double deadline_s) {
  const double t0 = elapsed();
  PointResult r;
  r.index = i;
  const Arch a = point_arch(s_, i);
  r.area_mm2 = model::estimate_area(a, s_.area).total_mm2;
  r.clock_mhz = point_clock_mhz(s_, a);
  r.unbuildable = unbuildable(s_, i);
  if (!r.unbuildable.empty()) return r;
  r.over_area = s_.max_area_mm2 > 0 && r.area_mm2 > s_.max_area_mm2;
  std::vector<char> shortcut;
  compose(r, all_layers(a, a, deadline_s, shortcut));
  r.seconds = elapsed() - t0;
  return r;
}

nlohmann::json area_constants_json(const model::AreaConstants& c) {
  nlohmann::json j = {{"node", c.node}};
  for (const model::AreaConstantField& f : model::area_constant_fields()) j[f.key] = c.*f.member;
  j["source"] = c.source;
  return j;
}

}  // namespace mapwright::flows::codesign
