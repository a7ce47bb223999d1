#pragma once
/// \file clustering.hpp
/// Agent clustering: from an initial sample of points and outcomes, measure how strongly each
/// pair of parameters interacts in its effect on log-cost, then group strongly interacting
/// parameters by agglomerative clustering; each group becomes one agent. Also builds the
/// ablation assignments (one agent per parameter, random groups, one agent).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mapwright::search {

struct ParamSpec;
struct Problem;
struct Outcome;
using Point = std::vector<int64_t>;

/// Knobs of the association measure and of the cut.
struct ClusteringOptions {
  int64_t agents = 0;               ///< Number of clusters k; 0 = automatic (threshold rule).
  std::string linkage = "average";  ///< "average", "single" or "complete".
  int64_t bins = 0;                 ///< Bins per parameter for the interaction tables;
                                    ///< 0 = automatic, clamp(round(sqrt(n / 12)), 2, 6).
  double significance = 3.09;       ///< One-sided z of the chi-square test that gates a
                                    ///< pair's interaction (3.09 ~ p = 0.001).
  double merge_threshold = 0.2;     ///< Automatic k: merge while the linkage value is above
                                    ///< this fraction of the largest association, (0, 1].
  double invalid_penalty = 1.0;     ///< Log-cost of an invalid point: worst valid + this.
};

/// A parameter-to-agent assignment and how it was found.
struct Clustering {
  std::string mode;  ///< correlation, per-param, random, single or per-buffer.
  std::vector<std::vector<int64_t>> clusters;    ///< Parameter indices per agent; each sorted,
                                                 ///< clusters ordered by their first index.
  std::vector<std::vector<double>> association;  ///< Symmetric p x p interaction strengths
                                                 ///< (zero diagonal); empty if not computed.
  std::vector<double> merge_values;  ///< Linkage value of each merge of the full dendrogram,
                                     ///< in merge order (for choosing or checking k).
  /// Record form: clusters by parameter name, the matrix and the merge values.
  nlohmann::json to_json(const Problem& problem) const;
  /// One line per agent, e.g. "agent 0: tile_K, tile_C".
  std::string to_string(const Problem& problem) const;
};

/// Pairwise interaction strength of parameters on log-cost (see search/README.md): the
/// fraction of the variance of log-cost explained by the non-additive part of the (i, j)
/// two-way table of the main-effect residual (and, for ordinal pairs, its rank-product term),
/// noise-corrected and zeroed unless a chi-square test passes; strong pairs are refitted
/// jointly to re-pool the noise. Invalid outcomes count as the worst valid log-cost plus
/// options.invalid_penalty. Needs at least 8 points and 2 valid outcomes, else returns an
/// all-zero matrix.
std::vector<std::vector<double>> interaction_matrix(const Problem& problem,
                                                    const std::vector<Point>& points,
                                                    const std::vector<Outcome>& outcomes,
                                                    const ClusteringOptions& options);

/// Agglomerative clustering of a similarity matrix. k > 0: cut at k clusters; k == 0: merge
/// while the best linkage value exceeds threshold * max off-diagonal similarity (no merge at
/// all if that maximum is 0). merge_values (optional) receives every merge value of the full
/// dendrogram. Ties are broken by the lowest cluster indices, so the result is deterministic.
std::vector<std::vector<int64_t>> agglomerate(const std::vector<std::vector<double>>& similarity,
                                              const std::string& linkage, int64_t k,
                                              double threshold,
                                              std::vector<double>* merge_values = nullptr);

/// Agent assignment for a mode: "correlation" (interaction_matrix + agglomerate), "per-param",
/// "random" (a random permutation of the parameters cut into the cluster sizes that the
/// correlation mode finds with the same options), "single". seed drives "random" only.
/// Throws std::invalid_argument for an unknown mode or linkage.
Clustering cluster_parameters(const Problem& problem, const std::vector<Point>& points,
                              const std::vector<Outcome>& outcomes,
                              const ClusteringOptions& options, const std::string& mode,
                              uint64_t seed);

/// Domain-informed agents (mode "per-buffer", marl.agents: per-buffer): one agent per non-empty
/// ParamSpec::group label, in order of first appearance (the caller's knowledge of which
/// parameters share a buffer), and one per parameter without a label. No samples needed.
Clustering buffer_clusters(const Problem& problem);

}  // namespace mapwright::search
