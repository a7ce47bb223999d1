// The SQLite results store: schema, and inserts keyed by run id so rows can be rewritten when a
// run is resumed.
#include "record/results_db.hpp"

#include <cstring>

#include "mapwright/support/error.hpp"
#include "mapwright/support/test_hooks.hpp"

namespace mapwright::flows {

namespace {

const char* kSchema = R"sql(
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, created TEXT, updated TEXT, run_dir TEXT, target TEXT, arch TEXT,
  searcher TEXT, budget INTEGER, seed INTEGER, objective TEXT, top_k INTEGER, rtl INTEGER,
  status TEXT, layers_total INTEGER, layers_done INTEGER, total_cycles REAL,
  total_energy_pj REAL, total_edp REAL, utilization REAL, verifications INTEGER,
  verification_failures INTEGER);
CREATE TABLE IF NOT EXISTS layers (
  run_id TEXT, layer_index INTEGER, name TEXT, shape TEXT, count INTEGER, macs INTEGER,
  seed INTEGER, status TEXT, samples INTEGER, valid INTEGER, search_seconds REAL,
  best_cost REAL, chosen_rank INTEGER, chosen_by TEXT, cycles INTEGER, energy_pj REAL,
  edp REAL, utilization REAL, mapping TEXT,
  PRIMARY KEY (run_id, layer_index));
CREATE TABLE IF NOT EXISTS evaluations (
  run_id TEXT, layer_index INTEGER, sample INTEGER, valid INTEGER, cost REAL, cycles INTEGER,
  energy_pj REAL, reason TEXT, point TEXT,
  PRIMARY KEY (run_id, layer_index, sample));
CREATE TABLE IF NOT EXISTS verifications (
  run_id TEXT, layer_index INTEGER, rank INTEGER, seed INTEGER, mapping TEXT,
  surrogate_cost REAL, surrogate_cycles INTEGER, rtl_cycles INTEGER, rtl_energy_pj REAL,
  cycle_error_pct REAL, functional_ok INTEGER, mismatches INTEGER, counts_equal INTEGER,
  failure TEXT, passed INTEGER, sim_seconds REAL, refined_cycles INTEGER,
  PRIMARY KEY (run_id, layer_index, rank));
CREATE TABLE IF NOT EXISTS sweep_points (
  sweep_id TEXT, point_index INTEGER, name TEXT, rows INTEGER, cols INTEGER,
  input_kib INTEGER, weight_kib INTEGER, accum_kib INTEGER, dram_bytes_per_cycle INTEGER,
  dataflows TEXT, status TEXT, failure TEXT, run_id TEXT, rtl_model TEXT, area_mm2 REAL,
  cycles REAL, energy_pj REAL, edp REAL, source TEXT, verifications INTEGER,
  verification_failures INTEGER, meets_constraints INTEGER, pareto_latency INTEGER,
  pareto_energy INTEGER, pareto_edp INTEGER, winner INTEGER,
  PRIMARY KEY (sweep_id, point_index));
CREATE TABLE IF NOT EXISTS exact_searches (
  run_id TEXT, layer_index INTEGER, lower_bound REAL, gap REAL, optimal INTEGER, stop TEXT,
  nodes INTEGER, evaluations INTEGER, pruned_bound INTEGER, pruned_capacity INTEGER,
  seconds REAL,
  PRIMARY KEY (run_id, layer_index));
)sql";

/// SQLite's message, with the system's reason when an I/O error has one (a full disk, a
/// file-size limit, a read-only file system).
std::string os_reason(sqlite3* db) {
  const int e = sqlite3_system_errno(db);
  const int code = sqlite3_errcode(db) & 0xff;
  if (e != 0 && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN ||
                 code == SQLITE_READONLY))
    return std::string(" (") + std::strerror(e) + ")";
  return "";
}
std::string why(sqlite3* db) {
  return sqlite3_errmsg(db) + os_reason(db);
}

/// A prepared statement with positional binding of JSON values.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql, const std::string& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
      throw core::SpecError(path, "(sqlite)", sql, why(db));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt& bind(const nlohmann::json& v) {
    ++i_;
    if (v.is_null())
      sqlite3_bind_null(st_, i_);
    else if (v.is_boolean())
      sqlite3_bind_int64(st_, i_, v.get<bool>() ? 1 : 0);
    else if (v.is_number_integer())
      sqlite3_bind_int64(st_, i_, v.get<long long>());
    else if (v.is_number())
      sqlite3_bind_double(st_, i_, v.get<double>());
    else if (v.is_string())
      sqlite3_bind_text(st_, i_, v.get_ref<const std::string&>().c_str(), -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_text(st_, i_, v.dump().c_str(), -1, SQLITE_TRANSIENT);
    return *this;
  }
  /// Runs a query of one integer (SELECT COUNT(*) ...) and returns it.
  long long count(const std::string& path) {
    if (sqlite3_step(st_) != SQLITE_ROW) throw core::SpecError(path, "(sqlite)", "", why(db_));
    const long long n = sqlite3_column_int64(st_, 0);
    sqlite3_reset(st_);
    i_ = 0;
    return n;
  }
  void run(const std::string& path) {
    if (sqlite3_step(st_) != SQLITE_DONE) throw core::SpecError(path, "(sqlite)", "", why(db_));
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
    i_ = 0;
  }

 private:
  sqlite3* db_;                 ///< Connection.
  sqlite3_stmt* st_ = nullptr;  ///< Statement.
  int i_ = 0;                   ///< Last bound index.
};

nlohmann::json at(const nlohmann::json& j, const char* key) {
  return j.contains(key) ? j[key] : nlohmann::json();
}

}  // namespace

ResultsDb::ResultsDb(const std::string& path) : path_(path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    const std::string reason = db_ ? why(db_) : "cannot open";
    sqlite3_close(db_);
    db_ = nullptr;
    throw core::SpecError(path, "(sqlite)", "", reason);
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    exec(kSchema);
    add_missing_columns();
  } catch (...) {
    // A full disk or a read-only file: the destructor will not run, so close here.
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

ResultsDb::~ResultsDb() {
  sqlite3_close(db_);
}

void ResultsDb::add_missing_columns() {
  // Columns added after a table was first written, appended in this order (so `SELECT *`
  // lines up between stores of either age once both are open).
  struct Added {
    const char* table;
    const char* column;
    const char* type;
  };
  for (const Added& a : {Added{"verifications", "refined_cycles", "INTEGER"},
                         Added{"verifications", "harness", "TEXT"}}) {
    const std::string sql =
        std::string("SELECT COUNT(*) FROM pragma_table_info('") + a.table + "') WHERE name = ?";
    Stmt info(db_, sql.c_str(), path_);
    info.bind(std::string(a.column));
    if (info.count(path_) == 0)
      exec(std::string("ALTER TABLE ") + a.table + " ADD COLUMN " + a.column + " " + a.type);
  }
}

void ResultsDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string reason = err ? err : "error";
    sqlite3_free(err);
    reason += os_reason(db_);
    throw core::SpecError(path_, "(sqlite)", "", reason);
  }
}

namespace {
/// A value bound as SQL NULL when absent.
template <typename T>
nlohmann::json or_null(bool present, const T& v) {
  return present ? nlohmann::json(v) : nlohmann::json();
}
}  // namespace

void ResultsDb::put_run(const RunRecord& r, const RunSummary& t) {
  Stmt s(db_, "INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
         path_);
  s.bind(r.run_id)
      .bind(r.created)
      .bind(r.updated)
      .bind(r.run_dir)
      .bind(r.target)
      .bind(r.arch.name)
      .bind(r.settings.searcher)
      .bind(r.settings.budget)
      .bind(r.settings.seed)
      .bind(r.settings.objective)
      .bind(r.settings.top_k)
      .bind(r.settings.rtl())
      .bind(run_status_name(r.status))
      .bind(t.layers_total)
      .bind(t.layers_done)
      .bind(t.cycles)
      .bind(t.energy_pj)
      .bind(t.edp)
      .bind(t.utilization)
      .bind(t.done)
      .bind(t.failed);
  s.run(path_);
}

void ResultsDb::put_layer(const std::string& run_id, const LayerRecord& l) {
  Stmt s(db_, "INSERT OR REPLACE INTO layers VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
         path_);
  const nlohmann::json& search = l.search;
  auto se = [&](const char* k) { return search.is_null() ? nlohmann::json() : at(search, k); };
  const bool b = l.best.has_value();
  s.bind(run_id)
      .bind(l.index)
      .bind(l.layer.name)
      .bind(l.layer.describe())
      .bind(l.count)
      .bind(l.layer.macs())
      .bind(l.seed)
      .bind(layer_status_name(l.status))
      .bind(se("samples"))
      .bind(se("valid"))
      .bind(se("seconds"))
      .bind(se("best_cost"))
      .bind(or_null(b, b ? l.best->rank : 0))
      .bind(or_null(b, b ? chosen_by_name(l.best->chosen_by) : ""))
      .bind(or_null(b, b ? l.best->cycles : 0))
      .bind(or_null(b, b ? l.best->energy_pj : 0))
      .bind(or_null(b, b ? l.best->edp : 0))
      .bind(or_null(b, b ? l.best->utilization : 0))
      .bind(or_null(b, b ? core::mapping_to_yaml(l.best->mapping) : ""));
  s.run(path_);
  // The exact mapper's proof record (bound, gap, effort), when the layer was solved by it.
  if (!search.is_null() && search.contains("exact")) {
    const auto& e = search["exact"];
    Stmt x(db_, "INSERT OR REPLACE INTO exact_searches VALUES (?,?,?,?,?,?,?,?,?,?,?)", path_);
    x.bind(run_id)
        .bind(l.index)
        .bind(at(e, "lower_bound"))
        .bind(at(e, "gap"))
        .bind(at(e, "optimal"))
        .bind(at(e, "stop"))
        .bind(at(e, "nodes"))
        .bind(at(e, "evaluations"))
        .bind(at(e, "pruned_bound"))
        .bind(at(e, "pruned_capacity"))
        .bind(at(e, "seconds"));
    x.run(path_);
  }
}

void ResultsDb::put_evaluations(const std::string& run_id, int layer_index,
                                const std::vector<EvaluationRow>& rows) {
  exec("BEGIN");
  try {
    Stmt s(db_, "INSERT OR REPLACE INTO evaluations VALUES (?,?,?,?,?,?,?,?,?)", path_);
    for (const auto& r : rows) {
      s.bind(run_id)
          .bind(layer_index)
          .bind(r.sample)
          .bind(r.valid)
          .bind(r.valid ? nlohmann::json(r.cost) : nlohmann::json())
          .bind(r.valid ? nlohmann::json(r.cycles) : nlohmann::json())
          .bind(r.valid ? nlohmann::json(r.energy_pj) : nlohmann::json())
          .bind(r.reason.empty() ? nlohmann::json() : nlohmann::json(r.reason))
          .bind(r.point);
      s.run(path_);
      if (core::kill_point_reached("sqlite")) core::kill_self();  // test hook: mid-transaction
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void ResultsDb::put_verification(const std::string& run_id, int layer_index, const Candidate& c) {
  const Verification& v = *c.verification;
  const bool ran = v.rtl.has_value();
  Stmt s(db_, "INSERT OR REPLACE INTO verifications VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
         path_);
  s.bind(run_id)
      .bind(layer_index)
      .bind(c.rank)
      .bind(v.seed)
      .bind(core::mapping_to_yaml(c.mapping))
      .bind(c.cost)
      .bind(c.surrogate.cycles)
      .bind(or_null(ran, ran ? v.rtl->cycles : 0))
      .bind(or_null(ran, ran ? v.rtl->energy_pj : 0))
      .bind(or_null(ran, v.cycle_error_pct))
      .bind(v.functional_ok)
      .bind(v.mismatches)
      .bind(v.counts_equal)
      .bind(v.failure)
      .bind(v.passed)
      .bind(v.sim_seconds)
      .bind(or_null(c.refined_cycles > 0, c.refined_cycles))
      .bind(v.harness);
  s.run(path_);
}

void ResultsDb::put_sweep_point(const std::string& sweep_id, int index, const nlohmann::json& p) {
  Stmt s(db_,
         "INSERT OR REPLACE INTO sweep_points VALUES "
         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
         path_);
  s.bind(sweep_id).bind(index);
  for (const char* k : {"name",
                        "rows",
                        "cols",
                        "input_kib",
                        "weight_kib",
                        "accum_kib",
                        "dram_bytes_per_cycle",
                        "dataflows",
                        "status",
                        "failure",
                        "run_id",
                        "rtl_model",
                        "area_mm2",
                        "cycles",
                        "energy_pj",
                        "edp",
                        "source",
                        "verifications",
                        "verification_failures",
                        "meets_constraints",
                        "pareto_latency",
                        "pareto_energy",
                        "pareto_edp",
                        "winner"})
    s.bind(at(p, k));
  s.run(path_);
}

}  // namespace mapwright::flows
