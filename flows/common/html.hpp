#pragma once
/// \file html.hpp
/// What the HTML pages of the flows (the run report, the compare page, the study page) share.

namespace mapwright::flows {

/// The style rules every page starts with (fonts, layout, headings, banners, tables' text
/// alignment, plots); a page appends its own rules after it.
const char* page_base_css();

}  // namespace mapwright::flows
