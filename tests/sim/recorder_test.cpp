// Recording a run to HDF5 and reading it back: exact round trip of what the world reported,
// zero-contact steps, and clear errors for paths and files that are not recordings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "subsim/geometry/signed_distance_shape.hpp"
#include "subsim/io/file_seal.hpp"
#include "subsim/metrics/bilateral_error.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/recording_capture.hpp"
#include "subsim/sim/world.hpp"
#include "support/hdf5_file_edits.hpp"

namespace subsim {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, so parallel ctest runs do not share files.
class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("subsim_recorder_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// What the world reported at one step, copied before the next step overwrites it.
struct Expected {
  StepReport report;
  StepMetrics metrics;
  State state;
  double energy = 0.0, joint_error = 0.0;
  std::vector<AssembledContact> contacts;
  std::vector<Vec3> impulses;
};

std::vector<Expected> runAndRecord(const std::string& scene, int steps, const std::string& path) {
  World world(buildScenario(scene).model);
  const RecordingInfo info{scene, world.settings().solver, world.model().dt, 1, 100, 1e-6};
  Recorder recorder(path, world.model(), info);
  std::vector<Expected> expected;
  for (int k = 0; k < steps; ++k) {
    Expected e;
    e.report = world.step();
    e.metrics = evaluateStep(world.lastProblem(), world.lastSolution());
    recorder.record(world, e.report, e.metrics);
    e.state = world.state();
    e.energy = world.kineticEnergy() + world.gravitationalEnergy();
    e.joint_error = maxBilateralError(world.lastProblem());
    e.contacts = world.lastContacts();
    for (const AssembledContact& c : e.contacts) {
      const int row = world.lastProblem().constraints[c.constraint].row_offset;
      e.impulses.push_back(world.lastSolution().lambda.segment<3>(row));
    }
    expected.push_back(std::move(e));
  }
  EXPECT_EQ(recorder.stepsRecorded(), steps);
  return expected;
}

void expectSame(const Expected& e, const RecordedStep& s, int k) {
  SCOPED_TRACE("step " + std::to_string(k));
  EXPECT_EQ(s.time, e.state.time);
  EXPECT_EQ(s.iterations, e.report.iterations);
  EXPECT_EQ(s.residual, e.report.residual);
  EXPECT_EQ(s.solve_status, solveStatusName(e.report.solve_status));
  EXPECT_EQ(s.solver_ms, e.report.solver_ms);
  EXPECT_EQ(s.step_ms, e.report.step_ms);
  EXPECT_EQ(s.energy, e.energy);
  EXPECT_EQ(s.joint_error, e.joint_error);
  EXPECT_EQ(s.max_penetration, e.report.max_penetration);
  EXPECT_EQ(s.constraint_residual, e.metrics.constraint_residual);
  EXPECT_EQ(s.contact_fb_residual, e.metrics.contact_fb_residual);
  ASSERT_EQ(s.position.size(), e.state.pose.size());
  ASSERT_EQ(s.orientation.size(), e.state.pose.size());
  for (std::size_t b = 0; b < e.state.pose.size(); ++b) {
    EXPECT_EQ(s.position[b], e.state.pose[b].position) << "body " << b;
    EXPECT_EQ(s.orientation[b].coeffs(), e.state.pose[b].orientation.coeffs()) << "body " << b;
  }
  const std::size_t nc = e.contacts.size();
  EXPECT_EQ(static_cast<int>(nc), e.report.contacts);
  ASSERT_EQ(s.contact_point.size(), nc);
  ASSERT_EQ(s.contact_normal.size(), nc);
  ASSERT_EQ(s.contact_impulse.size(), nc);
  ASSERT_EQ(s.contact_gap.size(), nc);
  ASSERT_EQ(s.contact_bodies.size(), nc);
  for (std::size_t c = 0; c < nc; ++c) {
    const AssembledContact& a = e.contacts[c];
    EXPECT_EQ(s.contact_point[c], a.geometry.point) << "contact " << c;
    EXPECT_EQ(s.contact_normal[c], a.geometry.normal) << "contact " << c;
    EXPECT_EQ(s.contact_impulse[c], e.impulses[c]) << "contact " << c;
    EXPECT_EQ(s.contact_gap[c], a.geometry.gap) << "contact " << c;
    EXPECT_EQ(s.contact_bodies[c][0], a.body_a) << "contact " << c;
    EXPECT_EQ(s.contact_bodies[c][1], a.body_b) << "contact " << c;
  }
}

std::string readError(const std::string& path) {
  try {
    readRecording(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "readRecording('" << path << "') did not throw";
  return "";
}

TEST_F(RecorderTest, GranularRoundTripIsExact) {
  const std::string path = file("granular.h5");
  const std::string scene = "granular:spheres=8";
  const std::vector<Expected> expected = runAndRecord(scene, 30, path);

  const Recording rec = readRecording(path);
  EXPECT_EQ(rec.scene, scene);
  EXPECT_EQ(rec.solver, "subadmm");
  const Model model = buildScenario(scene).model;
  EXPECT_EQ(rec.dt, model.dt);
  EXPECT_EQ(rec.threads, 1);
  EXPECT_EQ(rec.iterations_cap, 100);
  EXPECT_EQ(rec.tolerance, 1e-6);
  ASSERT_EQ(rec.body_names.size(), model.bodies.size());
  for (std::size_t b = 0; b < model.bodies.size(); ++b)
    EXPECT_EQ(rec.body_names[b], model.bodies[b].name);
  ASSERT_EQ(rec.steps.size(), expected.size());
  int pushing_contacts = 0;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    expectSame(expected[k], rec.steps[k], static_cast<int>(k));
    for (const Vec3& impulse : expected[k].impulses) pushing_contacts += impulse[0] > 0.0 ? 1 : 0;
  }
  // The round trip must have carried real impulses, not only poses and zeros.
  EXPECT_GT(pushing_contacts, 0);
}

// What `subsim view` draws: every shape of the model with its body, type, size and pose, and a
// deformable's surface triangles with its node positions after each step (the home copies).
TEST_F(RecorderTest, ShapesAndDeformableSurfacesRoundTrip) {
  const std::string path = file("soft.h5");
  World world(buildScenario("softball:cells=3").model);
  {
    Recorder recorder(path, world.model(), RecordingInfo{"softball", "subadmm", world.model().dt});
    for (int k = 0; k < 2; ++k) {
      const StepReport r = world.step();
      recorder.record(world, r, evaluateStep(world.lastProblem(), world.lastSolution()));
    }
  }
  const Recording rec = readRecording(path);
  const Model& m = world.model();
  ASSERT_EQ(rec.shapes.size(), m.shapes.size());
  for (size_t k = 0; k < m.shapes.size(); ++k) {
    const BodyShape& s = m.shapes[k];
    EXPECT_EQ(rec.shapes[k].body, s.body);
    EXPECT_EQ(rec.shapes[k].type, s.shape.type);
    const Vec3 size = s.shape.type == ShapeType::Box
                          ? s.shape.half_extents
                          : Vec3(s.shape.radius, s.shape.half_length, 0.0);
    EXPECT_EQ(rec.shapes[k].size, size);
    EXPECT_EQ(rec.shapes[k].pose.position, s.local_pose.position);
    EXPECT_EQ(rec.shapes[k].pose.orientation.coeffs(), s.local_pose.orientation.coeffs());
  }
  ASSERT_EQ(rec.body_kind.size(), m.bodies.size());
  for (size_t b = 0; b < m.bodies.size(); ++b)
    EXPECT_EQ(rec.body_kind[b], static_cast<int>(m.bodies[b].kind));
  ASSERT_EQ(m.deformables.size(), 1u);
  const DeformableBody& ball = m.deformables[0];
  EXPECT_EQ(rec.deformable_names, std::vector<std::string>{ball.name});
  ASSERT_EQ(rec.deformable_node_count, std::vector<int>{static_cast<int>(ball.node_home.size())});
  ASSERT_EQ(rec.deformable_surface.size(), ball.surface.size());
  EXPECT_EQ(rec.deformable_surface.front(), ball.surface.front());
  ASSERT_EQ(rec.steps.size(), 2u);
  const State& s = world.state();
  ASSERT_EQ(rec.steps[1].deformable_x.size(), ball.node_home.size());
  for (size_t k = 0; k < ball.node_home.size(); ++k) {
    const auto [piece, node] = ball.node_home[k];
    EXPECT_EQ(rec.steps[1].deformable_x[k],
              Vec3(s.fem_x[ball.first_piece + piece].segment<3>(3 * node)));
  }
}

// Signed distance shapes carry their surfaces (the viewer draws them); a recording whose surface
// data is missing or names vertices its shape lacks is refused, saying which.
TEST_F(RecorderTest, SignedDistanceSurfacesRoundTrip) {
  const std::string path = file("dishes.h5");
  runAndRecord("dishstack:pieces=2,segments=16", 2, path);
  const Model m = buildScenario("dishstack:pieces=2,segments=16").model;
  const Recording rec = readRecording(path);
  ASSERT_EQ(rec.shapes.size(), m.shapes.size());
  int fields = 0;
  for (std::size_t k = 0; k < m.shapes.size(); ++k) {
    const Shape& shape = m.shapes[k].shape;
    EXPECT_EQ(rec.shapes[k].type, shape.type);
    if (shape.type != ShapeType::SignedDistance) {
      EXPECT_TRUE(rec.shapes[k].mesh_vertices.empty() && rec.shapes[k].mesh_triangles.empty());
      continue;
    }
    ++fields;
    EXPECT_EQ(rec.shapes[k].mesh_vertices, shape.field->surface().vertices);
    EXPECT_EQ(rec.shapes[k].mesh_triangles, shape.field->surface().triangles);
  }
  EXPECT_EQ(fields, 2);

  std::size_t cols = 0;
  DoubleBuffer triangles = detail::readDatasetForTesting(path, "/shapes/mesh_triangles", cols);
  triangles.back() = 1e6;
  detail::rewriteDatasetForTesting(path, "/shapes/mesh_triangles", triangles, cols, true);
  EXPECT_NE(readError(path).find("names a vertex its shape does not have"), std::string::npos);
  detail::removeObjectForTesting(path, "/shapes/mesh_counts");
  EXPECT_NE(readError(path).find("needs dataset /shapes/mesh_counts"), std::string::npos);
}

// Recordings made before the shapes and deformables were recorded read without them.
TEST_F(RecorderTest, RecordingsWithoutShapesStillRead) {
  const std::string path = file("old.h5");
  runAndRecord("sphere", 2, path);
  EXPECT_FALSE(readRecording(path).shapes.empty());
  detail::removeObjectForTesting(path, "/shapes");
  const Recording rec = readRecording(path);
  EXPECT_TRUE(rec.shapes.empty());
  EXPECT_EQ(rec.steps.size(), 2u);
}

TEST_F(RecorderTest, RecordingsWithoutTheSolveStatusStillRead) {
  // solve_status was added after schema version 1 was fixed: older recordings lack it.
  const std::string path = file("older.h5");
  runAndRecord("sphere", 2, path);
  EXPECT_EQ(readRecording(path).steps[0].solve_status, "converged");
  detail::removeAttributeForTesting(path, "/steps/000000", "solve_status");
  const Recording rec = readRecording(path);
  EXPECT_EQ(rec.steps[0].solve_status, "");
  EXPECT_EQ(rec.steps[1].solve_status, "converged");
}

TEST_F(RecorderTest, RecordingsWithoutEnergyOrJointErrorStillRead) {
  // energy and joint_error were added after schema version 1 was fixed, like solve_status.
  const std::string path = file("older.h5");
  runAndRecord("sphere", 2, path);
  for (const char* name : {"energy", "joint_error"})
    detail::removeAttributeForTesting(path, "/steps/000000", name);
  const Recording rec = readRecording(path);
  EXPECT_FALSE(rec.steps[0].energy.has_value());
  EXPECT_FALSE(rec.steps[0].joint_error.has_value());
  EXPECT_TRUE(rec.steps[1].energy.has_value());
  EXPECT_TRUE(rec.steps[1].joint_error.has_value());
}

TEST_F(RecorderTest, FreeFallKeepsTheRecordedEnergyUpToTheThetaMethodsDrift) {
  // A sphere dropped from 1 m, recorded until just before it reaches the ground.  With
  // x_{k+1} = x_k + h vhat and vhat = theta v_k + (1 - theta) v_{k+1} (model/integrator.hpp), one
  // step of free fall changes kinetic + potential energy by exactly (theta - 1/2) m h^2 |g|^2:
  // zero for the midpoint rule, a small loss at the default theta = 0.49.
  Model model = buildScenario("sphere").model;
  const int sphere = 1;
  ASSERT_EQ(model.bodies[sphere].name, "sphere");
  model.bodies[sphere].initial_pose.position = Vec3(0.0, 0.0, 1.0);
  const double m = model.bodies[sphere].mass, h = model.dt;
  const double drift = (model.theta - 0.5) * m * h * h * model.gravity.squaredNorm();
  const double start = -m * model.gravity.dot(Vec3(0.0, 0.0, 1.0));  // at rest at z = 1 m

  const std::string path = file("fall.h5");
  {
    World world(model);
    Recorder recorder(path, world.model(), RecordingInfo{"sphere", "subadmm", h});
    for (int k = 0; k < 40; ++k) {  // 0.4 s: 0.78 m of the 0.95 m fall
      const StepReport report = world.step();
      recorder.record(world, report, evaluateStep(world.lastProblem(), world.lastSolution()));
    }
  }
  const Recording rec = readRecording(path);
  ASSERT_EQ(rec.steps.size(), 40u);
  double before = start;
  for (std::size_t k = 0; k < rec.steps.size(); ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    const RecordedStep& s = rec.steps[k];
    ASSERT_TRUE(s.contact_gap.empty()) << "the sphere touched the ground: drop it from higher";
    ASSERT_TRUE(s.energy.has_value());
    EXPECT_NEAR(*s.energy - before, drift, 1e-9);
    EXPECT_EQ(*s.joint_error, 0.0);  // no joints
    before = *s.energy;
  }
  // Conserved to 0.05 % over the fall (the drift is 1e-5 of the energy per step).
  EXPECT_NEAR(*rec.steps.back().energy, start, 5e-4 * start);
  EXPECT_LT(std::abs(drift), 1e-4 * start);
}

TEST_F(RecorderTest, JointErrorIsTheLargestBilateralRowErrorOfEachStep) {
  const std::string path = file("pendulum.h5");
  const std::vector<Expected> expected = runAndRecord("pendulum:links=3", 20, path);
  const Recording rec = readRecording(path);
  ASSERT_EQ(rec.steps.size(), expected.size());
  double largest = 0.0;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    ASSERT_TRUE(rec.steps[k].joint_error.has_value());
    EXPECT_EQ(*rec.steps[k].joint_error, expected[k].joint_error) << "step " << k;
    largest = std::max(largest, *rec.steps[k].joint_error);
  }
  // The chain swings, so its joints drift a little each step, and the solver keeps them
  // together: well below a millimetre (or a milliradian).
  EXPECT_GT(largest, 0.0);
  EXPECT_LT(largest, 1e-3);
}

TEST_F(RecorderTest, RecordingTruncatesAnExistingFile) {
  const std::string path = file("again.h5");
  runAndRecord("spinner", 4, path);
  runAndRecord("sphere", 2, path);
  const Recording rec = readRecording(path);
  EXPECT_EQ(rec.scene, "sphere");
  EXPECT_EQ(rec.steps.size(), 2u);
}

TEST_F(RecorderTest, ZeroContactStepsRoundTrip) {
  const std::string path = file("spinner.h5");
  const std::vector<Expected> expected = runAndRecord("spinner", 5, path);
  const Recording rec = readRecording(path);
  ASSERT_EQ(rec.steps.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_TRUE(expected[k].contacts.empty());
    expectSame(expected[k], rec.steps[k], static_cast<int>(k));
  }
}

// A step taken once for several consumers (subsim run --record --serve) is recorded as the one
// taken from the world; one of another model's size is refused and leaves nothing behind.
TEST_F(RecorderTest, ACapturedStepIsRecordedAsTheWorldsStep) {
  const Model model = buildScenario("granular:spheres=8").model;
  World world(model);
  StepReport report;
  for (int k = 0; k < 20; ++k) report = world.step();  // until the spheres touch
  const StepMetrics metrics = evaluateStep(world.lastProblem(), world.lastSolution());
  RecordedStep captured;
  captureStep(world, report, metrics, captured);
  const RecordingInfo info{"granular:spheres=8", "subadmm", model.dt};
  {
    Recorder from_world(file("world.h5"), model, info);
    from_world.record(world, report, metrics);
    Recorder from_step(file("step.h5"), model, info);
    from_step.record(captured);
    RecordedStep short_step = captured;
    short_step.position.pop_back();
    EXPECT_THROW(from_step.record(short_step), std::invalid_argument);
    EXPECT_EQ(from_step.stepsRecorded(), 1);
  }
  const Recording a = readRecording(file("world.h5")), b = readRecording(file("step.h5"));
  ASSERT_EQ(a.steps.size(), 1u);
  ASSERT_EQ(b.steps.size(), 1u);
  EXPECT_EQ(a.steps[0].position, b.steps[0].position);
  EXPECT_EQ(a.steps[0].contact_impulse, b.steps[0].contact_impulse);
  EXPECT_GT(b.steps[0].contact_impulse.size(), 0u);
  EXPECT_EQ(a.steps[0].energy, b.steps[0].energy);
}

TEST_F(RecorderTest, NoStepsGiveAnEmptyRecording) {
  const std::string path = file("empty.h5");
  const Model model = buildScenario("sphere").model;
  { Recorder recorder(path, model, RecordingInfo{"sphere", "subadmm", model.dt}); }
  const Recording rec = readRecording(path);
  EXPECT_EQ(rec.scene, "sphere");
  EXPECT_EQ(rec.body_names.size(), model.bodies.size());
  EXPECT_TRUE(rec.steps.empty());
}

TEST_F(RecorderTest, CreatingInAMissingDirectoryThrowsNamingThePath) {
  const std::string path = file("no/such/dir/run.h5");
  const Model model = buildScenario("sphere").model;
  try {
    Recorder recorder(path, model, RecordingInfo{"sphere", "subadmm", model.dt});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot create recording '" + path + "'"), std::string::npos) << what;
  }
}

TEST_F(RecorderTest, ReadingATextFileThrowsNamingTheFile) {
  const std::string path = file("notes.h5");
  std::ofstream(path) << "this is not an HDF5 file\n";
  const std::string what = readError(path);
  EXPECT_NE(what.find("'" + path + "' is not a valid subsim recording: not an HDF5 file"),
            std::string::npos)
      << what;
}

TEST_F(RecorderTest, ReadingAMissingFileThrowsNamingTheFile) {
  const std::string path = file("absent.h5");
  EXPECT_EQ(readError(path), "cannot open recording '" + path + "': No such file or directory");
}

TEST_F(RecorderTest, RecordingIsSealedWhenTheRecorderCloses) {
  const std::string path = file("run.h5");
  const Model model = buildScenario("sphere").model;
  {
    Recorder recorder(path, model, RecordingInfo{"sphere", "subadmm", model.dt});
    // As a process that dies mid-run leaves it: unsealed, and refused with what to do.
    EXPECT_NE(checkSeal(path).status, SealStatus::Ok);
    EXPECT_NE(readError(path).find("it carries no subsim checksum"), std::string::npos);
  }
  EXPECT_EQ(checkSeal(path).status, SealStatus::Ok);
  EXPECT_EQ(readRecording(path).scene, "sphere");
}

TEST_F(RecorderTest, ReadingAnUnsealedRecordingThrowsSayingWhatToDo) {
  const std::string path = file("unsealed.h5");
  runAndRecord("spinner", 2, path);
  const std::uintmax_t size = fs::file_size(path);
  fs::resize_file(path, size - kSealSize);
  EXPECT_EQ(readError(path),
            "'" + path +
                "' is not a valid subsim recording: it carries no subsim checksum (written by "
                "another program, changed after subsim wrote it, or cut short while being "
                "written): libhdf5 can crash on a damaged file, so subsim reads only files whose "
                "checksum it verifies; if you wrote or changed this file on purpose, run: subsim "
                "seal '" +
                path + "'");
  sealFile(path);
  EXPECT_EQ(readRecording(path).steps.size(), 2u);
}

TEST_F(RecorderTest, ReadingARecordingCutShortThrowsNamingBothSizes) {
  const std::string path = file("short.h5");
  runAndRecord("spinner", 2, path);
  const std::uintmax_t size = fs::file_size(path);
  fs::resize_file(path, size - 1);
  EXPECT_EQ(readError(path), "'" + path + "' is not a valid subsim recording: it is " +
                                 std::to_string(size - 1) +
                                 " bytes long, its checksum was made for " + std::to_string(size) +
                                 " bytes: the file was cut short or extended after subsim wrote "
                                 "it (record it again; if you changed it on purpose, run: subsim "
                                 "seal '" +
                                 path + "')");
}

TEST_F(RecorderTest, ReadingADamagedRecordingThrowsSayingWhatToDo) {
  const std::string path = file("damaged.h5");
  runAndRecord("spinner", 2, path);
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(fs::file_size(path) / 2));
    f.put('\x5a');
  }
  EXPECT_EQ(readError(path),
            "'" + path +
                "' is not a valid subsim recording: its checksum does not match its contents: the "
                "file was damaged or changed after subsim wrote it (record it again; if you "
                "changed it on purpose, run: subsim seal '" +
                path + "')");
}

// Valid HDF5 files that are not recordings, embedded as bytes because the tests do not see
// hdf5.h; the tests seal them, as `subsim seal` would, so that the reader gets to the layout.
// Made with the HDF5 1.10 C API, H5F_LIBVER_LATEST (hence so small):
//   kEmptyHdf5:    H5Fcreate only;
//   kNoGroupsHdf5: root attributes schema_version (int 1), scene, solver (fixed-length strings
//                  "sphere"), dt (0.01) and one empty group "other"; no /bodies, no /steps.
const unsigned char kEmptyHdf5[] = {
    0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x03, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc3, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06,
    0x1a, 0x61, 0x37, 0x4f, 0x48, 0x44, 0x52, 0x02, 0x20, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x27,
    0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x02, 0x12, 0x00, 0x00,
    0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0x0a, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6d, 0x9e, 0xf9, 0x1c};
const unsigned char kNoGroupsHdf5[] = {
    0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x03, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x01, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x63, 0x4c, 0x94,
    0x4f, 0x48, 0x44, 0x52, 0x02, 0x20, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x27,
    0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b, 0xdf, 0x10, 0x10, 0x00, 0x00, 0xbd, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x02, 0x00, 0x01, 0x00,
    0x00, 0x15, 0x12, 0x00, 0x04, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0c, 0x2c, 0x00, 0x00, 0x03, 0x00, 0x0f, 0x00, 0x0c,
    0x00, 0x04, 0x00, 0x00, 0x73, 0x63, 0x68, 0x65, 0x6d, 0x61, 0x5f, 0x76, 0x65, 0x72, 0x73, 0x69,
    0x6f, 0x6e, 0x00, 0x10, 0x08, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x22, 0x00, 0x00, 0x03, 0x00, 0x06, 0x00, 0x08,
    0x00, 0x04, 0x00, 0x00, 0x73, 0x63, 0x65, 0x6e, 0x65, 0x00, 0x13, 0x00, 0x00, 0x00, 0x07, 0x00,
    0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x73, 0x70, 0x68, 0x65, 0x72, 0x65, 0x00, 0x0c, 0x23, 0x00,
    0x00, 0x03, 0x00, 0x07, 0x00, 0x08, 0x00, 0x04, 0x00, 0x00, 0x73, 0x6f, 0x6c, 0x76, 0x65, 0x72,
    0x00, 0x13, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x73, 0x70, 0x68,
    0x65, 0x72, 0x65, 0x00, 0x0c, 0x2c, 0x00, 0x00, 0x03, 0x00, 0x03, 0x00, 0x14, 0x00, 0x04, 0x00,
    0x00, 0x64, 0x74, 0x00, 0x11, 0x20, 0x3f, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
    0x34, 0x0b, 0x00, 0x34, 0xff, 0x03, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x7b, 0x14, 0xae, 0x47,
    0xe1, 0x7a, 0x84, 0x3f, 0x00, 0x00, 0x1e, 0x1a, 0x36, 0x1a, 0x4f, 0x48, 0x44, 0x52, 0x02, 0x20,
    0x78, 0x27, 0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b, 0x78, 0x27, 0x02, 0x6b,
    0x78, 0x02, 0x12, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0a, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x58, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6d, 0x9e, 0xf9, 0x1c, 0x4f, 0x43, 0x48,
    0x4b, 0x02, 0x12, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x06, 0x10, 0x00, 0x00, 0x01, 0x00, 0x05, 0x6f, 0x74,
    0x68, 0x65, 0x72, 0x2a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x98, 0x57, 0x9b, 0xf5};

template <std::size_t N>
void writeBytes(const std::string& path, const unsigned char (&bytes)[N]) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(N));
}

TEST_F(RecorderTest, ReadingAnUnsealedForeignHdf5FileThrowsBeforeHdf5ReadsIt) {
  const std::string path = file("foreign.h5");
  writeBytes(path, kNoGroupsHdf5);
  const std::string what = readError(path);
  EXPECT_NE(
      what.find("'" + path + "' is not a valid subsim recording: it carries no subsim checksum"),
      std::string::npos)
      << what;
}

TEST_F(RecorderTest, ReadingAnHdf5FileWithoutTheGroupsThrows) {
  const std::string path = file("foreign.h5");
  writeBytes(path, kNoGroupsHdf5);
  sealFile(path);
  const std::string what = readError(path);
  EXPECT_NE(what.find("'" + path + "' is not a valid subsim recording: missing group /bodies"),
            std::string::npos)
      << what;
}

TEST_F(RecorderTest, ReadingAnEmptyHdf5FileThrowsNamingTheAttribute) {
  const std::string path = file("empty.h5");
  writeBytes(path, kEmptyHdf5);
  sealFile(path);
  const std::string what = readError(path);
  EXPECT_NE(what.find("'" + path + "' is not a valid subsim recording: missing attribute /solver"),
            std::string::npos)
      << what;
}

}  // namespace
}  // namespace subsim
