// The `subsim` Python module (pybind11): python/README in docs/python.md.  Arrays in and out
// are NumPy float64 arrays in SI units (m, m/s, rad/s, N, N m; impulses in N s); what comes out is
// a copy (a World's state is replaced whole by set_state, so a view into it could dangle).  C++
// errors arrive as Python exceptions with the command line's messages: bad input as ValueError
// (IndexError for an index out of range), files that cannot be read or written as RuntimeError,
// a diverging step as subsim.SimulationDiverged.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <sstream>

#include "python_world.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/io/scene_file.hpp"
#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/solvers/solver.hpp"

namespace py = pybind11;

namespace subsim::python {
namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// A rows x cols array filled by fill(i, row) (row: cols doubles).
template <class Fill>
Array matrix(int rows, int cols, Fill fill) {
  Array a({rows, cols});
  auto m = a.mutable_unchecked<2>();
  for (int i = 0; i < rows; ++i) fill(i, m.mutable_data(i, 0));
  return a;
}

/// The `name` of each of `items` (bodies, robots, deformables).
template <class T>
std::vector<std::string> names(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const T& item : items) out.push_back(item.name);
  return out;
}

/// Deformable d's mesh nodes, one row each from its home copy in `per_piece` (State::fem_x or
/// fem_v).
Array deformableNodeRows(const World& world, int d, const std::vector<VecX>& per_piece) {
  const DeformableBody& body = world.model().deformables[d];
  return matrix(body.rest_mesh.numNodes(), 3, [&](int n, double* r) {
    const auto [piece, local] = body.node_home[n];
    std::copy_n(per_piece[body.first_piece + piece].data() + 3 * local, 3, r);
  });
}

Array vector(const VecX& v) {
  Array a(v.size());
  std::copy_n(v.data(), v.size(), a.mutable_data());
  return a;
}

/// `a` as `rows` x `cols` finite doubles (cols 0: a vector of `rows`), else ValueError naming
/// `what` and the shape expected.
std::vector<double> readMatrix(const Array& a, int rows, int cols, const std::string& what) {
  const bool fits = cols == 0 ? (a.ndim() == 1 && a.shape(0) == rows)
                              : (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols);
  if (!fits) {
    std::ostringstream got;
    for (py::ssize_t k = 0; k < a.ndim(); ++k) got << (k ? ", " : "") << a.shape(k);
    throw std::invalid_argument(what + ": expected shape (" + std::to_string(rows) +
                                (cols == 0 ? ",)" : ", " + std::to_string(cols) + ")") + ", got (" +
                                got.str() + ")");
  }
  std::vector<double> out(a.data(), a.data() + a.size());
  for (double x : out)
    if (!std::isfinite(x)) throw std::invalid_argument(what + ": values must be finite");
  return out;
}

VecX readVector(const Array& a, int size, const std::string& what) {
  const std::vector<double> v = readMatrix(a, size, 0, what);
  return Eigen::Map<const VecX>(v.data(), size);
}

Vec3 readVec3(const Array& a, const std::string& what) {
  const std::vector<double> v = readMatrix(a, 3, 0, what);
  return Vec3(v[0], v[1], v[2]);
}

/// Solver options as text, from a dict of names to numbers, booleans or strings.
SolverOptionValues optionsOf(const py::dict& options) {
  SolverOptionValues out;
  for (const auto& [key, value] : options) {
    std::string text;
    if (py::isinstance<py::bool_>(value))
      text = value.cast<bool>() ? "true" : "false";
    else
      text = py::str(value).cast<std::string>();
    out.push_back({py::str(key).cast<std::string>(), text});
  }
  return out;
}

py::dict metricsDict(const StepProblem& p, const StepSolution& s) {
  const StepMetrics m = evaluateStep(p, s);
  py::dict d;
  d["constraints"] = m.constraints;
  d["contacts"] = m.contacts;
  d["constraint_residual"] = m.constraint_residual;
  d["accuracy"] = accuracyOf(m.constraint_residual);
  d["contact_fb_residual"] = m.contact_fb_residual;
  d["accuracy_fb"] = accuracyOf(m.contact_fb_residual);
  d["natural_map_error"] = m.contact_natural_map_error;
  d["dynamics_residual"] = m.dynamics_residual;
  d["bilateral_residual"] = m.bilateral_residual;
  return d;
}

py::dict reportDict(const StepReport& r) {
  py::dict d;
  d["contacts"] = r.contacts;
  d["constraints"] = r.constraints;
  d["iterations"] = r.iterations;
  d["residual"] = r.residual;
  d["status"] = solveStatusName(r.solve_status);
  d["solver_ms"] = r.solver_ms;
  d["solver_setup_ms"] = r.solver_setup_ms;
  d["step_ms"] = r.step_ms;
  d["collision_ms"] = r.collision_ms;
  d["assembly_ms"] = r.assembly_ms;
  d["max_penetration"] = r.max_penetration;
  return d;
}

/// A recorded problem and the warm start its solver was given.
struct Problem {
  RecordedProblem recorded;
};

struct Solution {
  StepSolution solution;
  py::dict metrics;
};

Solution solveProblem(const Problem& problem, const std::string& solver, int iterations,
                      double tolerance, int threads, const py::dict& options, bool warm_start,
                      bool history) {
  checkSolverSettings(iterations, tolerance, threads);
  const std::unique_ptr<Solver> s = makeSolver(solver, optionsOf(options));
  SolverSettings settings;
  settings.max_iterations = iterations;
  settings.tolerance = tolerance;
  settings.threads = threads;
  settings.record_history = history;
  Solution out;
  if (warm_start) out.solution = problem.recorded.warm_start;
  {
    py::gil_scoped_release release;
    s->solve(problem.recorded.problem, settings, out.solution);
  }
  out.metrics = metricsDict(problem.recorded.problem, out.solution);
  return out;
}

void bindProblems(py::module_& m) {
  py::class_<Problem>(m, "Problem",
                      "One step's solver problem (the StepProblem every solver reads) and the warm "
                      "start its solver was given: World.last_problem(), read_problems().")
      .def_property_readonly("num_dof",
                             [](const Problem& p) { return p.recorded.problem.numDof(); })
      .def_property_readonly("num_rows",
                             [](const Problem& p) { return p.recorded.problem.numRows(); })
      .def_property_readonly("num_constraints",
                             [](const Problem& p) { return p.recorded.problem.numConstraints(); })
      .def_property_readonly("num_contacts",
                             [](const Problem& p) { return p.recorded.problem.numContacts(); })
      .def_property_readonly("num_subsystems",
                             [](const Problem& p) { return p.recorded.problem.numSubsystems(); })
      .def_property_readonly("dt", [](const Problem& p) { return p.recorded.problem.dt; })
      .def(
          "hash", [](const Problem& p) { return hex64(problemHash(p.recorded.problem)); },
          "The problem's hash (hex), as `subsim solve` prints it: equal problems, equal hashes.")
      .def("solve", &solveProblem, py::arg("solver") = "subadmm", py::arg("iterations") = 100,
           py::arg("tolerance") = 1e-6, py::arg("threads") = 1,
           py::arg("solver_options") = py::dict(), py::arg("warm_start") = true,
           py::arg("history") = false,
           "Solves with `solver` (subsim.solvers() lists them and their options) from the recorded "
           "warm start (or cold).  Returns a Solution with the common judge's metrics.")
      .def("__repr__", [](const Problem& p) {
        const StepProblem& q = p.recorded.problem;
        return "<subsim.Problem " + std::to_string(q.numDof()) + " DOF, " +
               std::to_string(q.numConstraints()) + " constraints, " +
               std::to_string(q.numContacts()) + " contacts>";
      });

  py::class_<Solution>(m, "Solution", "What a solver returned for a Problem.")
      .def_property_readonly(
          "impulses", [](const Solution& s) { return vector(s.solution.lambda); },
          "lambda, every constraint row (N s)")
      .def_property_readonly(
          "vhat", [](const Solution& s) { return vector(s.solution.vhat); },
          "the velocities the step solves for, every DOF")
      .def_property_readonly("iterations",
                             [](const Solution& s) { return s.solution.stats.iterations; })
      .def_property_readonly(
          "outer_iterations", [](const Solution& s) { return s.solution.stats.outer_iterations; },
          "the AL loops of canal, ssn and tr-dogleg (Newton iterations are `iterations`); 0 for "
          "solvers with one loop")
      .def_property_readonly(
          "inner_unconverged", [](const Solution& s) { return s.solution.stats.inner_unconverged; },
          "AL loops of canal, ssn and tr-dogleg whose Newton solve ran to the solver's max_inner "
          "without reaching its threshold; 0 for solvers with one loop")
      .def_property_readonly(
          "residual", [](const Solution& s) { return s.solution.stats.residual; },
          "the solver's own stopping residual (see residual_name)")
      .def_property_readonly(
          "residual_name",
          [](const Solution& s) { return std::string(s.solution.stats.residual_name); })
      .def_property_readonly(
          "status", [](const Solution& s) { return solveStatusName(s.solution.stats.status); })
      .def_property_readonly("solve_ms",
                             [](const Solution& s) { return s.solution.stats.solve_ms; })
      .def_property_readonly("setup_ms",
                             [](const Solution& s) { return s.solution.stats.setup_ms; })
      .def_property_readonly("history",
                             [](const Solution& s) {
                               const DoubleBuffer& h = s.solution.stats.residual_history;
                               return std::vector<double>(h.begin(), h.end());
                             })
      .def_readonly("metrics", &Solution::metrics,
                    "the common judge (metrics/): constraint_residual, accuracy (-log10 of it), "
                    "contact_fb_residual, accuracy_fb, natural_map_error, dynamics_residual, "
                    "bilateral_residual");

  m.def(
      "read_problems",
      [](const std::string& path) {
        ProblemFile f = readProblemFile(path);
        py::dict info;
        info["scene"] = f.info.scene;
        info["solver"] = f.info.source_solver;
        info["dt"] = f.info.dt;
        std::vector<Problem> problems;
        for (RecordedProblem& r : f.problems)
          problems.push_back({RecordedProblem{std::move(r.problem), std::move(r.warm_start), {}}});
        return py::make_tuple(problems, info);
      },
      py::arg("path"),
      "Reads a problem file (docs/problem-format.md): (list of Problem, dict of scene, solver, "
      "dt).  RuntimeError naming the file and what is wrong with it.");
  m.def(
      "write_problems",
      [](const std::string& path, const std::vector<Problem>& problems, const std::string& scene,
         const std::string& solver, double dt) {
        std::vector<RecordedProblem> recorded;
        for (const Problem& p : problems) recorded.push_back(p.recorded);
        writeProblemFile(path, ProblemFileInfo{scene, solver, dt}, recorded);
      },
      py::arg("path"), py::arg("problems"), py::arg("scene") = "", py::arg("solver") = "",
      py::arg("dt") = 0.0,
      "Writes problems (from World.last_problem() or read_problems()) to a sealed problem file "
      "that `subsim solve` and read_problems() read.");
}

void bindWorld(py::module_& m) {
  py::class_<State>(m, "State",
                    "A World's whole state, warm start included: World.set_state() continues "
                    "from it bit for bit.")
      .def_readonly("time", &State::time)
      .def(
          "hash", [](const State& s) { return hex64(s.hash()); },
          "The state's hash (hex), as `subsim run --json` prints final_state_hash.");

  py::class_<StepReport>(m, "StepReport", "What one step did.")
      .def_readonly("contacts", &StepReport::contacts)
      .def_readonly("constraints", &StepReport::constraints)
      .def_readonly("iterations", &StepReport::iterations)
      .def_readonly("residual", &StepReport::residual, "the solver's own stopping residual")
      .def_property_readonly("status",
                             [](const StepReport& r) { return solveStatusName(r.solve_status); })
      .def_readonly("solver_ms", &StepReport::solver_ms)
      .def_readonly("solver_setup_ms", &StepReport::solver_setup_ms)
      .def_readonly("step_ms", &StepReport::step_ms)
      .def_readonly("collision_ms", &StepReport::collision_ms,
                    "of step_ms, collision detection (rigid and deformable)")
      .def_readonly("assembly_ms", &StepReport::assembly_ms,
                    "of step_ms, assembly: the problem, its finiteness check and the warm start")
      .def_readonly("max_penetration", &StepReport::max_penetration, "m")
      .def("as_dict", &reportDict)
      .def("__repr__", [](const StepReport& r) {
        return "<subsim.StepReport " + std::to_string(r.contacts) + " contacts, " +
               std::to_string(r.iterations) + " iterations, " + solveStatusName(r.solve_status) +
               ">";
      });

  using W = PythonWorld;
  py::class_<W>(m, "World",
                "A simulation: a scene file or built-in scene (subsim.scenarios()) stepped by a "
                "solver (subsim.solvers()).  Unset solver settings come from the scene file's "
                "solver section, then the scene's defaults, as in `subsim run`.")
      .def(py::init([](const std::string& scene, std::optional<std::string> solver,
                       std::optional<int> iterations, std::optional<double> tolerance, int threads,
                       const py::dict& solver_options, std::optional<double> dt) {
             cli::RunRequest r;
             r.solver = std::move(solver);
             r.iterations = iterations;
             r.tolerance = tolerance;
             r.threads = threads;
             r.solver_options = optionsOf(solver_options);
             return std::make_unique<W>(scene, r, dt);
           }),
           py::arg("scene"), py::arg("solver") = py::none(), py::arg("iterations") = py::none(),
           py::arg("tolerance") = py::none(), py::arg("threads") = 1,
           py::arg("solver_options") = py::dict(), py::arg("dt") = py::none())
      .def_property_readonly("scene", &W::scene)
      .def_property_readonly("solver", [](const W& w) { return w.world().settings().solver; })
      .def_property_readonly(
          "iterations",
          [](const W& w) { return w.world().settings().solver_settings.max_iterations; })
      .def_property_readonly(
          "tolerance", [](const W& w) { return w.world().settings().solver_settings.tolerance; })
      .def_property_readonly("default_steps", &W::defaultSteps,
                             "the scene's step count (what `subsim run` runs without --steps)")
      .def_property_readonly("note", &W::note)
      .def_property_readonly("dt", [](const W& w) { return w.world().model().dt; })
      .def_property_readonly("time", [](const W& w) { return w.world().state().time; })
      .def_property_readonly("dof", [](const W& w) { return w.world().dof(); })
      .def_property_readonly(
          "num_bodies",
          [](const W& w) { return static_cast<int>(w.world().model().bodies.size()); })
      .def_property_readonly("body_names",
                             [](const W& w) { return names(w.world().model().bodies); })
      .def_property_readonly(
          "masses",
          [](const W& w) {
            const std::vector<Body>& bodies = w.world().model().bodies;
            Array a(static_cast<py::ssize_t>(bodies.size()));
            for (size_t i = 0; i < bodies.size(); ++i)
              a.mutable_data()[i] = bodies[i].kind == BodyKind::Dynamic ? bodies[i].mass : 0.0;
            return a;
          },
          "(bodies,) masses in kg of the free rigid bodies; 0 for static and kinematic bodies "
          "and robot links (a robot's mass is in its joint space).")
      .def_property_readonly("robot_names",
                             [](const W& w) { return names(w.world().model().robots); })
      .def(
          "step",
          [](W& w, int n) {
            py::gil_scoped_release release;
            return w.step(n);
          },
          py::arg("n") = 1,
          "Advances n steps of dt; returns the last step's StepReport.  SimulationDiverged when "
          "a step diverges (too fast, too deep, a failed solve).")
      .def(
          "metrics",
          [](const W& w) { return metricsDict(w.world().lastProblem(), w.world().lastSolution()); },
          "The common judge on the last step (the fields `subsim run --json` averages).")
      .def_property(
          "positions",
          [](const W& w) {
            const State& s = w.world().state();
            return matrix(s.numBodies(), 3,
                          [&](int i, double* r) { std::copy_n(s.pose[i].position.data(), 3, r); });
          },
          [](W& w, const Array& a) {
            State s = w.world().state();
            const std::vector<double> v = readMatrix(a, s.numBodies(), 3, "positions");
            for (int i = 0; i < s.numBodies(); ++i)
              s.pose[i].position = Vec3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
            w.world().setState(s);
          },
          "(bodies, 3) centre-of-mass positions (m).  Robot links follow robot_q: set that.")
      .def_property(
          "orientations",
          [](const W& w) {
            const State& s = w.world().state();
            return matrix(s.numBodies(), 4, [&](int i, double* r) {
              const Quat& q = s.pose[i].orientation;
              r[0] = q.w();
              r[1] = q.x();
              r[2] = q.y();
              r[3] = q.z();
            });
          },
          [](W& w, const Array& a) {
            State s = w.world().state();
            const std::vector<double> v = readMatrix(a, s.numBodies(), 4, "orientations");
            for (int i = 0; i < s.numBodies(); ++i) {
              Quat q(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
              if (!(q.norm() > 0.0))
                throw std::invalid_argument("orientations: row " + std::to_string(i) +
                                            " is not a rotation (zero quaternion)");
              s.pose[i].orientation = q.normalized();
            }
            w.world().setState(s);
          },
          "(bodies, 4) orientations as unit quaternions (w, x, y, z).")
      .def_property(
          "linear_velocities",
          [](const W& w) {
            const State& s = w.world().state();
            return matrix(s.numBodies(), 3, [&](int i, double* r) {
              std::copy_n(s.linear_velocity[i].data(), 3, r);
            });
          },
          [](W& w, const Array& a) {
            State s = w.world().state();
            const std::vector<double> v = readMatrix(a, s.numBodies(), 3, "linear_velocities");
            for (int i = 0; i < s.numBodies(); ++i)
              s.linear_velocity[i] = s.midpoint_linear_velocity[i] =
                  Vec3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
            w.world().setState(s);
          },
          "(bodies, 3) centre-of-mass velocities (m/s, world frame).")
      .def_property(
          "angular_velocities",
          [](const W& w) {
            const State& s = w.world().state();
            return matrix(s.numBodies(), 3, [&](int i, double* r) {
              std::copy_n(s.angular_velocity[i].data(), 3, r);
            });
          },
          [](W& w, const Array& a) {
            State s = w.world().state();
            const std::vector<double> v = readMatrix(a, s.numBodies(), 3, "angular_velocities");
            for (int i = 0; i < s.numBodies(); ++i)
              s.angular_velocity[i] = s.midpoint_angular_velocity[i] =
                  Vec3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
            w.world().setState(s);
          },
          "(bodies, 3) angular velocities (rad/s, world frame).")
      .def(
          "robot_q",
          [](const W& w, int r) {
            w.checkRobot(r);
            return vector(w.world().state().robot_q[r]);
          },
          py::arg("robot") = 0, "The robot's generalised coordinates q (nq).")
      .def_property_readonly("deformable_names",
                             [](const W& w) { return names(w.world().model().deformables); })
      .def(
          "deformable_nodes",
          [](const W& w, int d) {
            w.checkDeformable(d);
            return deformableNodeRows(w.world(), d, w.world().state().fem_x);
          },
          py::arg("deformable") = 0,
          "(nodes, 3) positions (m) of the FEM body's mesh nodes, in the rest mesh's order (a "
          "node that several pieces hold has one position: their copies are kept together).")
      .def(
          "deformable_node_velocities",
          [](const W& w, int d) {
            w.checkDeformable(d);
            return deformableNodeRows(w.world(), d, w.world().state().fem_v);
          },
          py::arg("deformable") = 0,
          "(nodes, 3) velocities (m/s) of the FEM body's mesh nodes, as deformable_nodes.")
      .def(
          "robot_v",
          [](const W& w, int r) {
            w.checkRobot(r);
            return vector(w.world().state().robot_v[r]);
          },
          py::arg("robot") = 0, "The robot's generalised velocities v (nv).")
      .def(
          "set_robot_state",
          [](W& w, int r, const Array& q, const std::optional<Array>& v) {
            w.checkRobot(r);
            State s = w.world().state();
            s.robot_q[r] = readVector(q, static_cast<int>(s.robot_q[r].size()), "q");
            if (v) s.robot_v[r] = readVector(*v, static_cast<int>(s.robot_v[r].size()), "v");
            w.world().setState(s);
          },
          py::arg("robot"), py::arg("q"), py::arg("v") = py::none(),
          "Sets the robot's q (nq) and, when given, v (nv); its links follow at the next step.")
      .def(
          "set_body_force",
          [](W& w, int body, const Array& force, const std::optional<Array>& torque) {
            w.setBodyForce(body, readVec3(force, "force"),
                           torque ? readVec3(*torque, "torque") : Vec3::Zero());
          },
          py::arg("body"), py::arg("force"), py::arg("torque") = py::none(),
          "External force (N) and torque (N m), world frame, at the body's centre of mass, "
          "applied at every step until changed.")
      .def(
          "set_joint_torque",
          [](W& w, int r, const Array& tau) {
            w.checkRobot(r);
            w.setJointTorque(
                r, readVector(tau, w.world().model().robots[r].articulation.nv(), "joint torque"));
          },
          py::arg("robot"), py::arg("tau"),
          "Generalised forces (nv: N m, N) on the robot's joints beside its drives and gravity, "
          "applied at every step until changed.")
      .def(
          "set_joint_target",
          [](W& w, int r, const Array& q, const std::optional<Array>& v) {
            w.checkRobot(r);
            const Articulation& art = w.world().model().robots[r].articulation;
            w.setJointTarget(r, readVector(q, art.nq(), "joint target q"),
                             v ? readVector(*v, art.nv(), "joint target v") : VecX());
          },
          py::arg("robot"), py::arg("q"), py::arg("v") = py::none(),
          "Position (nq) and velocity (nv; default 0) targets of the robot's joint drives in "
          "place of the scene's trajectory, at every step until changed.")
      .def("clear_inputs", &W::clearInputs,
           "Drops every body force, joint torque and joint target (the scene's trajectories "
           "drive the robots again).")
      .def(
          "contacts",
          [](const W& w) {
            const World& world = w.world();
            const std::vector<AssembledContact>& c = world.lastContacts();
            const StepProblem& p = world.lastProblem();
            const VecX& lambda = world.lastSolution().lambda;
            const int n = static_cast<int>(c.size());
            py::array_t<int> bodies({n, 2});
            auto b = bodies.mutable_unchecked<2>();
            for (int k = 0; k < n; ++k) {
              b(k, 0) = c[k].body_a;
              b(k, 1) = c[k].body_b;
            }
            py::dict d;
            d["bodies"] = bodies;
            d["points"] = matrix(
                n, 3, [&](int k, double* r) { std::copy_n(c[k].geometry.point.data(), 3, r); });
            d["normals"] = matrix(
                n, 3, [&](int k, double* r) { std::copy_n(c[k].geometry.normal.data(), 3, r); });
            Array gaps(n);
            for (int k = 0; k < n; ++k) gaps.mutable_data()[k] = c[k].geometry.gap;
            d["gaps"] = gaps;
            d["impulses"] = matrix(n, 3, [&](int k, double* r) {
              const int j = c[k].constraint;
              const bool solved = j >= 0 && lambda.size() == p.numRows();
              for (int q = 0; q < 3; ++q)
                r[q] = solved ? lambda[p.constraints[j].row_offset + q] : 0.0;
            });
            return d;
          },
          "The last step's rigid contacts: bodies (k, 2) int, points (k, 3) and normals (k, 3) "
          "in the world frame (the normal points from the second body towards the first: "
          "moving the first along it separates them), gaps (k,) in m (negative: penetration) "
          "and impulses (k, 3) in N s as (normal, t1, t2), the normal one pushing them apart.")
      .def(
          "state", [](const W& w) { return w.world().state(); },
          "A copy of the whole state (for save / restore, e.g. many rollouts from one state).")
      .def(
          "set_state", [](W& w, const State& s) { w.world().setState(s); }, py::arg("state"),
          "Restores a state this World (or another of the same scene) reported; stepping from "
          "it gives the same bits as the run that reported it.")
      .def(
          "state_hash", [](const W& w) { return hex64(w.world().state().hash()); },
          "The state's hash (hex), `subsim run --json`'s final_state_hash.")
      .def(
          "kinetic_energy", [](const W& w) { return w.world().kineticEnergy(); }, "J")
      .def(
          "last_problem",
          [](const W& w) {
            return Problem{RecordedProblem{w.world().lastProblem(), w.world().lastWarmStart(), {}}};
          },
          "The last step's problem with the warm start its solver was given (Problem.solve "
          "re-solves it with any solver; write_problems saves it).")
      .def("record", &W::startRecording, py::arg("path"),
           "Records every following step to an HDF5 recording (`subsim replay`, `subsim plot`).")
      .def("stop_recording", &W::stopRecording, "Closes and seals the recording.")
      .def("__repr__", [](const W& w) {
        return "<subsim.World " + w.scene() + ", " + w.world().settings().solver +
               ", t = " + std::to_string(w.world().state().time) + " s>";
      });
}

void bindCatalogues(py::module_& m) {
  m.def(
      "scenarios",
      [] {
        py::list out;
        for (const Scenario& s : builtinScenarios()) {
          py::list params;
          for (const ScenarioParameter& p : s.parameters) {
            py::dict d;
            d["name"] = p.name;
            d["default"] = p.default_value;
            d["min"] = p.min;
            d["max"] = p.max;
            d["integer"] = p.integer;
            d["help"] = p.help;
            params.append(d);
          }
          py::dict d;
          d["name"] = s.name;
          d["description"] = s.description;
          d["default_steps"] = s.default_steps;
          d["parameters"] = params;
          out.append(d);
        }
        return out;
      },
      "The built-in scenes (World('name:param=value,...')) with their parameters.");
  m.def(
      "solvers",
      [] {
        py::list out;
        for (const SolverEntry& e : solverRegistry()) {
          py::list options;
          for (const OptionInfo& o : e.options) {
            py::dict d;
            d["name"] = o.name;
            d["default"] = o.default_value;
            d["unit"] = o.unit;
            d["expected"] = o.expected;
            d["doc"] = o.doc;
            options.append(d);
          }
          py::dict d;
          d["name"] = e.name;
          d["kind"] = e.kind == SolverKind::NewtonType ? "newton" : "first-order";
          d["formulation"] = e.formulation;
          d["description"] = e.description;
          d["options"] = options;
          out.append(d);
        }
        return out;
      },
      "The registered solvers (World(solver=...), Problem.solve) with their options.");
}

}  // namespace
}  // namespace subsim::python

PYBIND11_MODULE(subsim, m) {
  using namespace subsim;
  m.doc() =
      "subsim: contact-rich multibody simulation (SubADMM, CANAL, COND, Schur substructuring "
      "and their baselines).  World steps a scene; Problem re-solves a recorded step with any "
      "solver.  Units: SI; impulses in N s.";
  // Every array subsim hands out is NumPy's: say which Python lacks it and what to do, rather
  // than "No module named 'numpy'" from deep inside the import.
  try {
    py::module_::import("numpy");
  } catch (py::error_already_set&) {
    const std::string python = py::str(py::module_::import("sys").attr("executable"));
    throw py::import_error(
        "subsim needs NumPy, which this Python (" + python +
        ") cannot import: run subsim with /usr/bin/python3, Debian's, where scripts/setup.sh "
        "installs python3-numpy, or add /usr/lib/python3/dist-packages to PYTHONPATH for another "
        "CPython 3.11");
  }
  py::register_exception<python::SimulationDiverged>(m, "SimulationDiverged", PyExc_RuntimeError);
  // A bad scene file reads as bad input, like every other.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SceneError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::logic_error& e) {
      // invalid_argument, out_of_range (pybind11's own mapping of them runs after this one)
      if (dynamic_cast<const std::out_of_range*>(&e) != nullptr)
        PyErr_SetString(PyExc_IndexError, e.what());
      else if (dynamic_cast<const std::invalid_argument*>(&e) != nullptr)
        PyErr_SetString(PyExc_ValueError, e.what());
      else
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  python::bindCatalogues(m);
  python::bindWorld(m);
  python::bindProblems(m);
}
