#include "subsim/sim/world.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/geometry/signed_distance_shape.hpp"
#include "subsim/math/parallel_team.hpp"
#include "subsim/model/integrator.hpp"

namespace subsim {

namespace {

// Items per thread below which the step's own loops stay on one thread (parallel_team.hpp).
constexpr std::size_t kBodiesPerThread = 512;
constexpr std::size_t kConstraintsPerThread = 1024;

/// A controller's inputs must fit the model: one force and torque per body, and per robot a
/// joint torque and velocity target of nv entries and a position target of nq (or none).
void checkControllerInputs(const Model& model, const BodyForces& f) {
  const size_t bodies = model.bodies.size();
  if (f.force.size() != bodies || f.torque.size() != bodies)
    throw std::invalid_argument(
        "controller: forces and torques must have one entry per body (" + std::to_string(bodies) +
        "), got " + std::to_string(f.force.size()) + " and " + std::to_string(f.torque.size()));
  const auto check = [&](const std::vector<VecX>& per_robot, const char* what, bool positions) {
    if (per_robot.size() > model.robots.size())
      throw std::invalid_argument(std::string("controller: ") + what + " given for " +
                                  std::to_string(per_robot.size()) + " robots; the model has " +
                                  std::to_string(model.robots.size()));
    for (size_t r = 0; r < per_robot.size(); ++r) {
      const Articulation& art = model.robots[r].articulation;
      const int expected = positions ? art.nq() : art.nv();
      if (per_robot[r].size() != 0 && per_robot[r].size() != expected)
        throw std::invalid_argument(std::string("controller: ") + what + " of robot " +
                                    std::to_string(r) + " ('" + model.robots[r].name + "') has " +
                                    std::to_string(per_robot[r].size()) + " entries; expected " +
                                    std::to_string(expected) + (positions ? " (nq)" : " (nv)"));
      if (!per_robot[r].allFinite())
        throw std::invalid_argument(std::string("controller: ") + what + " of robot " +
                                    std::to_string(r) + " is not finite");
    }
  };
  check(f.joint_torque, "joint_torque", false);
  check(f.joint_target_q, "joint_target_q", true);
  check(f.joint_target_v, "joint_target_v", false);
  for (size_t r = 0; r < f.joint_target_v.size(); ++r)
    if (f.joint_target_v[r].size() != 0 &&
        BodyForces::entry(f.joint_target_q, static_cast<int>(r)) == nullptr)
      throw std::invalid_argument("controller: joint_target_v of robot " + std::to_string(r) +
                                  " is given without joint_target_q");
}

double boundingRadius(const Shape& s) {
  switch (s.type) {
    case ShapeType::Sphere:
      return s.radius;
    case ShapeType::Capsule:
      return s.half_length + s.radius;
    case ShapeType::Box:
      return s.half_extents.norm();
    case ShapeType::Cylinder:
      return std::hypot(s.half_length, s.radius);
    case ShapeType::SignedDistance: {
      const Aabb& b = s.field->bounds();
      return b.lower.cwiseAbs().cwiseMax(b.upper.cwiseAbs()).norm();
    }
    case ShapeType::Plane:
      return 0.0;
  }
  return 0.0;
}

/// Bodies the solver moves: rigid dynamic bodies and robot links.
bool simulated(BodyKind kind) {
  return kind == BodyKind::Dynamic || kind == BodyKind::Articulated;
}

// What of the assembled problem is not finite, "" when all is: finite but huge inputs (a gravity,
// velocity or mass near the largest double, a huge time step) overflow in b = M v + h f or in e.
// Only b and e are scanned: they are as long as the DOF and rows, where A can be megabytes.
std::string nonFiniteProblem(const StepProblem& p, const Partition& part, const Model& model) {
  std::ostringstream why;
  for (int s = 0; s < part.numSubsystems(); ++s) {
    const Subsystem& sub = p.subsystems[s];
    bool finite = true;
    for (int i = 0; i < sub.dof; ++i) finite = finite && std::isfinite(p.b[sub.dof_offset + i]);
    if (finite) continue;
    why << "the momentum of ";
    if (!part.bodies[s].empty()) {
      // A subsystem may group several bodies (cable segments): name the first that overflowed.
      int culprit = part.bodies[s].front();
      for (int body : part.bodies[s]) {
        const int o = sub.dof_offset + part.offset_in_subsystem[body];
        bool body_finite = true;
        for (int i = 0; i < 6; ++i) body_finite = body_finite && std::isfinite(p.b[o + i]);
        if (!body_finite) {
          culprit = body;
          break;
        }
      }
      why << "body '" << model.bodies[culprit].name << "'";
    } else if (part.robot_of_subsystem[s] >= 0) {
      why << "robot '" << model.robots[part.robot_of_subsystem[s]].name << "'";
    } else {
      const int piece = part.piece_of_subsystem[s];
      for (const DeformableBody& d : model.deformables)
        if (piece >= d.first_piece && piece < d.first_piece + d.numPieces())
          why << "deformable '" << d.name << "'";
    }
    why << " is not finite (a force, velocity or mass times the time step overflows a double)";
    return why.str();
  }
  for (size_t j = 0; j < p.constraints.size(); ++j) {
    const Constraint& c = p.constraints[j];
    for (int r = 0; r < c.rows; ++r)
      if (!std::isfinite(p.e[c.row_offset + r])) {
        why << "the error term of " << constraintTypeName(c.type) << " constraint " << j
            << " is not finite (a position or velocity overflows a double)";
        return why.str();
      }
  }
  return {};
}

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

World::World(Model model, WorldSettings settings)
    : World(std::make_shared<const Model>(std::move(model)), std::move(settings)) {}

World::World(std::shared_ptr<const Model> model, WorldSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)) {
  if (!model_) throw std::invalid_argument("World: no model");
  model_->validate();
  if (!settings_.partitioner) settings_.partitioner = makeOneBodyPerSubsystemPartitioner();
  partition_ = settings_.partitioner->partition(*model_);
  state_ = State::initial(*model_);
  solver_ = makeSolver(settings_.solver, settings_.solver_options);
  detector_ = makeSweepAndPruneDetector();
  deformable_collider_ = std::make_unique<DeformableCollider>(*model_);
  for (const Joint& j : model_->joints)
    if (!j.collide_connected && j.body_b >= 0)
      joined_bodies_.emplace_back(std::min(j.body_a, j.body_b), std::max(j.body_a, j.body_b));
  // A robot does not collide with itself (its collision capsules overlap at the joints; the joint
  // limits keep its links apart).
  for (const Robot& robot : model_->robots)
    for (size_t a = 0; a < robot.link_body.size(); ++a)
      for (size_t b = a + 1; b < robot.link_body.size(); ++b)
        joined_bodies_.emplace_back(std::min(robot.link_body[a], robot.link_body[b]),
                                    std::max(robot.link_body[a], robot.link_body[b]));
  std::sort(joined_bodies_.begin(), joined_bodies_.end());
  shape_extent_.resize(model_->shapes.size());
  double smallest = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < model_->shapes.size(); ++k) {
    const BodyShape& s = model_->shapes[k];
    shape_extent_[k] = s.local_pose.position.norm() + boundingRadius(s.shape);
    if (simulated(model_->bodies[s.body].kind))
      smallest = std::min(smallest, s.shape.smallestSize());
  }
  penetration_limit_ =
      settings_.penetration_limit > 0.0 ? settings_.penetration_limit : 0.5 * smallest;
  objects_.resize(model_->shapes.size());
  forces_.reset(static_cast<int>(model_->bodies.size()));
}

void World::setState(const State& state) {
  if (state.numBodies() != static_cast<int>(model_->bodies.size()) ||
      state.midpoint_linear_velocity.size() != state.pose.size() ||
      state.midpoint_angular_velocity.size() != state.pose.size())
    throw std::invalid_argument("setState: the state has " + std::to_string(state.numBodies()) +
                                " bodies, the model " + std::to_string(model_->bodies.size()));
  if (state.robot_q.size() != model_->robots.size() ||
      state.robot_v.size() != model_->robots.size())
    throw std::invalid_argument("setState: the state has " + std::to_string(state.robot_q.size()) +
                                " robots, the model " + std::to_string(model_->robots.size()));
  for (size_t r = 0; r < model_->robots.size(); ++r)
    if (state.robot_q[r].size() != model_->robots[r].articulation.nq() ||
        state.robot_v[r].size() != model_->robots[r].articulation.nv())
      throw std::invalid_argument("setState: robot '" + model_->robots[r].name +
                                  "' has the wrong number of coordinates");
  const int pieces = model_->numDeformablePieces();
  if (static_cast<int>(state.fem_x.size()) != pieces ||
      static_cast<int>(state.fem_v.size()) != pieces)
    throw std::invalid_argument("setState: the state has " + std::to_string(state.fem_x.size()) +
                                " deformable pieces, the model " + std::to_string(pieces));
  for (int k = 0; k < pieces; ++k)
    if (state.fem_x[k].size() != partition_.dofOf(partition_.piece_subsystem[k]) ||
        state.fem_v[k].size() != state.fem_x[k].size())
      throw std::invalid_argument("setState: deformable piece " + std::to_string(k) +
                                  " has the wrong number of coordinates");
  const WarmStart& warm = state.warm_start;
  const bool sorted = std::is_sorted(warm.keys.begin(), warm.keys.end());
  for (const auto& [key, offset] : warm.keys)
    if (!sorted || offset < 0 || offset >= warm.lambda.size())
      throw std::invalid_argument(
          "setState: the warm start's keys are not sorted or point outside its lambda");
  state_ = state;
  diverged_ = false;
}

void World::setSolver(const std::string& name, const SolverOptionValues& options) {
  solver_ = makeSolver(name, options);
  settings_.solver = name;
  settings_.solver_options = options;
}

void World::buildCollisionObjects(double h) {
  const double base = 0.5 * model_->contact.margin;
  for (size_t k = 0; k < model_->shapes.size(); ++k) {
    const BodyShape& s = model_->shapes[k];
    const int b = s.body;
    CollisionObject& o = objects_[k];
    o.shape = s.shape;
    o.pose = state_.pose[b] * s.local_pose;
    o.movable = model_->bodies[b].kind != BodyKind::Static;
    o.subcontacts = model_->contact.subcontacts;
    // Speculative margin: how far any point of the shape can move during the step.
    const double reach =
        state_.linear_velocity[b].norm() + state_.angular_velocity[b].norm() * shape_extent_[k];
    o.margin = base + (o.movable ? h * reach : 0.0);
  }
}

void World::warmStart() {
  // vhat guess: the current velocities; lambda: the previous step's impulse of the constraint
  // with the same key (contact shape pair + feature, joint, spring), zero for new ones.
  solution_.vhat.resize(problem_.numDof());
  const int threads = settings_.solver_settings.threads;
  const int subsystems = partition_.numSubsystems();
#pragma omp parallel for schedule(static) \
    num_threads(parallelTeam(threads, subsystems, kBodiesPerThread))
  for (int s = 0; s < subsystems; ++s)
    for (int body : partition_.bodies[s]) {
      const int o = problem_.subsystems[s].dof_offset + partition_.offset_in_subsystem[body];
      solution_.vhat.segment<3>(o) = state_.linear_velocity[body];
      solution_.vhat.segment<3>(o + 3) = state_.angular_velocity[body];
    }
  for (size_t r = 0; r < model_->robots.size(); ++r) {
    const Subsystem& sub = problem_.subsystems[partition_.robot_subsystem[r]];
    solution_.vhat.segment(sub.dof_offset, sub.dof) = state_.robot_v[r];
  }
  for (size_t k = 0; k < state_.fem_v.size(); ++k) {
    const Subsystem& sub = problem_.subsystems[partition_.piece_subsystem[k]];
    solution_.vhat.segment(sub.dof_offset, sub.dof) = state_.fem_v[k];
  }
  // The previous step's impulses travel in the state (State::warm_start), so that a restored
  // state starts its solve from exactly what the original run did.
  const WarmStart& previous = state_.warm_start;
  solution_.lambda.setZero(problem_.numRows());
  const int constraints = problem_.numConstraints();
#pragma omp parallel for schedule(static) \
    num_threads(parallelTeam(threads, constraints, kConstraintsPerThread))
  for (int j = 0; j < constraints; ++j) {
    const Constraint& c = problem_.constraints[j];
    if (const int offset = previous.offsetOf(c.key, c.rows); offset >= 0)
      solution_.lambda.segment(c.row_offset, c.rows) = previous.lambda.segment(offset, c.rows);
  }
}

std::string World::checkDivergence(double max_penetration) const {
  std::ostringstream why;
  for (int b = 0; b < state_.numBodies(); ++b) {
    if (!simulated(model_->bodies[b].kind)) continue;
    // Every non-finite quantity is named: which one went first hints at the cause (a huge force
    // shows in the velocity, a huge time step with a finite velocity in the position).
    std::string quantities;
    const auto add = [&quantities](bool finite, const char* quantity) {
      if (!finite) quantities += (quantities.empty() ? "" : ", ") + std::string(quantity);
    };
    add(state_.pose[b].position.allFinite(), "position");
    add(state_.pose[b].orientation.coeffs().allFinite(), "orientation");
    add(state_.linear_velocity[b].allFinite(), "velocity");
    add(state_.angular_velocity[b].allFinite(), "angular velocity");
    if (!quantities.empty()) {
      why << "body '" << model_->bodies[b].name << "' has a non-finite " << quantities;
      return why.str();
    }
    const double speed = state_.linear_velocity[b].norm();
    if (speed > settings_.max_speed) {
      why << "body '" << model_->bodies[b].name << "' moves at " << speed << " m/s (limit "
          << settings_.max_speed << " m/s)";
      return why.str();
    }
  }
  for (size_t d = 0; d < model_->deformables.size(); ++d) {
    const DeformableBody& body = model_->deformables[d];
    for (int k = body.first_piece; k < body.first_piece + body.numPieces(); ++k) {
      const bool x = state_.fem_x[k].allFinite(), v = state_.fem_v[k].allFinite();
      if (!x || !v) {
        why << "deformable '" << body.name << "' has a non-finite "
            << (!x && !v ? "node position, node velocity"
                : !x     ? "node position"
                         : "node velocity");
        return why.str();
      }
      const double speed = state_.fem_v[k].cwiseAbs().maxCoeff();
      if (speed > settings_.max_speed) {
        why << "a node of deformable '" << body.name << "' moves at " << speed
            << " m/s along an axis (limit " << settings_.max_speed << " m/s)";
        return why.str();
      }
    }
  }
  if (max_penetration > penetration_limit_) {
    const auto body = [this](int b) { return "'" + model_->bodies[b].name + "'"; };
    why << "penetration " << max_penetration << " m";
    if (deepest_.deformable >= 0 && deepest_.body_b >= 0)
      why << " between deformable '" << model_->deformables[deepest_.deformable].name
          << "' and body " << body(deepest_.body_b);
    else if (deepest_.deformable >= 0 && deepest_.node_deformable >= 0)
      why << " between deformables '" << model_->deformables[deepest_.deformable].name << "' and '"
          << model_->deformables[deepest_.node_deformable].name << "'";
    else if (deepest_.body_a >= 0 && deepest_.body_b >= 0)
      why << " between bodies " << body(deepest_.body_a) << " and " << body(deepest_.body_b);
    why << " exceeds the limit " << penetration_limit_ << " m"
        << (settings_.penetration_limit > 0.0 ? "" : " (half the smallest dynamic shape)");
    return why.str();
  }
  return {};
}

void World::keepWarmStart(WarmStart& next) const {
  next.keys.clear();
  for (const Constraint& c : problem_.constraints)
    if (c.key != 0) next.keys.emplace_back(c.key, c.row_offset);
  std::sort(next.keys.begin(), next.keys.end());
  next.lambda = solution_.lambda;
}

namespace {

/// Whether the bilateral rows' impulses `after` differ from `before` (both in `problem`'s rows;
/// `before` of another size: none) by at most `fraction` of the largest of them.
bool bilateralImpulsesSettled(const StepProblem& problem, const VecX& before, const VecX& after,
                              double fraction) {
  double change = 0.0, largest = 0.0;
  for (const Constraint& c : problem.constraints) {
    if (c.type != ConstraintType::Bilateral) continue;
    for (int r = c.row_offset; r < c.row_offset + c.rows; ++r) {
      change =
          std::max(change, std::abs(after[r] - (before.size() == after.size() ? before[r] : 0.0)));
      largest = std::max(largest, std::abs(after[r]));
    }
  }
  return change <= fraction * largest;
}

}  // namespace

StepReport World::step() {
  if (diverged_) throw std::logic_error("World::step: the simulation has diverged");
  const auto t_step = Clock::now();
  const double h = model_->dt;
  const double t = state_.time;
  StepReport report;

  forces_.reset(static_cast<int>(model_->bodies.size()));
  if (controller_) {
    controller_(*model_, state_, forces_);
    checkControllerInputs(*model_, forces_);
  }
  for (int b = 0; b < state_.numBodies(); ++b)
    if (model_->bodies[b].kind == BodyKind::Kinematic) {
      kinematicTwist(model_->bodies[b], t, h, state_.linear_velocity[b],
                     state_.angular_velocity[b]);
      state_.midpoint_linear_velocity[b] = state_.linear_velocity[b];
      state_.midpoint_angular_velocity[b] = state_.angular_velocity[b];
    }

  // 1. collide
  const auto t_collide = Clock::now();
  buildCollisionObjects(h);
  const PairFilter filter = [this](int a, int b) {
    const BodyShape& sa = model_->shapes[a];
    const BodyShape& sb = model_->shapes[b];
    if (sa.body == sb.body) return false;
    if (!simulated(model_->bodies[sa.body].kind) && !simulated(model_->bodies[sb.body].kind))
      return false;
    if (!(sa.group & sb.mask) || !(sb.group & sa.mask)) return false;
    const std::pair<int, int> key(std::min(sa.body, sb.body), std::max(sa.body, sb.body));
    return !std::binary_search(joined_bodies_.begin(), joined_bodies_.end(), key);
  };
  // The narrow phase runs on the solver's threads (the run's governor may change them between
  // steps); its points do not depend on them.
  detector_->setThreads(settings_.solver_settings.threads);
  detector_->detect(objects_, filter, contacts_);
  deepest_ = DeepestContact{};
  for (const ContactPoint& c : contacts_)
    if (-c.geometry.gap > report.max_penetration) {
      report.max_penetration = -c.geometry.gap;
      deepest_ = {model_->shapes[c.object_a].body, model_->shapes[c.object_b].body, -1};
    }
  deformable_collider_->collide(*model_, state_, objects_, h, deformable_contacts_);
  for (const DeformableShapeContact& c : deformable_contacts_)
    if (-c.geometry.gap > report.max_penetration) {
      report.max_penetration = -c.geometry.gap;
      deepest_ = {-1, c.againstNode() ? -1 : model_->shapes[c.shape].body, c.deformable,
                  c.node_deformable};
    }

  report.collision_ms = msSince(t_collide);

  // 2. assemble, with the warm start mapped by key
  const auto t_assemble = Clock::now();
  assembler_.setThreads(settings_.solver_settings.threads);
  assembler_.assemble(*model_, partition_, state_, forces_, contacts_, h, problem_,
                      &deformable_contacts_);
  // No solver can take a non-finite problem: the step diverges here, the state stays as it was.
  if (std::string why = nonFiniteProblem(problem_, partition_, *model_); !why.empty()) {
    report.contacts = problem_.numContacts();
    report.constraints = problem_.numConstraints();
    report.divergence = std::move(why);
    report.diverged = diverged_ = true;
    report.step_ms = msSince(t_step);
    return report;
  }
  assert(problem_.check().empty());
  warmStart();
  warm_start_.vhat = solution_.vhat;
  warm_start_.lambda = solution_.lambda;
  report.assembly_ms = msSince(t_assemble);

  // 3. solve
  const auto t_solve = Clock::now();
  try {
    solver_->solve(problem_, settings_.solver_settings, solution_);
  } catch (const std::invalid_argument& e) {
    // A solver that cannot take this step (a dense formulation's size limit, a problem form it
    // does not solve) says why; the step ends there, as a failed factorisation does.
    report.contacts = problem_.numContacts();
    report.constraints = problem_.numConstraints();
    report.divergence = "the solver '" + settings_.solver + "' cannot solve this step: " + e.what();
    report.diverged = diverged_ = true;
    report.step_ms = msSince(t_step);
    return report;
  }
  int solves = 1;
  // The geometric stiffness (Model::geometric_stiffness) is each joint's last impulse at its
  // lever, which is stale where the load changes within the step: on chainwrap's first step (no
  // last impulses) the chain's 0.25 kg links met the 500 kg box's pull with their own inertia
  // alone, whipped round at 20-50 rad/s and let the box fall at g h a step from then on (the
  // impulses never built up); on nettruck the net's 0.2 kg links, loaded from one step to the
  // next by the 8000 kg truck, let a wheel 3.6 cm into them.  Where the joints' impulses differ
  // from those the stiffness was built with by more than a tenth, the step is solved again with
  // the stiffness of its own impulses until they settle to a hundredth (a fixed point of the
  // step).  Only a converged solve's impulses are taken (an unconverged one's would build the
  // stiffness from its errors, and every pass would repeat a failing solve: chaindrop took 2.9 s
  // a step so), and a pass that does not converge is undone: the step keeps the last converged
  // pass.
  if (model_->geometric_stiffness && !model_->joints.empty() &&
      solution_.stats.status == SolveStatus::Converged &&
      !bilateralImpulsesSettled(problem_, warm_start_.lambda, solution_.lambda, 0.1)) {
    saved_warm_start_ = state_.warm_start;
    pass_warm_start_ = state_.warm_start;  // what problem_ was assembled with
    for (int pass = 0; pass < kGeometricStiffnessPasses; ++pass) {
      pass_solution_ = solution_;
      pass_given_ = warm_start_;
      keepWarmStart(state_.warm_start);
      assembler_.assemble(*model_, partition_, state_, forces_, contacts_, h, problem_,
                          &deformable_contacts_);
      warmStart();
      warm_start_.vhat = solution_.vhat;
      warm_start_.lambda = solution_.lambda;
      solver_->solve(problem_, settings_.solver_settings, solution_);
      ++solves;
      if (solution_.stats.status != SolveStatus::Converged) {
        std::swap(state_.warm_start, pass_warm_start_);
        assembler_.assemble(*model_, partition_, state_, forces_, contacts_, h, problem_,
                            &deformable_contacts_);
        std::swap(solution_, pass_solution_);
        std::swap(warm_start_, pass_given_);
        break;
      }
      if (bilateralImpulsesSettled(problem_, warm_start_.lambda, solution_.lambda, 0.01)) break;
      pass_warm_start_ = state_.warm_start;
    }
    std::swap(state_.warm_start, saved_warm_start_);
  }
  report.solver_ms = msSince(t_solve);
  report.solver_setup_ms = solution_.stats.setup_ms;
  report.solve_status = solution_.stats.status;
  report.iterations = solution_.stats.iterations;
  report.solves = solves;
  report.residual = solution_.stats.residual;
  // Its vhat is no answer: the step diverges here, the state stays as it was.
  if (solution_.stats.status == SolveStatus::FactorizationFailed) {
    report.contacts = problem_.numContacts();
    report.constraints = problem_.numConstraints();
    report.divergence = "the solver '" + settings_.solver +
                        "' could not factor its system (a subsystem's A_i + beta J^T J or its "
                        "Newton matrix is not positive definite: an extreme mass or stiffness "
                        "ratio; try another solver or a smaller time step)";
    report.diverged = diverged_ = true;
    report.step_ms = msSince(t_step);
    return report;
  }

  // 4. integrate
  const int bodies = state_.numBodies();
#pragma omp parallel for schedule(static) \
    num_threads(parallelTeam(settings_.solver_settings.threads, bodies, kBodiesPerThread))
  for (int b = 0; b < bodies; ++b) {
    const Body& body = model_->bodies[b];
    if (body.kind == BodyKind::Kinematic) {
      state_.pose[b] = body.trajectory.pose(t + h);
    } else if (body.kind == BodyKind::Dynamic) {
      const int s = partition_.subsystem_of_body[b];
      const int o = problem_.subsystems[s].dof_offset + partition_.offset_in_subsystem[b];
      const Vec3 v_hat = solution_.vhat.segment<3>(o), w_hat = solution_.vhat.segment<3>(o + 3);
      integrateRigidBody(v_hat, w_hat, h, model_->theta, state_.pose[b], state_.linear_velocity[b],
                         state_.angular_velocity[b]);
      state_.midpoint_linear_velocity[b] = v_hat;
      state_.midpoint_angular_velocity[b] = w_hat;
    }
  }
  const double g = thetaFactor(model_->theta);
  for (size_t r = 0; r < model_->robots.size(); ++r) {
    const Robot& robot = model_->robots[r];
    const Subsystem& sub = problem_.subsystems[partition_.robot_subsystem[r]];
    robot_vhat_ = solution_.vhat.segment(sub.dof_offset, sub.dof);
    VecX& v = state_.robot_v[r];
    v = g * (robot_vhat_ - model_->theta * v);
    integrateConfiguration(robot.articulation, state_.robot_q[r], robot_vhat_, h, robot_q_next_);
    state_.robot_q[r] = robot_q_next_;
    robot_kinematics_.update(*model_, static_cast<int>(r), state_.robot_q[r]);
    setRobotBodies(*model_, static_cast<int>(r), robot_kinematics_, v, robot_vhat_, robot_jacobian_,
                   state_);
  }
  for (size_t k = 0; k < state_.fem_x.size(); ++k) {
    // x_{k+1} = x_k + h vhat, v_{k+1} = g (vhat - theta v_k) (model/deformable_body.hpp).
    const Subsystem& sub = problem_.subsystems[partition_.piece_subsystem[k]];
    const auto vhat = solution_.vhat.segment(sub.dof_offset, sub.dof);
    state_.fem_x[k] += h * vhat;
    state_.fem_v[k] = g * (vhat - model_->theta * state_.fem_v[k]);
  }
  for (const DeformableBody& body : model_->deformables)
    unifyNodeCopies(body, state_.fem_x, state_.fem_v);
  state_.time = t + h;

  keepWarmStart(state_.warm_start);

  report.contacts = problem_.numContacts();
  report.constraints = problem_.numConstraints();
  report.divergence = checkDivergence(report.max_penetration);
  report.diverged = !report.divergence.empty();
  diverged_ = report.diverged;
  report.step_ms = msSince(t_step);
  return report;
}

double World::kineticEnergy() const {
  double energy = 0.0;
  for (int b = 0; b < state_.numBodies(); ++b) {
    const Body& body = model_->bodies[b];
    if (!simulated(body.kind)) continue;
    const Mat3 R = state_.pose[b].orientation.toRotationMatrix();
    const Vec3& w = state_.angular_velocity[b];
    energy += 0.5 * body.mass * state_.linear_velocity[b].squaredNorm() +
              0.5 * w.dot(R * body.inertia * R.transpose() * w);
  }
  for (size_t d = 0; d < model_->deformables.size(); ++d) {
    const DeformableBody& body = model_->deformables[d];
    for (int k = 0; k < body.numPieces(); ++k)
      energy +=
          0.5 * body.piece[k].fem.lumpedMass().dot(state_.fem_v[body.first_piece + k].cwiseAbs2());
  }
  return energy;
}

double World::gravitationalEnergy() const {
  const Vec3& g = model_->gravity;
  double energy = 0.0;
  for (int b = 0; b < state_.numBodies(); ++b) {
    const Body& body = model_->bodies[b];
    if (simulated(body.kind)) energy -= body.mass * g.dot(state_.pose[b].position);
  }
  // Lumped masses, 3 entries per node as the positions: each piece holds its own tets' mass, so
  // the pieces' sum is the body's even where nodes are copied between pieces.
  for (const DeformableBody& body : model_->deformables)
    for (int k = 0; k < body.numPieces(); ++k) {
      const VecX& mass = body.piece[k].fem.lumpedMass();
      const VecX& x = state_.fem_x[body.first_piece + k];
      for (Eigen::Index i = 0; i < x.size(); ++i) energy -= mass[i] * g[i % 3] * x[i];
    }
  return energy;
}

}  // namespace subsim
