// The SQLite results store: a store written before a column existed gains it when opened, and
// keeps its rows.
#include "record/results_db.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "files.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/mapspace/mapspace.hpp"

namespace fs = std::filesystem;
using namespace mapwright;

namespace {

/// The first value of a one-value query (-1 for NULL or no row).
long long query(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  long long n = -1;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

}  // namespace

TEST(ResultsDb, AStoreWithoutTheRefinedAndHarnessColumnsGainsThemAndKeepsItsRows) {
  const fs::path db = test_files::fresh_path("flows_results_db_old") / "results.sqlite";
  fs::create_directories(db.parent_path());
  {
    // The verifications table as stores written before the refined estimate have it.
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h,
                           "CREATE TABLE verifications (run_id TEXT, layer_index INTEGER, rank "
                           "INTEGER, seed INTEGER, mapping TEXT, surrogate_cost REAL, "
                           "surrogate_cycles INTEGER, rtl_cycles INTEGER, rtl_energy_pj REAL, "
                           "cycle_error_pct REAL, functional_ok INTEGER, mismatches INTEGER, "
                           "counts_equal INTEGER, failure TEXT, passed INTEGER, sim_seconds "
                           "REAL, PRIMARY KEY (run_id, layer_index, rank));"
                           "INSERT INTO verifications VALUES ('old', 0, 0, 1, '', 1.0, 100, 100, "
                           "1.0, 0.0, 1, 0, 1, '', 1, 0.1);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(h);
  }
  const core::Layer layer = core::parse_layer_arg("conv:K=4,C=4,H=4,W=4,R=3,S=3,pad=1");
  flows::Candidate c;
  c.rank = 1;
  c.mapping = core::default_mapping(layer, core::load_arch("small4"));
  c.refined_cycles = 1234;
  flows::Verification v;
  v.rtl = core::Metrics{};
  v.rtl->cycles = 1200;
  v.harness = "decoupled SystemC";
  c.verification = v;
  for (int open = 0; open < 2; ++open) {  // a second open finds the column there
    flows::ResultsDb store(db.string());
    store.put_verification("new", 0, c);
  }
  EXPECT_EQ(query(db, "SELECT COUNT(*) FROM verifications"), 2);
  EXPECT_EQ(query(db, "SELECT refined_cycles FROM verifications WHERE run_id = 'new'"), 1234);
  EXPECT_EQ(query(db, "SELECT refined_cycles FROM verifications WHERE run_id = 'old'"), -1);
  EXPECT_EQ(query(db, "SELECT surrogate_cycles FROM verifications WHERE run_id = 'old'"), 100);
  EXPECT_EQ(query(db,
                  "SELECT COUNT(*) FROM verifications WHERE run_id = 'new' AND harness = "
                  "'decoupled SystemC'"),
            1);
  EXPECT_EQ(query(db,
                  "SELECT COUNT(*) FROM verifications WHERE run_id = 'old' AND harness IS "
                  "NULL"),
            1);
}
