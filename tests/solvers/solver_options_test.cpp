// Solver options (solvers/solver_options.hpp): every registered solver's options round-trip
// through the text interface, unknown options and bad values are refused with a message naming
// the solver, the option and what was expected, and an option set as text reaches the solver's
// arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "subsim/solvers/al_newton_solver.hpp"
#include "subsim/solvers/fadmm_solver.hpp"
#include "subsim/solvers/nnewton_solver.hpp"
#include "subsim/solvers/projected_jacobi_solver.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

/// A legal value other than the default, as text.
std::string otherValue(const OptionInfo& o) {
  switch (o.type) {
    case OptionType::Bool:
      return o.default_value == "true" ? "false" : "true";
    case OptionType::Enum:
      for (const std::string& c : o.choices)
        if (c != o.default_value) return c;
      break;
    case OptionType::Int: {
      const long long d = std::stoll(o.default_value);
      return std::to_string(o.range.contains(static_cast<double>(d + 1)) ? d + 1 : d - 1);
    }
    case OptionType::Double: {
      const double d = std::stod(o.default_value);
      for (const double v : {0.5 * d, 2.0 * d, d + 0.25, d - 0.25, 0.5 * (o.range.lowest + d)})
        if (v != d && o.range.contains(v)) return option_text::formatDouble(v);
      break;
    }
  }
  ADD_FAILURE() << "no other legal value for " << o.name;
  return o.default_value;
}

/// Values of the option's type that it refuses.
std::vector<std::string> badValues(const OptionInfo& o) {
  std::vector<std::string> bad = {"", "nosuch", "1 2"};
  switch (o.type) {
    case OptionType::Bool:
      bad.insert(bad.end(), {"yes", "1", "True"});
      break;
    case OptionType::Enum:
      bad.push_back(o.default_value + "x");
      break;
    case OptionType::Int:
      bad.insert(bad.end(),
                 {"1.5", "0x10", std::to_string(static_cast<long long>(o.range.lowest) - 1),
                  std::to_string(static_cast<long long>(o.range.highest) + 1)});
      break;
    case OptionType::Double:
      bad.insert(bad.end(), {"nan", "inf", "1e400", "1,5"});
      if (std::isfinite(o.range.lowest))
        bad.push_back(option_text::formatDouble(o.range.lowest - 1.0));
      if (std::isfinite(o.range.highest))
        bad.push_back(option_text::formatDouble(o.range.highest + 1.0));
      if (o.range.lowest_open) bad.push_back(option_text::formatDouble(o.range.lowest));
      if (o.range.highest_open) bad.push_back(option_text::formatDouble(o.range.highest));
      break;
  }
  return bad;
}

TEST(SolverOptions, EveryOptionOfEverySolverRoundTripsAsText) {
  int options = 0;
  for (const SolverEntry& e : solverRegistry()) {
    const std::unique_ptr<Solver> fresh = makeSolver(e.name);
    for (const OptionInfo& o : e.options) {
      ++options;
      EXPECT_FALSE(o.doc.empty()) << e.name << " " << o.name;
      EXPECT_FALSE(o.unit.empty()) << e.name << " " << o.name;
      // Names in snake_case, the scene files' and the Options structs' spelling.
      EXPECT_EQ(o.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"),
                std::string::npos)
          << o.name;
      EXPECT_EQ(fresh->option(o.name), o.default_value) << e.name << " " << o.name;
      const std::string value = otherValue(o);
      ASSERT_NE(value, o.default_value) << e.name << " " << o.name;
      // Through the registry, and on a solver that exists.
      EXPECT_EQ(makeSolver(e.name, {{o.name, value}})->option(o.name), value)
          << e.name << " " << o.name;
      const std::unique_ptr<Solver> s = makeSolver(e.name);
      s->setOption(o.name, value);
      EXPECT_EQ(s->option(o.name), value) << e.name << " " << o.name;
      s->setOption(o.name, o.default_value);
      EXPECT_EQ(s->option(o.name), o.default_value) << e.name << " " << o.name;
    }
  }
  // subadmm, fadmm, pj, apgd, nnewton, the AL three, the box-MLCP three, the substructuring
  // three, the eight LCP solvers, cond
  EXPECT_EQ(options, 8 + 3 + 1 + 1 + 4 + 3 * 11 + 3 * 5 + 3 * 10 + 8 * 6 + 10);
}

TEST(SolverOptions, LaterValuesOverrideEarlierOnes) {
  EXPECT_EQ(
      makeSolver("fadmm", {{"relaxation", "1.2"}, {"relaxation", "1.25"}})->option("relaxation"),
      "1.25");
}

TEST(SolverOptions, TextSetsTheTypedStruct) {
  const std::unique_ptr<Solver> s = makeSolver("subadmm", {{"adaptive_beta", "false"},
                                                           {"residual", "icra-theta"},
                                                           {"penalty_rule", "trace"},
                                                           {"beta_scale", "0.05"},
                                                           {"relaxation", "1"},
                                                           {"factorization", "dense"},
                                                           {"anderson_window", "+3"},
                                                           {"sparse_min_dof", "96"}});
  const SubadmmOptions& o = static_cast<const SubadmmSolver&>(*s).options();
  EXPECT_FALSE(o.adaptive_beta);
  EXPECT_EQ(o.residual, SubadmmOptions::Residual::IcraTheta);
  EXPECT_EQ(o.penalty_rule, SubadmmOptions::PenaltyRule::Trace);
  EXPECT_EQ(o.beta_scale, 0.05);
  EXPECT_EQ(o.relaxation, 1.0);
  EXPECT_EQ(o.factorization, SubadmmOptions::Factorization::Dense);
  EXPECT_EQ(o.anderson_window, 3);
  EXPECT_EQ(o.sparse_min_dof, 96);
  // The defaults are the typed struct's, which are what the solvers always ran with.
  EXPECT_EQ(makeSolver("pj")->option("omega"), "0.3");
  EXPECT_EQ(static_cast<const ProjectedJacobiSolver&>(*makeSolver("pj", {{"omega", "0.6"}}))
                .options()
                .omega,
            0.6);
  const std::unique_ptr<Solver> nn = makeSolver("nnewton", {{"restart", "7"}});
  EXPECT_EQ(static_cast<const NnewtonSolver&>(*nn).options().restart, 7);
  const std::unique_ptr<Solver> tr = makeSolver("tr-dogleg", {{"kappa", "2.5"}});
  EXPECT_EQ(static_cast<const AlNewtonSolver&>(*tr).options().kappa, 2.5);
  EXPECT_EQ(tr->name(), "tr-dogleg");
}

TEST(SolverOptions, UnknownOptionsNameTheSolverAndItsOptions) {
  try {
    makeSolver("subadmm", {{"rho", "1"}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "solver 'subadmm' has no option 'rho' (its options: adaptive_beta, residual, "
                 "penalty_rule, beta_scale, relaxation, factorization, anderson_window, "
                 "sparse_min_dof)");
  }
  try {
    makeSolver("pgs")->setOption("relaxation", "1");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "solver 'pgs' has no option 'relaxation' (it has none)");
  }
  EXPECT_THROW(makeSolver("pgs-cg")->option("omega"), std::invalid_argument);
  EXPECT_THROW(makeSolver("canal")->option("Kappa"), std::invalid_argument);  // case matters
}

TEST(SolverOptions, BadValuesAreRefusedAndLeaveTheOptionAsItWas) {
  for (const SolverEntry& e : solverRegistry())
    for (const OptionInfo& o : e.options) {
      const std::unique_ptr<Solver> s = makeSolver(e.name);
      for (const std::string& bad : badValues(o)) {
        try {
          s->setOption(o.name, bad);
          ADD_FAILURE() << e.name << " " << o.name << " took '" << bad << "'";
        } catch (const std::invalid_argument& ex) {
          EXPECT_EQ(std::string(ex.what()), "solver '" + e.name + "': option '" + o.name +
                                                "': expected " + o.expected + ", got '" + bad +
                                                "'");
        }
        EXPECT_EQ(s->option(o.name), o.default_value) << e.name << " " << o.name;
      }
    }
}

TEST(SolverOptions, ExpectedValuesInWords) {
  const auto info = [](const char* solver, const char* option) {
    for (const OptionInfo& o : findSolver(solver)->options)
      if (o.name == option) return o;
    ADD_FAILURE() << solver << " " << option;
    return OptionInfo();
  };
  EXPECT_EQ(info("subadmm", "relaxation").expected, "a number in (0, 2)");
  EXPECT_EQ(info("subadmm", "beta_scale").expected, "a number > 0");
  EXPECT_EQ(info("subadmm", "anderson_window").expected, "a whole number from 0 to 8");
  EXPECT_EQ(info("subadmm", "factorization").expected, "per-body or dense");
  EXPECT_EQ(info("subadmm", "adaptive_beta").expected, "true or false");
  EXPECT_EQ(info("pj", "omega").expected, "a number in (0, 1]");
  EXPECT_EQ(info("canal", "kappa").expected, "a number >= 1");
  EXPECT_EQ(info("canal", "inner_ratio").expected, "a number >= 0");
  EXPECT_EQ(info("subadmm", "sparse_min_dof").unit, "DOF");
  EXPECT_EQ(info("subadmm", "relaxation").type, OptionType::Double);
}

// Options set as text change what the solvers compute.
TEST(SolverOptions, ReachTheSolvers) {
  World w = test::worldAfter("granular:spheres=27", 40, 30);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 5);
  SolverSettings s;
  s.max_iterations = 20;
  s.tolerance = 0.0;
  const auto solve = [&](const std::string& name, const SolverOptionValues& options) {
    StepSolution solution = w.lastWarmStart();
    makeSolver(name, options)->solve(p, s, solution);
    return solution;
  };
  // The default is 1.5: stating it changes nothing; 1.0 changes the iterates.
  const StepSolution a = solve("subadmm", {}), b = solve("subadmm", {{"relaxation", "1.5"}}),
                     c = solve("subadmm", {{"relaxation", "1.0"}});
  EXPECT_EQ(a.lambda, b.lambda);
  EXPECT_EQ(a.vhat, b.vhat);
  EXPECT_GT((a.lambda - c.lambda).norm(), 1e-9 * a.lambda.norm());
  EXPECT_GT(
      solve("fadmm", {}).lambda.cwiseNotEqual(solve("fadmm", {{"beta_scale", "3"}}).lambda).count(),
      0);
  EXPECT_GT(solve("pj", {}).lambda.cwiseNotEqual(solve("pj", {{"omega", "0.6"}}).lambda).count(),
            0);

  // NNewton: a GMRES cap of one iteration per Newton step.
  s.max_iterations = 3;
  NnewtonSolver uncapped, capped({.linear_max_iterations = 1});
  StepSolution f = w.lastWarmStart(), g = w.lastWarmStart();
  uncapped.solve(p, s, f);
  const std::unique_ptr<Solver> capped_by_text =
      makeSolver("nnewton", {{"linear_max_iterations", "1"}});
  capped_by_text->solve(p, s, g);
  EXPECT_GT(uncapped.linearIterations(), f.stats.iterations);
  EXPECT_LE(static_cast<const NnewtonSolver&>(*capped_by_text).linearIterations(),
            g.stats.iterations);
  StepSolution h = w.lastWarmStart();
  capped.solve(p, s, h);
  EXPECT_EQ(g.lambda, h.lambda);

  // CANAL: the initial penalty is beta0_scale times the constraints' effective mass, or with
  // penalty_rule=trace times rule (23).
  const std::unique_ptr<Solver> canal = makeSolver("canal", {{"beta0_scale", "2"}, {"kappa", "1"}});
  StepSolution k = w.lastWarmStart();
  canal->solve(p, s, k);
  const double mass = test::effectiveMassScale(p);
  EXPECT_NEAR(static_cast<const AlNewtonSolver&>(*canal).beta(), 2.0 * mass, 1e-9 * mass);
  const std::unique_ptr<Solver> traced =
      makeSolver("canal", {{"beta0_scale", "2"}, {"kappa", "1"}, {"penalty_rule", "trace"}});
  StepSolution t = w.lastWarmStart();
  traced->solve(p, s, t);
  const MatX A = test::denseA(p), J = test::denseJacobian(p);
  EXPECT_NEAR(static_cast<const AlNewtonSolver&>(*traced).beta(), 2.0 * A.trace() / J.squaredNorm(),
              1e-9 * A.trace() / J.squaredNorm());
}

TEST(SolverOptions, WorldSettingsCarryThemToTheWorldsSolver) {
  const auto finalHash = [](const SolverOptionValues& options) {
    WorldSettings ws;
    ws.solver_options = options;
    World w = test::makeWorld("granular:spheres=8", 20, 0.0, 1, 0.0, ws);
    for (int k = 0; k < 30; ++k) w.step();
    return w.state().hash();
  };
  EXPECT_EQ(finalHash({}), finalHash({{"relaxation", "1.5"}, {"adaptive_beta", "true"}}));
  EXPECT_NE(finalHash({}), finalHash({{"relaxation", "1"}}));
  WorldSettings bad;
  bad.solver = "pgs";
  bad.solver_options = {{"relaxation", "1"}};
  EXPECT_THROW(test::makeWorld("granular:spheres=8", 20, 0.0, 1, 0.0, bad), std::invalid_argument);
  World w = test::makeWorld("granular:spheres=8", 20, 0.0);
  w.setSolver("fadmm", {{"relaxation", "1"}});
  EXPECT_EQ(w.settings().solver, "fadmm");
  EXPECT_EQ(w.settings().solver_options, (SolverOptionValues{{"relaxation", "1"}}));
  EXPECT_THROW(w.setSolver("fadmm", {{"relaxation", "2"}}), std::invalid_argument);
}

TEST(SolverOptions, TextForms) {
  EXPECT_EQ(option_text::parseInt("42"), 42);
  EXPECT_EQ(option_text::parseInt("+42"), 42);
  EXPECT_EQ(option_text::parseInt("-3"), -3);
  EXPECT_FALSE(option_text::parseInt("4.0"));
  EXPECT_FALSE(option_text::parseInt(" 4"));
  EXPECT_EQ(option_text::parseDouble("1e-6"), 1e-6);
  EXPECT_EQ(option_text::parseDouble(".5"), 0.5);
  EXPECT_FALSE(option_text::parseDouble("1.5x"));
  EXPECT_FALSE(option_text::parseDouble("-inf"));
  for (const double v : {0.1, 1.0 / 3.0, 1e-300, 12345.678, 1.0 / kTracePenaltyFactor})
    EXPECT_EQ(option_text::parseDouble(option_text::formatDouble(v)), v);
  EXPECT_EQ(option_text::formatDouble(1.5), "1.5");
  EXPECT_EQ(NumberRange::open(0.0, 2.0).describe(), "a number in (0, 2)");
  EXPECT_EQ(NumberRange::positive().describe(), "a number > 0");
  EXPECT_FALSE(NumberRange::open(0.0, 2.0).contains(2.0));
  EXPECT_TRUE(NumberRange::openClosed(0.0, 1.0).contains(1.0));
  EXPECT_FALSE(NumberRange::atLeast(1.0).contains(std::nan("")));
}

}  // namespace
}  // namespace subsim
