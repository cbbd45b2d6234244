// Every registered solver runs every built-in scene, and unknown names are rejected.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "subsim/solvers/solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

const std::set<std::string> kSchurPaperScenes = {"chainwrap", "chaindrop",    "logtower",
                                                 "rockpile",  "cablespinner", "nettruck",
                                                 "cranes",    "bridge"};

// One test per solver, so that ctest runs them side by side.  Under the sanitizers (20-fold
// slower; 238 s for the 15 solvers at 40 steps) 10 steps: every solve path and warm start is
// met in the first steps, and the 40 are run by the portable build.
class EverySolver : public ::testing::TestWithParam<std::string> {};

TEST_P(EverySolver, RunsEveryBuiltInScene) {
  const std::string& name = GetParam();
  const int steps = test::kSanitized ? 10 : 40;
  EXPECT_EQ(makeSolver(name)->name(), name);
  const bool dense_lcp = findSolver(name)->formulation == "lcp";
  for (const Scenario& s : builtinScenarios()) {
    // The schur paper's scenes are its stress cases (mass ratios to 40000:1, near-inextensible
    // cables): there the iterative solvers at 60 iterations fail by design, as its Table 3
    // reports; tests/scenarios/schur_scenes_test.cpp and `subsim bench --paper schur` run them.
    if (kSchurPaperScenes.count(s.name) == 1) continue;
    // Anisotropic friction: the solvers without the elliptic strict operator refuse it, saying so.
    if (s.name == "anisobox" && !findSolver(name)->anisotropic_friction) {
      WorldSettings ws;
      ws.solver = name;
      World w = test::makeWorld(s.name, 60, 1e-6, 1, 0.0, ws);
      const StepReport r = w.step();
      EXPECT_TRUE(r.diverged) << name << " took anisotropic friction";
      EXPECT_NE(r.divergence.find("takes isotropic friction only"), std::string::npos)
          << r.divergence;
      continue;
    }
    // The sphere scenes at 27 spheres, the cables at 64 and 32 segments, a coarse 2-piece beam, a
    // coarse soft ball, mat and gripper keep the solvers x every scene short (PGS's Delassus build
    // on the full beam's 370-DOF pieces alone takes minutes). The LCP solvers factor their dense
    // step matrix whole (Lemke 1.5 s a step on stir's 630 variables): 8 spheres there, and 8 wound
    // cable links (PATH: 60 s at 32).  The dish stack: a bowl pair at 16 triangles round (one
    // bowl on the floor for the LCP solvers); the bolt and nut at 48 columns a turn (the fewest
    // its clearance allows is 35); the Panda's bowls at 16 triangles round; 9 poured particles
    // (3 for the LCP solvers).
    const std::string spheres = dense_lcp ? ":spheres=8" : ":spheres=27";
    const std::string spec =
        s.name == "granular" || s.name == "stir" ? s.name + spheres
        : s.name == "cable"                      ? "cable:segments=64"
        : s.name == "cablewind"   ? (dense_lcp ? "cablewind:segments=8" : "cablewind:segments=32")
        : s.name == "spherecube"  ? "spherecube:side=3"
        : s.name == "softball"    ? "softball:cells=3"
        : s.name == "softmat"     ? "softmat:cells=3"
        : s.name == "softgripper" ? "softgripper:cells=4"
        : s.name == "beam"        ? "beam:cells=6,pieces=2,across=2"
        : s.name == "dishstack"
            ? (dense_lcp ? "dishstack:pieces=1,segments=8" : "dishstack:pieces=2,segments=16")
        : s.name == "boltnut" ? "boltnut:segments=48"
        : s.name == "dishes"  ? "dishes:segments=16"
        : s.name == "pouring" ? (dense_lcp ? "pouring:particles=3" : "pouring:particles=9")
                              : s.name;
    // 60 iterations, except on the stiff wound cable, at its scene's 200 (APGD lets the chain
    // sink into the floor at 60).
    const int iterations = s.name == "cablewind" ? s.default_iterations : 60;
    WorldSettings ws;
    ws.solver = name;
    ws.solver_settings.max_iterations = iterations;
    World w = test::makeWorld(spec, iterations, 1e-6, 1, 0.0, ws);
    for (int k = 0; k < steps; ++k) {
      const StepReport r = w.step();
      if (!r.diverged) continue;
      // The Table II baselines may genuinely fail (the trust-region dogleg stalls at kinks and
      // lets the Panda push spheres 14 mm deep on stir): then the World must have detected and
      // named it, and refuse to go on.  So may the Jacobi-type methods (projected Jacobi on the
      // NCP or on the LCP, the LCP's fixed-point iteration) on
      // the FEM bodies (the beam, the soft ball and the gripper's fingers pressed from two sides)
      // and the stiff wound cable, whose rows couple strongly (the ICRA paper's Table I: PJ fails
      // on cable and beam).  Every other solver must get through.
      // Projected Jacobi and FBIC fail on the dish stack, whose two bowls touch through about a
      // hundred parallel contacts: Jacobi sums each contact's correction as if it were alone
      // (PJ: the bowl flies off); FBIC's alternation between the groups and the interface does
      // not settle within its k_max (the bowl sinks 5 mm into the floor).  The two Jacobi
      // methods blow the nut off its bolt the same way (about 60 contacts on one body).
      EXPECT_TRUE(name == "ssn" || name == "tr-dogleg" ||
                  ((name == "pj" || name == "lcp-pj" || name == "lcp-fp") &&
                   (s.name == "beam" || s.name == "softball" || s.name == "softgripper" ||
                    s.name == "cablewind")) ||
                  ((name == "pj" || name == "fbic") && s.name == "dishstack") ||
                  ((name == "pj" || name == "lcp-pj") && s.name == "boltnut"))
          << name << " on " << spec << ": " << r.divergence;
      EXPECT_FALSE(r.divergence.empty());
      EXPECT_THROW(w.step(), std::logic_error);
      break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SolverRegistry, EverySolver, ::testing::ValuesIn(solverNames()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(SolverRegistry, UnknownNameListsTheKnownOnes) {
  try {
    makeSolver("nosuch");
    FAIL();
  } catch (const std::invalid_argument& e) {
    for (const std::string& name : solverNames())
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(SolverRegistry, RegistersRefusesDuplicatesAndForgets) {
  const auto pgs = [] { return makeSolver("pgs"); };
  registerSolver({"my-pgs", SolverKind::NewtonType, "ncp", "a plugin", pgs});
  EXPECT_EQ(solverNames().back(), "my-pgs");
  EXPECT_TRUE(isNewtonTypeSolver("my-pgs"));
  EXPECT_EQ(makeSolver("my-pgs")->name(), "pgs");
  EXPECT_THROW(registerSolver({"my-pgs", SolverKind::FirstOrder, "ncp", "", pgs}),
               std::invalid_argument);
  EXPECT_TRUE(unregisterSolver("my-pgs"));
  EXPECT_FALSE(unregisterSolver("my-pgs"));
  EXPECT_EQ(findSolver("my-pgs"), nullptr);
  EXPECT_THROW(makeSolver("my-pgs"), std::invalid_argument);
  EXPECT_THROW(registerSolver({"pgs", SolverKind::FirstOrder, "ncp", "", pgs}),
               std::invalid_argument);
  EXPECT_THROW(registerSolver({"", SolverKind::FirstOrder, "ncp", "", pgs}), std::invalid_argument);
  EXPECT_THROW(registerSolver({"no-factory", SolverKind::FirstOrder, "ncp", "", nullptr}),
               std::invalid_argument);
}

TEST(SolverRegistry, KindsAndFormulationsAreThePapers) {
  const std::set<std::string> newton = {"nnewton",       "canal",  "ssn",       "tr-dogleg",
                                        "bpp",           "pgs-sm", "schur-bpp", "schur-pgs-sm",
                                        "fbic",          "lemke",  "path",      "fischer-newton",
                                        "minmap-newton", "lcp-ip"};
  const std::set<std::string> box = {"bpp",       "pgs-sm",       "box-pgs",
                                     "schur-bpp", "schur-pgs-sm", "fbic"};
  const std::set<std::string> lcp = {"lemke",  "path",    "fischer-newton", "minmap-newton",
                                     "lcp-ip", "lcp-pgs", "lcp-pj",         "lcp-fp"};
  for (const SolverEntry& e : solverRegistry()) {
    EXPECT_EQ(e.kind == SolverKind::NewtonType, newton.count(e.name) == 1) << e.name;
    EXPECT_EQ(e.formulation, box.count(e.name) == 1   ? "box-mlcp"
                             : lcp.count(e.name) == 1 ? "lcp"
                             : e.name == "cond"       ? "nodal"
                                                      : "ncp")
        << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
  }
}

}  // namespace
}  // namespace subsim
