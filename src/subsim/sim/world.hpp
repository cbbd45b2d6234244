#pragma once
// World: the stage pipeline of one simulation (ARCHITECTURE.md):
//   1. collide    geometry/   shapes at the current poses -> contact points
//   2. assemble   assembly/   Model + State + contacts -> StepProblem
//   3. solve      solvers/    StepProblem -> StepSolution (vhat, lambda)
//   4. integrate  model/      vhat -> new State
// The Model is fixed for the World's life and may be shared (const) by any number of Worlds, e.g.
// for batched rollouts; the State, which carries the solver's warm start too, can be read and
// written between steps (restoring a saved State reproduces the original run bit for bit); a
// controller fills external forces at the start of every step.
//
// Example:
//   subsim::World world(subsim::buildScenario("granular").model);
//   for (int k = 0; k < 100; ++k) world.step();
//   const subsim::State& s = world.state();
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "subsim/assembly/assembler.hpp"
#include "subsim/geometry/collision_detector.hpp"
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"
#include "subsim/partition/partition.hpp"
#include "subsim/problem/step_problem.hpp"
#include "subsim/sim/deformable_collider.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

struct WorldSettings {
  std::string solver = "subadmm";
  /// The solver's own options as text, applied in order (Solver::setOption; `subsim solvers`
  /// lists them), e.g. {{"relaxation", "1"}}.  An unknown option or a bad value makes the World's
  /// constructor throw std::invalid_argument.
  SolverOptionValues solver_options;
  SolverSettings solver_settings;
  /// Divergence: any speed above this (m/s) ...
  double max_speed = 100.0;
  /// ... or a penetration deeper than this (m); <= 0 means half the smallest dynamic shape size.
  double penetration_limit = 0.0;
  /// Subsystem division; null means one subsystem per dynamic body.
  std::shared_ptr<const Partitioner> partitioner;
};

/// What one step did.
struct StepReport {
  int contacts = 0;  // contact constraints (3 rows each) in the problem
  int constraints = 0;
  int iterations = 0;  // of the step's last solve (the one its answer comes from)
  /// Solves of the step: 1, or more where the geometric stiffness passes ran (World::step);
  /// solver_ms counts them all.
  int solves = 1;
  double residual = 0.0;                                 // the solver's own stopping residual
  SolveStatus solve_status = SolveStatus::IterationCap;  // how the solve ended
  double solver_ms = 0.0;  // solve only (factorisation included; collision, assembly excluded)
  double solver_setup_ms = 0.0;  // of solver_ms: the solver's own setup (SolveStats::setup_ms)
  double step_ms = 0.0;          // the whole step
  // Of step_ms, the phases outside the solve: collision detection (rigid and deformable), and
  // assembly (the problem, its finiteness check and the warm start).  The rest of step_ms less
  // solver_ms is integration and the divergence check.
  double collision_ms = 0.0;
  double assembly_ms = 0.0;
  double max_penetration = 0.0;  // m, max(0, -gap) at collision detection
  bool diverged = false;
  std::string divergence;  // why, when diverged
};

/// Called at the start of every step to set external forces and torques (world frame, N and N m,
/// at each body's centre of mass); `forces` arrives zeroed.
using Controller = std::function<void(const Model&, const State&, BodyForces& forces)>;

class World {
 public:
  /// Validates the model (std::invalid_argument on a bad one) and sets the initial state.
  /// How many times at most a step is solved again with the geometric stiffness of its own joint
  /// impulses (Model::geometric_stiffness; step() says when).
  static constexpr int kGeometricStiffnessPasses = 10;

  explicit World(Model model, WorldSettings settings = WorldSettings());
  /// The same on a model shared with other Worlds (not copied; null: std::invalid_argument).
  explicit World(std::shared_ptr<const Model> model, WorldSettings settings = WorldSettings());

  const Model& model() const { return *model_; }
  /// The model, for another World to share.
  const std::shared_ptr<const Model>& sharedModel() const { return model_; }
  /// The state, warm start included: what setState takes to continue exactly from here.
  const State& state() const { return state_; }
  /// Replaces the state (same number of bodies; std::invalid_argument otherwise), warm start
  /// included: stepping from a state this World (or another of the same Model) reported gives the
  /// same bits as the run that reported it.
  void setState(const State& state);
  void setController(Controller controller) { controller_ = std::move(controller); }
  /// Replaces the solver (with `options`); std::invalid_argument for an unknown name, an unknown
  /// option or a bad value.
  void setSolver(const std::string& name, const SolverOptionValues& options = {});
  /// The solver itself, for what its own interface reports (dynamic_cast to its class).
  const Solver& solver() const { return *solver_; }
  SolverSettings& solverSettings() { return settings_.solver_settings; }
  const WorldSettings& settings() const { return settings_; }
  const Partition& partition() const { return partition_; }

  /// Advances by the model's dt.  Once a step has diverged the world refuses to step again
  /// (std::logic_error) until setState.
  StepReport step();
  bool diverged() const { return diverged_; }

  /// The last step's problem (as solved), solution and contacts, for metrics and recording.
  const StepProblem& lastProblem() const { return problem_; }
  const StepSolution& lastSolution() const { return solution_; }
  /// The warm start the solver was given in the last step (vhat guess and lambda by key), so that
  /// a recorded problem can be re-solved from exactly the same input.
  const StepSolution& lastWarmStart() const { return warm_start_; }
  const std::vector<AssembledContact>& lastContacts() const {
    return assembler_.assembledContacts();
  }
  /// The last step's deformable-vs-shape contacts (with their constraint indices).
  const std::vector<DeformableShapeContact>& lastDeformableContacts() const {
    return deformable_contacts_;
  }

  /// Total kinetic energy of the dynamic bodies (J).
  double kineticEnergy() const;
  /// Gravitational potential energy of what kineticEnergy covers, -sum m g.x (J): zero on the
  /// plane through the origin normal to the gravity, m |g| z for the default gravity along -z.
  /// Elastic energies (FEM strain, cable couplings, springs, joint drives) are not included.
  double gravitationalEnergy() const;
  /// The penetration (m) beyond which a step diverges: WorldSettings::penetration_limit, or half
  /// the smallest shape of a simulated body (rigid or articulated); infinite without one.
  double penetrationLimit() const { return penetration_limit_; }
  /// Number of DOF in the problem (sum of subsystem sizes; kinematic bodies excluded).
  int dof() const { return partition_.totalDof(); }

 private:
  void buildCollisionObjects(double h);
  void warmStart();
  /// The warm start of the next step: the solution's impulses by constraint key.
  void keepWarmStart(WarmStart& next) const;

  std::string checkDivergence(double max_penetration) const;

  std::shared_ptr<const Model> model_;
  WorldSettings settings_;
  Partition partition_;
  State state_;
  Controller controller_;
  std::unique_ptr<Solver> solver_;
  std::unique_ptr<CollisionDetector> detector_;
  std::vector<std::pair<int, int>> joined_bodies_;  // sorted pairs that must not collide
  DoubleBuffer shape_extent_;                       // farthest shape point from its body's centre
  double penetration_limit_ = 0.0;
  std::vector<CollisionObject> objects_;
  std::vector<ContactPoint> contacts_;
  std::unique_ptr<DeformableCollider> deformable_collider_;
  std::vector<DeformableShapeContact> deformable_contacts_;
  BodyForces forces_;
  Assembler assembler_;
  StepProblem problem_;
  StepSolution solution_;
  StepSolution warm_start_;
  // The geometric stiffness passes (step()): the state's warm start, kept through them; the
  // last pass's warm start, answer and what its solver was given.
  WarmStart saved_warm_start_, pass_warm_start_;
  StepSolution pass_solution_, pass_given_;
  // Robot integration scratch.
  RobotKinematics robot_kinematics_;
  VecX robot_vhat_, robot_q_next_;
  MatX robot_jacobian_;
  // The deepest contact of the last collision pass, so that a penetration failure can name it:
  // two bodies (body_b -1: none), or a deformable (index) and body_b.
  struct DeepestContact {
    int body_a = -1;
    int body_b = -1;
    int deformable = -1;
    int node_deformable = -1;  // a deformable-deformable contact's other body
  };
  DeepestContact deepest_;
  bool diverged_ = false;
};

}  // namespace subsim
