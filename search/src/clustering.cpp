// Agent clustering. The association of parameters i and j is the strength of their
// interaction in log-cost, measured on the initial random sample: log-cost is first explained
// by an additive model of binned main effects (backfitting), then, for each pair, the
// residual's two-way table over (bin_i, bin_j) is reduced to its non-additive part. The sum of
// squares of that part, corrected for what noise alone would give and zeroed unless a
// chi-square test passes, divided by the total sum of squares of log-cost, is the
// association. Parameters whose effects add up in log-cost can be learned by independent
// agents; interacting ones need one agent. Agglomerative clustering then groups them.
#include "mapwright/search/clustering.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "internal.hpp"
#include "mapwright/search/searcher.hpp"

namespace mapwright::search {
namespace {

using Matrix = std::vector<std::vector<double>>;

/// Upper quantile of chi-square(df) at one-sided normal z (Wilson-Hilferty approximation).
double chi2_quantile(double df, double z) {
  const double a = 2.0 / (9.0 * df);
  const double t = 1.0 - a + z * std::sqrt(a);
  return df * t * t * t;
}

/// Sorts each cluster and orders clusters by their first index.
void normalize(std::vector<std::vector<int64_t>>& clusters) {
  for (auto& c : clusters) std::sort(c.begin(), c.end());
  std::sort(clusters.begin(), clusters.end(),
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
}

double linkage_value(const Matrix& s, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     const std::string& linkage) {
  double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int64_t i : a)
    for (int64_t j : b) {
      const double v = s[static_cast<size_t>(i)][static_cast<size_t>(j)];
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (linkage == "single") return hi;
  if (linkage == "complete") return lo;
  return sum / static_cast<double>(a.size() * b.size());
}

/// Interaction of one parameter pair in a residual r.
struct PairFit {
  double ss_table = 0;            ///< Sum of squares of the non-additive part of the table.
  int64_t df = 0;                 ///< Its degrees of freedom.
  bool has_bilinear = false;      ///< Both parameters ordinal: the rank-product term exists.
  double ss_bilinear = 0;         ///< Sum of squares of the rank-product term (1 dof).
  std::vector<double> component;  ///< Fitted interaction per sample (table + bilinear).
};

/// Two-way table of r over (bin_i, bin_j): cell means minus a weighted additive fit (the
/// non-additive part), then, for ordinal pairs, the centred index product fitted to the rest.
PairFit fit_pair(const Problem& problem, const std::vector<Point>& points,
                 const std::vector<std::vector<int64_t>>& bin, const std::vector<int64_t>& nb,
                 size_t i, size_t j, const std::vector<double>& r) {
  const size_t n = r.size();
  PairFit f;
  f.component.assign(n, 0.0);
  const size_t bi = static_cast<size_t>(nb[i]), bj = static_cast<size_t>(nb[j]);
  if (bi >= 2 && bj >= 2) {
    std::vector<double> cnt(bi * bj, 0.0), cell(bi * bj, 0.0);
    for (size_t s = 0; s < n; ++s) {
      const size_t c = static_cast<size_t>(bin[i][s]) * bj + static_cast<size_t>(bin[j][s]);
      cnt[c] += 1;
      cell[c] += r[s];
    }
    size_t cells = 0;
    std::vector<bool> row_used(bi, false), col_used(bj, false);
    for (size_t c = 0; c < cnt.size(); ++c)
      if (cnt[c] > 0) {
        cell[c] /= cnt[c];
        ++cells;
        row_used[c / bj] = true;
        col_used[c % bj] = true;
      }
    const int64_t rows = std::count(row_used.begin(), row_used.end(), true);
    const int64_t cols = std::count(col_used.begin(), col_used.end(), true);
    f.df = static_cast<int64_t>(cells) - (rows + cols - 1);
    if (f.df > 0) {
      std::vector<double> row(bi, 0.0), col(bj, 0.0);
      // One half-sweep: each effect of `out` becomes the count-weighted mean of its cells minus
      // the `other` effects; cell (o, x) sits at o * so + x * sx.
      auto half_sweep = [&](std::vector<double>& out, const std::vector<double>& other, size_t so,
                            size_t sx) {
        for (size_t o = 0; o < out.size(); ++o) {
          double sw = 0, sv = 0;
          for (size_t x = 0; x < other.size(); ++x) {
            const size_t c = o * so + x * sx;
            sw += cnt[c];
            sv += cnt[c] * (cell[c] - other[x]);
          }
          out[o] = sw > 0 ? sv / sw : 0.0;
        }
      };
      for (int it = 0; it < 20; ++it) {  // Weighted additive fit of an unbalanced table.
        half_sweep(row, col, bj, 1);
        half_sweep(col, row, 1, bj);
      }
      for (size_t s = 0; s < n; ++s) {
        const size_t a = static_cast<size_t>(bin[i][s]), b = static_cast<size_t>(bin[j][s]);
        const double d = cell[a * bj + b] - row[a] - col[b];
        f.component[s] = d;
        f.ss_table += d * d;
      }
    } else {
      f.df = 0;
    }
  }
  if (problem.params[i].ordinal && problem.params[j].ordinal &&
      problem.params[i].cardinality >= 2 && problem.params[j].cardinality >= 2) {
    f.has_bilinear = true;
    const double ci = 0.5 * static_cast<double>(problem.params[i].cardinality - 1);
    const double cj = 0.5 * static_cast<double>(problem.params[j].cardinality - 1);
    double sez = 0, szz = 0;
    std::vector<double> z(n);
    for (size_t s = 0; s < n; ++s) {
      z[s] = (static_cast<double>(points[s][i]) - ci) * (static_cast<double>(points[s][j]) - cj);
      sez += (r[s] - f.component[s]) * z[s];
      szz += z[s] * z[s];
    }
    if (szz > 0) {
      const double beta = sez / szz;
      f.ss_bilinear = sez * beta;
      for (size_t s = 0; s < n; ++s) f.component[s] += beta * z[s];
      // The test statistic is on r alone, so that it does not depend on the table.
      double sez_r = 0;
      for (size_t s = 0; s < n; ++s) sez_r += r[s] * z[s];
      f.ss_bilinear = sez_r * sez_r / szz;
    }
  }
  return f;
}

/// The residual of y - mean after additive main effects fitted by backfitting (5 sweeps) on the
/// main-effect bins: mbin[k][s] is the bin of sample s for parameter k, of nm[k] bins.
std::vector<double> main_effect_residual(const std::vector<double>& y, double mean,
                                         const std::vector<int64_t>& nm,
                                         const std::vector<std::vector<int64_t>>& mbin) {
  const size_t p = nm.size(), n = y.size();
  std::vector<std::vector<double>> effect(p);
  for (size_t k = 0; k < p; ++k) effect[k].assign(static_cast<size_t>(nm[k]), 0.0);
  std::vector<double> e(n);
  for (size_t s = 0; s < n; ++s) e[s] = y[s] - mean;
  for (int sweep = 0; sweep < 5; ++sweep) {
    for (size_t k = 0; k < p; ++k) {
      std::vector<double> sum(static_cast<size_t>(nm[k]), 0.0),
          cnt(static_cast<size_t>(nm[k]), 0.0);
      for (size_t s = 0; s < n; ++s) {
        const size_t b = static_cast<size_t>(mbin[k][s]);
        sum[b] += e[s] + effect[k][b];  // Partial residual without parameter k.
        cnt[b] += 1;
      }
      for (size_t b = 0; b < sum.size(); ++b) {
        const double updated = cnt[b] > 0 ? sum[b] / cnt[b] : 0.0;
        const double change = updated - effect[k][b];
        effect[k][b] = updated;
        if (change != 0)
          for (size_t s = 0; s < n; ++s)
            if (static_cast<size_t>(mbin[k][s]) == b) e[s] -= change;
      }
    }
  }
  return e;
}

/// Backfits the selected pairs' fits jointly (4 sweeps): each pair is refitted on `rest` with
/// its own fit added back, and `rest` is left the residual of all of them.
void refit_selected_pairs(const Problem& problem, const std::vector<Point>& points,
                          const std::vector<std::vector<int64_t>>& bin,
                          const std::vector<int64_t>& nb, const std::vector<bool>& selected,
                          std::vector<PairFit>& fits, std::vector<double>& rest) {
  const size_t p = problem.params.size(), n = points.size();
  for (int sweep = 0; sweep < 4; ++sweep)
    for (size_t ij = 0; ij < selected.size(); ++ij) {
      if (!selected[ij]) continue;
      for (size_t s = 0; s < n; ++s) rest[s] += fits[ij].component[s];
      fits[ij] = fit_pair(problem, points, bin, nb, ij / p, ij % p, rest);
      for (size_t s = 0; s < n; ++s) rest[s] -= fits[ij].component[s];
    }
}

// One function on purpose (about 95 lines): the pair tests share the residuals, bins and
// gating thresholds computed at its top (search/README.md, "Clustering").
/// Interaction matrix of one response y (one value per point): main effects, then the
/// significance-gated pair tests of search/README.md.
Matrix response_interactions(const Problem& problem, const std::vector<Point>& points,
                             const std::vector<double>& y, const ClusteringOptions& options) {
  const size_t p = problem.params.size();
  Matrix assoc(p, std::vector<double>(p, 0.0));
  const size_t n = points.size();
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(n);
  double ss_y = 0;
  for (double v : y) ss_y += (v - mean) * (v - mean);
  if (ss_y <= 0) return assoc;

  // Bin every parameter by index range: coarse bins for the pair tables, finer ones for the
  // main effects (so that a curved main effect does not leak into the residual).
  const int64_t bins = options.bins > 0
                           ? options.bins
                           : std::clamp<int64_t>(std::llround(std::sqrt(n / 12.0)), 2, 6);
  // Main-effect bins: at most n / (4 x varying parameters) per parameter, so that the additive
  // fit leaves at least about three quarters of the samples' degrees of freedom for the noise.
  int64_t varying = 0;
  for (const auto& prm : problem.params) varying += prm.cardinality >= 2 ? 1 : 0;
  const int64_t main_bins =
      std::clamp<int64_t>(static_cast<int64_t>(n) / (4 * std::max<int64_t>(1, varying)), 2, 32);
  std::vector<int64_t> nb(p), nm(p);
  std::vector<std::vector<int64_t>> bin(p, std::vector<int64_t>(n)),
      mbin(p, std::vector<int64_t>(n));
  for (size_t k = 0; k < p; ++k) {
    const int64_t card = problem.params[k].cardinality;
    nb[k] = std::min(card, bins);
    nm[k] = std::min(card, main_bins);
    for (size_t s = 0; s < n; ++s) {
      bin[k][s] = points[s][k] * nb[k] / card;
      mbin[k][s] = points[s][k] * nm[k] / card;
    }
  }

  // Additive main effects by backfitting; e is the residual.
  const std::vector<double> e = main_effect_residual(y, mean, nm, mbin);
  int64_t df_add = 0;
  for (size_t k = 0; k < p; ++k) df_add += nm[k] - 1;
  double ss_e = 0;
  for (double v : e) ss_e += v * v;
  const double sigma2 =
      ss_e / static_cast<double>(std::max<int64_t>(1, static_cast<int64_t>(n) - 1 - df_add));
  if (sigma2 <= 0) return assoc;

  // Pair tests, refined: pass 1 judges every pair against the additive residual; later
  // passes remove the fits of the pairs found so far (backfitting), so the pooled noise no
  // longer contains their variance, and judge each pair on the residual of the others.
  std::vector<PairFit> fits(p * p);
  std::vector<bool> selected(p * p, false);
  std::vector<double> rest = e;  // Residual of main effects and selected pair fits.
  double noise = sigma2;
  for (int pass = 0; pass < 3; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < p; ++i)
      for (size_t j = i + 1; j < p; ++j) {
        const size_t ij = i * p + j;
        std::vector<double> r = rest;
        if (selected[ij])
          for (size_t s = 0; s < n; ++s) r[s] += fits[ij].component[s];
        fits[ij] = fit_pair(problem, points, bin, nb, i, j, r);
        const PairFit& f = fits[ij];
        double a = 0;
        bool significant = false;
        if (f.df > 0 &&
            f.ss_table / noise > chi2_quantile(static_cast<double>(f.df), options.significance)) {
          significant = true;
          a = std::max(a, (f.ss_table - static_cast<double>(f.df) * noise) / ss_y);
        }
        if (f.has_bilinear && f.ss_bilinear / noise > chi2_quantile(1.0, options.significance)) {
          significant = true;
          a = std::max(a, (f.ss_bilinear - noise) / ss_y);
        }
        assoc[i][j] = assoc[j][i] = significant ? std::max(0.0, a) : 0.0;
        if (significant != selected[ij]) changed = true;
        selected[ij] = significant;
      }
    if (!changed && pass > 0) break;
    // Jointly refit the selected pairs (backfitting) and re-pool the noise.
    rest = e;
    int64_t df_pairs = 0;
    for (size_t ij = 0; ij < selected.size(); ++ij)
      if (selected[ij]) {
        df_pairs += fits[ij].df + (fits[ij].has_bilinear ? 1 : 0);
        for (size_t s = 0; s < n; ++s) rest[s] -= fits[ij].component[s];
      }
    refit_selected_pairs(problem, points, bin, nb, selected, fits, rest);
    const int64_t dof = static_cast<int64_t>(n) - 1 - df_add - df_pairs;
    if (dof < 10) break;  // Too few samples left to pool the noise: keep the last estimate.
    double ss_rest = 0;
    for (double v : rest) ss_rest += v * v;
    if (ss_rest <= 0) break;
    noise = ss_rest / static_cast<double>(dof);
  }
  return assoc;
}

}  // namespace

Matrix interaction_matrix(const Problem& problem, const std::vector<Point>& points,
                          const std::vector<Outcome>& outcomes, const ClusteringOptions& options) {
  const size_t p = problem.params.size();
  Matrix assoc(p, std::vector<double>(p, 0.0));
  const size_t n = points.size();
  if (outcomes.size() != n)
    throw std::invalid_argument("interaction_matrix: " + std::to_string(n) + " points but " +
                                std::to_string(outcomes.size()) + " outcomes");
  double worst = -std::numeric_limits<double>::infinity();
  size_t valid = 0;
  for (const auto& o : outcomes)
    if (o.valid) {
      worst = std::max(worst, std::log(o.cost));
      ++valid;
    }
  if (n < 8) return assoc;

  // Response 1: log-cost, invalid points at the worst valid log-cost plus the penalty.
  if (valid >= 2) {
    std::vector<double> y(n);
    for (size_t s = 0; s < n; ++s)
      y[s] = outcomes[s].valid ? std::log(outcomes[s].cost) : worst + options.invalid_penalty;
    assoc = response_interactions(problem, points, y, options);
  }
  // Responses 2...: one 0/1 indicator per failure class (Outcome::failure_class), seen at least 5
  // times and missed at least 5 times. Parameters that decide together whether a mapping fits (tile
  // sizes sharing a buffer) interact in these even when the valid points are too few to show it in
  // log-cost.
  std::vector<std::string> cls(n);
  std::vector<std::string> classes;
  for (size_t s = 0; s < n; ++s) {
    if (outcomes[s].valid) continue;
    cls[s] = outcomes[s].failure_class.empty() ? "invalid" : outcomes[s].failure_class;
    if (std::find(classes.begin(), classes.end(), cls[s]) == classes.end())
      classes.push_back(cls[s]);
  }
  std::sort(classes.begin(), classes.end());
  for (const auto& c : classes) {
    std::vector<double> y(n, 0.0);
    size_t hits = 0;
    for (size_t s = 0; s < n; ++s)
      if (!outcomes[s].valid && cls[s] == c) {
        y[s] = 1.0;
        ++hits;
      }
    if (hits < 5 || n - hits < 5) continue;
    const Matrix m = response_interactions(problem, points, y, options);
    for (size_t i = 0; i < p; ++i)
      for (size_t j = 0; j < p; ++j) assoc[i][j] = std::max(assoc[i][j], m[i][j]);
  }
  return assoc;
}

std::vector<std::vector<int64_t>> agglomerate(const Matrix& sim, const std::string& linkage,
                                              int64_t k, double threshold,
                                              std::vector<double>* merge_values) {
  if (linkage != "average" && linkage != "single" && linkage != "complete")
    throw std::invalid_argument("agglomerate: unknown linkage '" + linkage +
                                "' (known: average, single, complete)");
  const int64_t p = static_cast<int64_t>(sim.size());
  for (const auto& row : sim)
    if (static_cast<int64_t>(row.size()) != p)
      throw std::invalid_argument("agglomerate: similarity matrix is not square");
  double max_sim = 0;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j)
      if (i != j) max_sim = std::max(max_sim, sim[static_cast<size_t>(i)][static_cast<size_t>(j)]);
  const int64_t target = k > 0 ? std::min(k, p) : 0;
  const double cut = threshold * max_sim;

  std::vector<std::vector<int64_t>> clusters;
  for (int64_t i = 0; i < p; ++i) clusters.push_back({i});
  std::vector<std::vector<int64_t>> chosen;
  bool have_chosen = false;
  if (target == p || (target == 0 && max_sim <= 0)) {
    chosen = clusters;
    have_chosen = true;
  }
  if (merge_values) merge_values->clear();
  while (clusters.size() > 1) {
    size_t ba = 0, bb = 1;
    double best = -std::numeric_limits<double>::infinity();
    for (size_t a = 0; a < clusters.size(); ++a)
      for (size_t b = a + 1; b < clusters.size(); ++b) {
        const double v = linkage_value(sim, clusters[a], clusters[b], linkage);
        if (v > best) {
          best = v;
          ba = a;
          bb = b;
        }
      }
    if (!have_chosen && target == 0 && best <= cut) {
      chosen = clusters;
      have_chosen = true;
    }
    if (merge_values) merge_values->push_back(best);
    clusters[ba].insert(clusters[ba].end(), clusters[bb].begin(), clusters[bb].end());
    clusters.erase(clusters.begin() + static_cast<std::ptrdiff_t>(bb));
    if (!have_chosen && target > 0 && static_cast<int64_t>(clusters.size()) == target) {
      chosen = clusters;
      have_chosen = true;
    }
  }
  if (!have_chosen) chosen = clusters;
  normalize(chosen);
  return chosen;
}

Clustering cluster_parameters(const Problem& problem, const std::vector<Point>& points,
                              const std::vector<Outcome>& outcomes,
                              const ClusteringOptions& options, const std::string& mode,
                              uint64_t seed) {
  const int64_t p = static_cast<int64_t>(problem.params.size());
  Clustering c;
  c.mode = mode;
  if (mode == "single") {
    c.clusters.emplace_back();
    for (int64_t i = 0; i < p; ++i) c.clusters[0].push_back(i);
    return c;
  }
  if (mode == "per-param") {
    for (int64_t i = 0; i < p; ++i) c.clusters.push_back({i});
    return c;
  }
  if (mode != "correlation" && mode != "random")
    throw std::invalid_argument("cluster_parameters: unknown mode '" + mode +
                                "' (known: correlation, per-param, random, single)");
  c.association = interaction_matrix(problem, points, outcomes, options);
  c.clusters = agglomerate(c.association, options.linkage, options.agents, options.merge_threshold,
                           &c.merge_values);
  if (mode == "random") {
    std::vector<size_t> sizes;
    for (const auto& cl : c.clusters) sizes.push_back(cl.size());
    std::sort(sizes.rbegin(), sizes.rend());
    std::mt19937_64 rng(seed);
    std::vector<int64_t> perm(static_cast<size_t>(p));
    for (int64_t i = 0; i < p; ++i) perm[static_cast<size_t>(i)] = i;
    for (int64_t i = p - 1; i > 0; --i)
      std::swap(perm[static_cast<size_t>(i)],
                perm[static_cast<size_t>(detail::uniform_index(rng, i + 1))]);
    c.clusters.clear();
    size_t at = 0;
    for (size_t sz : sizes) {
      c.clusters.emplace_back(perm.begin() + static_cast<std::ptrdiff_t>(at),
                              perm.begin() + static_cast<std::ptrdiff_t>(at + sz));
      at += sz;
    }
    normalize(c.clusters);
  }
  return c;
}

Clustering buffer_clusters(const Problem& problem) {
  Clustering c;
  c.mode = "per-buffer";
  std::map<std::string, size_t> agent_of_group;
  for (size_t i = 0; i < problem.params.size(); ++i) {
    const std::string& g = problem.params[i].group;
    if (g.empty()) {
      c.clusters.push_back({static_cast<int64_t>(i)});
      continue;
    }
    const auto [it, fresh] = agent_of_group.emplace(g, c.clusters.size());
    if (fresh) c.clusters.emplace_back();
    c.clusters[it->second].push_back(static_cast<int64_t>(i));
  }
  return c;
}

nlohmann::json Clustering::to_json(const Problem& problem) const {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& cl : clusters) {
    nlohmann::json g = nlohmann::json::array();
    for (int64_t i : cl) g.push_back(problem.params[static_cast<size_t>(i)].name);
    names.push_back(g);
  }
  return {{"mode", mode},
          {"agents", clusters.size()},
          {"clusters", names},
          {"cluster_indices", clusters},
          {"association", association},
          {"merge_values", merge_values}};
}

std::string Clustering::to_string(const Problem& problem) const {
  std::ostringstream s;
  for (size_t a = 0; a < clusters.size(); ++a) {
    s << "agent " << a << ":";
    for (size_t i = 0; i < clusters[a].size(); ++i)
      s << (i ? ", " : " ") << problem.params[static_cast<size_t>(clusters[a][i])].name;
    s << "\n";
  }
  return s.str();
}

}  // namespace mapwright::search
