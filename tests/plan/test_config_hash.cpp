// The config hash is taken over the expanded experiment (plan/config_hash.hpp), not the file's
// text: what does not change what is measured does not change the hash, and what does, does.
#include "config/config.hpp"
#include "kernels/families.hpp"
#include "plan/config_hash.hpp"
#include "plan/plan.hpp"
#include "results/metadata.hpp"
#include "results/result_fields.hpp"
#include "results/resume.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace miniapp {
namespace {

std::string hash_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return make_plan(config::parse_config("test.yaml", text, overrides)).config_hash;
}

const std::string base = "name: hashed\n"
                         "repetitions: 10\n"
                         "cases:\n"
                         "  - family: matmul\n"
                         "    variant: [flat, tiled_rb]\n"
                         "    n: [16, 32]\n";

TEST(ConfigHash, CommentsFormattingAndKeyOrderDoNotCount) {
  const std::string reordered = "# a comment\n"
                                "cases:\n"
                                "  - {n: [16,   32], variant: [flat, tiled_rb], family: matmul}"
                                "  # trailing\n"
                                "repetitions: 10\n"
                                "name: hashed\n";
  EXPECT_EQ(hash_of(base), hash_of(reordered));
}

TEST(ConfigHash, LabelsOutputAndPrintDoNotCount) {
  EXPECT_EQ(hash_of(base), hash_of(base + "description: another words\n"
                                          "output: {directory: elsewhere, formats: [json], "
                                          "print: true}\n"));
  EXPECT_EQ(hash_of(base), hash_of(base, {"name=renamed", "output.directory=/tmp/x"}));
}

TEST(ConfigHash, ASetThatChangesNothingDoesNotCount) {
  EXPECT_EQ(hash_of(base), hash_of(base, {"repetitions=10"}));
  // Written-out defaults are the same experiment: warmup 2, tiled_rb's tile 128.
  EXPECT_EQ(hash_of(base), hash_of(base, {"warmup=2"}));
  const std::string one = "name: h\ncases:\n  - {family: matmul, variant: tiled_rb, n: 64}\n";
  EXPECT_EQ(hash_of(one), hash_of(one, {"cases.0.tile=128"}));
}

// Issue 12: a tiled_rb shape counts where the config gives one; a config without one keeps the
// hash it had before shapes existed (the canonical text names no shape then).
TEST(ConfigHash, AGivenShapeCountsAndNoShapeKeepsTheOldHash) {
  const std::string one = "name: h\ncases:\n  - {family: matmul, variant: tiled_rb, n: 64}\n";
  const Plan plan = make_plan(config::parse_config("test.yaml", one, {}));
  EXPECT_EQ(canonical_experiment(plan).find("shape"), std::string::npos);
  Case c = plan.cases.at(0);
  const std::string name = shape_names(c, plan.backend).front();
  const std::string named = hash_of(one, {"cases.0.shape=\"" + name + "\""});
  const std::string searched = hash_of(one, {"cases.0.shape=auto"});
  EXPECT_NE(hash_of(one), named);
  EXPECT_NE(hash_of(one), searched);
  EXPECT_NE(named, searched);
}

TEST(ConfigHash, WhatIsMeasuredCounts) {
  const std::string h = hash_of(base);
  EXPECT_NE(h, hash_of(base, {"repetitions=11"}));
  EXPECT_NE(h, hash_of(base, {"cases.0.n=[16, 33]"}));
  EXPECT_NE(h, hash_of(base, {"precision=float64"}));
  EXPECT_NE(h, hash_of(base, {"validation.rtol=0.001"}));
  EXPECT_NE(h, hash_of(base, {"cases.0.seed=7"}));
  EXPECT_NE(h, hash_of(base, {"cases.0.variant=[flat]"}));
  // Explicit inputs: one value changed is another experiment.
  const std::string expl = "name: e\ncases:\n  - {family: axpby, variant: flat, m: 1, n: 2, "
                           "a: [[1, 2]], b: [[3, 4]]}\n";
  EXPECT_NE(hash_of(expl), hash_of(expl, {"cases.0.b=[[3, 5]]"}));
  // Doubles count to the last bit, not to 6 digits.
  const std::string ax = "name: a\ncases:\n  - {family: axpby, variant: flat, n: 8}\n";
  EXPECT_NE(hash_of(ax, {"cases.0.alpha=0.1234567"}), hash_of(ax, {"cases.0.alpha=0.1234568"}));
}

// The experiment hash leaves the backend out: one config on Serial and on OpenMP is one
// experiment (compare does not warn "config differs" between them), anything else still counts.
TEST(ConfigHash, TheExperimentHashIsTheConfigHashWithoutTheBackend) {
  const auto plan = [](const std::vector<std::string>& overrides) {
    return make_plan(config::parse_config("test.yaml", base, overrides));
  };
  // Another backend, whichever this build has compiled: the plan as it would be there.
  const Plan serial = plan({"backend=serial"});
  Plan elsewhere = serial;
  elsewhere.backend = "cuda";
  EXPECT_NE(fnv1a_hex(canonical_experiment(serial)), fnv1a_hex(canonical_experiment(elsewhere)));
  EXPECT_EQ(serial.config_hash, fnv1a_hex(canonical_experiment(serial)));
  EXPECT_EQ(experiment_hash(serial), experiment_hash(elsewhere));
  EXPECT_NE(experiment_hash(serial), experiment_hash(plan({"backend=serial", "repetitions=3"})));
  EXPECT_NE(experiment_hash(serial), serial.config_hash);
}

// One list says which config keys the hash leaves out (plan/config_hash.hpp): each of them, set
// to something other than its default, keeps the hash.
TEST(ConfigHash, TheKeysOutsideTheHashDoNotCount) {
  const std::map<std::string, std::string> other_value = {
      {"name", "name=renamed"},
      {"description", "description=\"other words\""},
      {"output", "output.formats=[csv]"},
      {"energy", "energy=false"},
      {"reuse_ceilings", "reuse_ceilings=true"},
      {"mpi.transport", "mpi.transport=host"}};
  for (const std::string_view key : kKeysOutsideConfigHash) {
    const auto it = other_value.find(std::string(key));
    ASSERT_NE(it, other_value.end()) << key << ": give the test a value for this key";
    EXPECT_EQ(hash_of(base), hash_of(base, {it->second})) << it->second;
    EXPECT_TRUE(outside_config_hash(std::string(key) + ".sub")) << key;
  }
  EXPECT_FALSE(outside_config_hash("mpi.grid"));
  EXPECT_FALSE(outside_config_hash("names"));
  EXPECT_NE(hash_of(base), hash_of(base, {"mpi.panel=8"}));
}

// `run --resume DIR` with another experiment names the first key that differs among the keys
// that count (results/resume.cpp reads the same list): here repetitions, not energy or
// mpi.transport, which come before it but are outside the hash.
TEST(ConfigHash, ResumeNamesAKeyInsideTheHash) {
  const auto plan = [](const std::vector<std::string>& overrides) {
    return make_plan(config::parse_config("test.yaml", base, overrides));
  };
  const Plan there = plan({});
  const std::string dir = ::testing::TempDir() + "miniapp-resume-hash";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const nlohmann::json doc = {{"schema_version", kResultsSchemaVersion},
                              {"status", "interrupted"},
                              {"metadata", {{"config_hash", there.config_hash}, {"mpi_ranks", 1}}},
                              {"config", plan_to_json(there)},
                              {"results", nlohmann::json::array()}};
  std::ofstream(dir + "/results.json") << doc.dump();
  const Plan here = plan({"repetitions=3", "energy=false", "mpi.transport=host"});
  try {
    read_resume_state(dir, here, 1, 1);
    FAIL() << "another experiment was resumed";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("(config/repetitions is 10 there and 3 here)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(read_resume_state(dir, plan({"energy=false", "mpi.transport=host"}), 1, 1));
  std::filesystem::remove_all(dir);
}

TEST(ConfigHash, CanonicalTextNamesEveryCaseParameter) {
  const Plan p = make_plan(config::parse_config("t.yaml", base, {}));
  const std::string text = canonical_experiment(p);
  EXPECT_NE(text.find("case matmul tiled_rb float32 m=32 n=32 k=32 tile=128"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("hashed"), std::string::npos) << "the name does not count";
  EXPECT_EQ(p.config_hash, fnv1a_hex(text));
}

// The hash of every committed config, as the releases before the case-field table drove the hash
// computed it: resume refuses a run whose config hash changed, so a change to how any parameter
// is written into the canonical text shows here.
TEST(ConfigHash, CommittedConfigsKeepTheirHash) {
  const std::pair<const char*, const char*> pinned[] = {
      {"configs/matmul_tiles.yaml", "68a4aaa88312f555"},
      {"configs/paper_table1.yaml", "ff31e0711a77f996"},
      {"configs/quickstart.yaml", "e51abab455778cf2"},
      {"configs/roofline_demo.yaml", "35578e41e022db84"},
      {"configs/strong_scaling.yaml", "38a9b582358bdffa"},
      {"configs/transpose.yaml", "a9be57462a9b3f56"},
      {"configs/weak_scaling.yaml", "a5abfe7be09efd20"},
      {"configs/examples/matmul_3x2_by_2x3.yaml", "b82655c1e1054a73"},
      {"configs/examples/matmul_4x4_tiles_2x2.yaml", "91d8ba136f16c443"},
      {"configs/examples/tile_average_8x8.yaml", "931a245ce3eb73d0"},
      {"configs/examples/tile_index_8x9.yaml", "5b43e6044dfe45c7"},
  };
  for (const auto& [file, hash] : pinned) {
    const std::string path = std::string(MINIAPP_SOURCE_DIR) + "/" + file;
    EXPECT_EQ(make_plan(config::load_config(path, {"backend=serial"})).config_hash, hash) << file;
  }
}

} // namespace
} // namespace miniapp

namespace miniapp {
namespace {

// The plan reads typed values only (config/value.hpp): a config built without any YAML plans,
// and the plan's errors point at the positions the values carry.
TEST(TypedConfig, PlanReadsValuesAndFailsAtTheirPositions) {
  config::ExperimentConfig cfg;
  cfg.settings.name = "typed";
  config::CaseSpec spec;
  spec.pos = {"made.yaml", 3, 5};
  spec.family = {std::string("axpby"), "axpby", {"made.yaml", 3, 13}};
  spec.params["variant"] = {{std::string("team"), "team", {"made.yaml", 4, 14}}};
  spec.params["n"] = {{std::int64_t(16), "16", {"made.yaml", 5, 8}},
                      {std::int64_t(0), "0", {"made.yaml", 5, 12}}};
  cfg.cases.push_back(spec);
  try {
    make_plan(cfg);
    FAIL() << "n: 0 accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "made.yaml:5:12: n must be between 1 and 2147483647, got 0");
  }
  cfg.cases[0].params["n"].pop_back();
  const Plan p = make_plan(cfg);
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].n, 16);
  EXPECT_EQ(p.cases[0].alpha, 2.0); // the family table's default
}

} // namespace
} // namespace miniapp
