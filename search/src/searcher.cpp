// The searcher factory and the budget driver. make_searcher validates the problem and the
// options, then builds the requested kind; run_search asks, evaluates and tells until the
// budget of distinct evaluated points (valid or not) is spent, keeping the best-so-far curve
// and answering repeated proposals from a cache of outcomes (no searcher pays twice).
#include "mapwright/search/searcher.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <unordered_map>
#include <stdexcept>

#include "internal.hpp"

namespace mapwright::search {

void validate_problem(const Problem& problem) {
  if (problem.params.empty()) throw std::invalid_argument("search problem: no parameters");
  std::set<std::string> names;
  for (size_t i = 0; i < problem.params.size(); ++i) {
    const auto& p = problem.params[i];
    if (p.name.empty())
      throw std::invalid_argument("search problem: parameter " + std::to_string(i) +
                                  " has an empty name");
    if (!names.insert(p.name).second)
      throw std::invalid_argument("search problem: duplicate parameter name '" + p.name + "'");
    if (p.cardinality < 1)
      throw std::invalid_argument("search problem: parameter '" + p.name + "' has cardinality " +
                                  std::to_string(p.cardinality) + ", expected >= 1");
  }
}

std::vector<Point> prior_points(const Problem& problem, int64_t n, uint64_t seed) {
  validate_problem(problem);
  const int64_t want = std::min(std::max<int64_t>(n, 0), detail::space_size(problem));
  std::mt19937_64 rng(detail::mix_seed(seed ^ 0x7072696f72ULL));  // "prior"
  std::set<Point> seen;
  std::vector<Point> pts;
  // Rejection of repeats, bounded: a space barely larger than n yields fewer points.
  for (int64_t tries = 0; static_cast<int64_t>(pts.size()) < want && tries < 20 * want + 100;
       ++tries) {
    Point p = detail::random_point(problem, rng);
    if (seen.insert(p).second) pts.push_back(std::move(p));
  }
  return pts;
}

std::unique_ptr<Searcher> make_searcher(const std::string& kind, const Problem& problem,
                                        const SearchOptions& options, uint64_t seed) {
  validate_problem(problem);
  validate_options(options);
  if (kind == "random") return detail::make_random(problem, options.random, seed);
  if (kind == "ga") return detail::make_ga(problem, options.ga, seed);
  if (kind == "sa") return detail::make_sa(problem, options.sa, seed);
  if (kind == "ppo") return detail::make_ppo(problem, options.ppo, seed);
  if (kind == "ppo-box") return detail::make_ppo_box(problem, options.ppo_box, seed);
  if (kind == "marl") return detail::make_marl(problem, options.marl, seed);
  if (kind == "bo") return detail::make_bo(problem, options.bo, seed);
  std::string known;
  for (const auto& k : searcher_kinds()) known += (known.empty() ? "" : ", ") + k;
  throw std::invalid_argument("unknown searcher kind '" + kind + "' (known: " + known + ")");
}

nlohmann::json SearchResult::to_json() const {
  nlohmann::json curve = nlohmann::json::array();
  for (double c : best_so_far) curve.push_back(std::isfinite(c) ? nlohmann::json(c) : nullptr);
  nlohmann::json j = {{"found", found},         {"samples", samples},
                      {"valid", valid},         {"invalid", invalid},
                      {"failures", failures},   {"duplicates", duplicates},
                      {"exhausted", exhausted}, {"stopped_early", stopped_early},
                      {"best_so_far", curve}};
  if (found) {
    j["best_point"] = best_point;
    j["best_cost"] = best_cost;
    j["best_sample"] = best_sample;
  }
  return j;
}

namespace {

/// Hash of a point (FNV-1a over its values), for the outcome cache.
struct PointHash {
  size_t operator()(const Point& p) const {
    uint64_t h = 1469598103934665603ULL;
    for (int64_t v : p) {
      h ^= static_cast<uint64_t>(v);
      h *= 1099511628211ULL;
    }
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace

// A learner whose policy has collapsed proposes the same points again and again; each round
// still costs an update, so a run that has seen more repeats than fresh points (plus a margin
// for small budgets) has converged or used up its space.
int64_t duplicate_limit(int64_t budget) {
  return budget + 1000;
}

SearchResult run_search(Searcher& searcher, const EvaluateFn& evaluate, int64_t budget,
                        ProgressFn progress) {
  if (budget <= 0)
    throw std::invalid_argument("run_search: budget must be positive, got " +
                                std::to_string(budget));
  if (!evaluate) throw std::invalid_argument("run_search: no evaluate function");
  SearchResult res;
  res.best_so_far.reserve(static_cast<size_t>(std::min<int64_t>(budget, 1 << 26)));
  double best = std::numeric_limits<double>::infinity();
  // Every outcome so far, by point: a repeated proposal is answered from here.
  std::unordered_map<Point, Outcome, PointHash> cache;
  while (res.samples < budget) {
    const int64_t remaining = budget - res.samples;
    const int ask_n = static_cast<int>(std::min<int64_t>(remaining, 1 << 30));
    std::vector<Point> pts = searcher.ask(ask_n);
    if (pts.empty())
      throw std::runtime_error("run_search: searcher '" + searcher.name() + "' proposed no point");
    if (static_cast<int64_t>(pts.size()) > remaining)
      throw std::runtime_error("run_search: searcher '" + searcher.name() + "' proposed " +
                               std::to_string(pts.size()) + " points, asked for at most " +
                               std::to_string(remaining));
    // The distinct new points of the batch (a point repeated inside the batch is new once).
    std::vector<Point> fresh;
    std::vector<size_t> fresh_of(pts.size(), SIZE_MAX);
    std::vector<char> first(pts.size(), 0);  // The first proposal of a fresh point.
    {
      std::unordered_map<Point, size_t, PointHash> in_batch;
      for (size_t i = 0; i < pts.size(); ++i) {
        if (cache.count(pts[i])) continue;
        const auto [it, inserted] = in_batch.emplace(pts[i], fresh.size());
        if (inserted) fresh.push_back(pts[i]);
        fresh_of[i] = it->second;
        first[i] = inserted;
      }
    }
    std::vector<Outcome> fresh_out;
    if (!fresh.empty()) {
      fresh_out = evaluate(fresh);
      if (fresh_out.size() != fresh.size())
        throw std::runtime_error("run_search: evaluate returned " +
                                 std::to_string(fresh_out.size()) + " outcomes for " +
                                 std::to_string(fresh.size()) + " points");
    }
    for (size_t i = 0; i < fresh.size(); ++i) {
      const Outcome& o = fresh_out[i];
      if (o.repeat) continue;  // Already evaluated under another point: not charged.
      if (o.valid) {
        if (!std::isfinite(o.cost) || o.cost <= 0) {
          std::ostringstream msg;
          msg << "run_search: evaluate returned a valid outcome with cost " << o.cost
              << " (must be finite and > 0) at sample " << res.samples;
          throw std::runtime_error(msg.str());
        }
        ++res.valid;
        if (o.cost < best) {
          best = o.cost;
          res.found = true;
          res.best_point = fresh[i];
          res.best_cost = o.cost;
          res.best_sample = res.samples;
        }
      } else {
        ++res.invalid;
        ++res.failures[o.failure_class.empty() ? "invalid" : o.failure_class];
      }
      res.best_so_far.push_back(best);
      ++res.samples;
    }
    std::vector<Outcome> out(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      out[i] = fresh_of[i] != SIZE_MAX ? fresh_out[fresh_of[i]] : cache.at(pts[i]);
      if (!first[i]) out[i].repeat = true;  // The searcher is told it proposed a known point.
      if (out[i].repeat) ++res.duplicates;
    }
    for (size_t i = 0; i < fresh.size(); ++i) cache.emplace(std::move(fresh[i]), fresh_out[i]);
    searcher.tell(pts, out);
    if (res.duplicates > duplicate_limit(budget) && res.samples < budget) {
      res.exhausted = true;
      break;
    }
    if (progress) {
      SearchProgress p{res.samples, budget, res.valid, res.invalid, res.found, res.best_cost};
      if (!progress(p) && res.samples < budget) {
        res.stopped_early = true;
        break;
      }
    }
  }
  return res;
}

}  // namespace mapwright::search
