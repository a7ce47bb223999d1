// Uniform random search: proposes batches of uniformly random points, avoiding points it has
// already proposed while the space is not nearly exhausted.
#include "internal.hpp"

#include <set>

namespace mapwright::search::detail {
namespace {

class RandomSearcher final : public Searcher {
 public:
  RandomSearcher(const Problem& problem, const RandomOptions& options, uint64_t seed)
      : problem_(problem), options_(options), seed_(seed), rng_(seed) {}

  std::vector<Point> ask(int n) override {
    std::vector<Point> pts;
    const int64_t count = std::min<int64_t>(n, options_.batch);
    for (int64_t i = 0; i < count; ++i) {
      Point p = random_point(problem_, rng_);
      for (int tries = 0; tries < 20 && seen_.count(p); ++tries) p = random_point(problem_, rng_);
      seen_.insert(p);
      pts.push_back(std::move(p));
    }
    return pts;
  }

  void tell(const std::vector<Point>&, const std::vector<Outcome>&) override {}

  std::string name() const override { return "random"; }

  nlohmann::json describe() const override {
    return {{"kind", name()},
            {"seed", seed_},
            {"options", {{"batch", options_.batch}}},
            {"problem", problem_json(problem_)}};
  }

 private:
  Problem problem_;        ///< The space.
  RandomOptions options_;  ///< Batch size.
  uint64_t seed_;          ///< Seed, for the record.
  std::mt19937_64 rng_;    ///< All randomness.
  std::set<Point> seen_;   ///< Points proposed so far (duplicates are re-drawn).
};

}  // namespace

std::unique_ptr<Searcher> make_random(const Problem& problem, const RandomOptions& options,
                                      uint64_t seed) {
  return std::make_unique<RandomSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
