#pragma once
/// \file encoding.hpp
/// How the sampling searchers see a layer's mappings, and the encodings' names (the search
/// command's `--encoding` and the study suite's `encoding:` key). Kept apart from
/// layer_search.hpp so that the parsers of user input compile without the search engine.

#include <string>

namespace mapwright::flows {

/// How the sampling searchers see a layer's mappings.
enum class Encoding {
  Compact,  ///< core::SearchSpace: compact, every decoded point fits (repairs are counted).
  Raw,      ///< core::MapSpace: the 16 raw parameters; overflowing points are invalid.
  Gamma,    ///< core::GammaSpace: ArchGym's 17 GAMMA parameters (the paper's setting); a point
            ///< may name no mapping (invalid, kind "encoding"); every distinct point is a sample.
};
/// "compact", "raw" or "gamma" (recorded as the searcher record's "encoding").
const char* encoding_name(Encoding e);
/// The encoding named `name`; std::invalid_argument naming the known ones otherwise.
Encoding encoding_from_name(const std::string& name);

}  // namespace mapwright::flows
