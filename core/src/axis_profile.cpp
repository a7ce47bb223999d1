// Per-thread cache of axis profiles (core/axis_profile.hpp): a hash index over a deque of
// profiles that never moves them; once it holds kMaxEntries axes, further misses are built into
// a ring of eight scratch profiles.
#include "mapwright/core/axis_profile.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>

#include "mapwright/core/tile_program.hpp"

namespace mapwright::core {

AxisProfile make_axis_profile(long long P, long long tp, long long R, long long tr,
                              long long stride, long long pad, long long h) {
  AxisProfile p;
  tp = std::min(tp, P);
  tr = std::min(tr, R);
  const bool p_rem = P % tp != 0, r_rem = R % tr != 0;
  for (long long p0 = 0; p0 < P; p0 += tp) {
    const long long pt = std::min(tp, P - p0);
    const int cp = p_rem && p0 + tp >= P ? 1 : 0;
    for (long long r0 = 0; r0 < R; r0 += tr) {
      const long long rt = std::min(tr, R - r0);
      const int cr = r_rem && r0 + tr >= R ? 1 : 0;
      AxisTile x;
      x.t = pt;
      x.ft = rt;
      x.a = input_row_step(pt, rt, stride);
      x.b = row_blocks(p0, pt, r0, rt, stride, pad, h);
      x.p0 = p0;
      x.r0 = r0;
      p.sum[cp][cr] += x.b.rows;
      ++p.count[cp][cr];
      auto it = std::find_if(p.tiles.begin(), p.tiles.end(),
                             [&](const AxisTile& o) { return o.same_class(x); });
      if (it == p.tiles.end()) {
        x.count = 1;
        p.tiles.push_back(x);
      } else {
        ++it->count;
      }
    }
  }
  return p;
}

namespace {

using Key = std::array<long long, 7>;

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 0x84222325CBF29CE4ULL;
    for (long long v : k) h = (h ^ static_cast<uint64_t>(v)) * 0x100000001B3ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

class ProfileCache {
 public:
  static constexpr size_t kMaxEntries = 8192;

  const AxisProfile& get(const Key& k) {
    // The last few axes asked for first: one evaluation asks for its two axes several times.
    for (const Recent& r : recent_)
      if (r.p != nullptr && r.key == k) return *r.p;
    const AxisProfile& p = find(k);
    recent_[next_recent_++ % recent_.size()] = {k, &p};
    return p;
  }

 private:
  const AxisProfile& find(const Key& k) {
    const auto it = index_.find(k);
    if (it != index_.end()) return *it->second;
    AxisProfile p = make_axis_profile(k[0], k[1], k[2], k[3], k[4], k[5], k[6]);
    if (store_.size() >= kMaxEntries) {
      AxisProfile& s = ring_[next_++ % ring_.size()];
      s = std::move(p);
      return s;
    }
    store_.push_back(std::move(p));
    index_.emplace(k, &store_.back());
    return store_.back();
  }

  struct Recent {
    Key key{};
    const AxisProfile* p = nullptr;
  };
  /// The last axes found (a ring of 4: an entry leaves it after 4 more finds, before the 8
  /// misses that could reuse a scratch profile it points to).
  std::array<Recent, 4> recent_{};
  size_t next_recent_ = 0;
  std::deque<AxisProfile> store_;  ///< Profiles, never moved.
  std::unordered_map<Key, const AxisProfile*, KeyHash> index_;
  std::array<AxisProfile, 8> ring_;  ///< Misses once the store is full.
  size_t next_ = 0;
};

}  // namespace

const AxisProfile& axis_profile(long long P, long long tp, long long R, long long tr,
                                long long stride, long long pad, long long h) {
  thread_local ProfileCache cache;
  return cache.get({P, std::min(tp, P), R, std::min(tr, R), stride, pad, h});
}

}  // namespace mapwright::core
