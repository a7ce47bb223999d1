#pragma once
/// \file study_html.hpp
/// study.html: a self-contained page of a study's results, rendered from its study.json (the
/// summary) and the gnuplot SVGs, which are inlined. Every name from the suite is HTML-escaped.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mapwright::flows {

/// What study.html shows.
struct StudyPage {
  const nlohmann::json& summary;        ///< study.json (layers in suite order: layer_order).
  std::string gap_svg;                  ///< Gap-to-optimum vs budget plot ("" = none).
  std::vector<std::string> layer_svgs;  ///< Per layer, its median-curve plot ("" = none).
};

/// The whole page.
std::string render_study_html(const StudyPage& page);

}  // namespace mapwright::flows
