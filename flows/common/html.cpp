#include "common/html.hpp"

namespace mapwright::flows {

const char* page_base_css() {
  return R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1320px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 10px;border-bottom:1px solid #d8dce3;padding-bottom:4px}
.banner{padding:10px 14px;border-radius:6px;margin:16px 0;font-weight:600}
.warn{background:#fff4dc;color:#7a5200;border:1px solid #ecd08e}
td.l,th.l{text-align:left}
td.win{background:#e3f4e8;font-weight:650}
.plot{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:8px;margin:8px 0}
.plot svg{width:100%;height:auto}
)css";
}

}  // namespace mapwright::flows
