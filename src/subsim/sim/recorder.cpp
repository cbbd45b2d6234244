#include "subsim/sim/recorder.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "subsim/io/file_seal.hpp"
#include "subsim/io/hdf5_file.hpp"
#include "subsim/sim/recording_capture.hpp"

namespace subsim {
namespace {

using namespace hdf5;

constexpr int kSchemaVersion = 1;

}  // namespace

struct Recorder::Impl {
  std::string path;
  int bodies = 0;
  int steps = 0;
  Handle file;
  Handle steps_group;
  // Reused across steps so that recording does not allocate once the contact count settles.
  RecordedStep step;         // record(World...)'s capture
  DoubleBuffer orientation;  // w x y z per body (Eigen stores x y z w)
  std::vector<int> contact_bodies;
  bool deformables = false;
};

namespace {

/// A 1-D dataset of variable-length UTF-8 strings.
void writeStrings(hid_t group, const char* name, const std::vector<std::string>& values,
                  const std::string& context, const std::string& where) {
  Handle type = variableString(H5T_CSET_UTF8, context);
  const hsize_t n = values.size();
  Handle space = checked(H5Screate_simple(1, &n, nullptr), H5Sclose, context, where);
  Handle set = checked(
      H5Dcreate2(group, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, context, where);
  std::vector<const char*> text;
  for (const std::string& v : values) text.push_back(v.c_str());
  if (n > 0)
    checkStatus(H5Dwrite(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()),
                context, where);
}

/// The doubles of n rows of three (Vec3 is three packed doubles).
const double* rows(const std::vector<Vec3>& v) {
  return v.empty() ? nullptr : v.front().data();
}

/// /shapes: what the viewer draws of each body (docs/recording-format.md).
void writeShapes(hid_t root, const Recording& header, const std::string& context) {
  Handle shapes = checked(H5Gcreate2(root, "shapes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          H5Gclose, context, "group 'shapes'");
  const std::size_t n = header.shapes.size();
  std::vector<int> body(n), type(n);
  DoubleBuffer size(3 * n), pose(7 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const RecordedShape& s = header.shapes[k];
    body[k] = s.body;
    type[k] = static_cast<int>(s.type);
    for (int i = 0; i < 3; ++i) size[3 * k + i] = s.size[i];
    const Pose& p = s.pose;
    const double values[7] = {p.position.x(),    p.position.y(),    p.position.z(),
                              p.orientation.w(), p.orientation.x(), p.orientation.y(),
                              p.orientation.z()};
    std::copy_n(values, 7, pose.data() + 7 * k);
  }
  writeArray(shapes.get(), "body", body.data(), n, 0, context);
  writeArray(shapes.get(), "type", type.data(), n, 0, context);
  writeArray(shapes.get(), "size", size.data(), n, 3, context);
  writeArray(shapes.get(), "pose", pose.data(), n, 7, context);
  // Signed distance shapes' surfaces (the viewer draws them), only when the scene has any.
  std::vector<int> counts(2 * n), triangles;
  DoubleBuffer vertices;
  for (std::size_t k = 0; k < n; ++k) {
    const RecordedShape& s = header.shapes[k];
    counts[2 * k] = static_cast<int>(s.mesh_vertices.size());
    counts[2 * k + 1] = static_cast<int>(s.mesh_triangles.size());
    for (const Vec3& v : s.mesh_vertices) vertices.insert(vertices.end(), v.data(), v.data() + 3);
    for (const auto& t : s.mesh_triangles) triangles.insert(triangles.end(), t.begin(), t.end());
  }
  if (vertices.empty()) return;
  writeArray(shapes.get(), "mesh_counts", counts.data(), n, 2, context);
  writeArray(shapes.get(), "mesh_vertices", vertices.data(), vertices.size() / 3, 3, context);
  writeArray(shapes.get(), "mesh_triangles", triangles.data(), triangles.size() / 3, 3, context);
}

}  // namespace

Recorder::Recorder(const std::string& path, const Model& model, const RecordingInfo& info)
    : impl_(std::make_unique<Impl>()) {
  silenceHdf5();
  impl_->path = path;
  impl_->bodies = static_cast<int>(model.bodies.size());
  impl_->deformables = !model.deformables.empty();
  const std::string context = "cannot create recording '" + path + "': ";
  const Recording header = recordingHeader(model, info);

  // Closing the file closes anything still open in it, so the destructor always releases it.
  impl_->file = createFile(path, context);
  const hid_t root = impl_->file.get();

  writeAttribute(root, "schema_version", kSchemaVersion, context);
  writeStringAttribute(root, "scene", header.scene, context);
  writeStringAttribute(root, "solver", header.solver, context);
  writeAttribute(root, "dt", header.dt, context);
  writeAttribute(root, "threads", header.threads, context);
  writeAttribute(root, "iterations_cap", header.iterations_cap, context);
  writeAttribute(root, "tolerance", header.tolerance, context);

  Handle bodies = checked(H5Gcreate2(root, "bodies", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          H5Gclose, context, "group 'bodies'");
  writeStrings(bodies.get(), "names", header.body_names, context, "bodies/names");
  writeArray(bodies.get(), "kind", header.body_kind.data(), header.body_kind.size(), 0, context);
  writeShapes(root, header, context);

  if (impl_->deformables) {
    Handle group = checked(H5Gcreate2(root, "deformables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           H5Gclose, context, "group 'deformables'");
    writeStrings(group.get(), "names", header.deformable_names, context, "deformables/names");
    writeArray(group.get(), "node_count", header.deformable_node_count.data(),
               header.deformable_node_count.size(), 0, context);
    writeArray(group.get(), "surface_count", header.deformable_surface_count.data(),
               header.deformable_surface_count.size(), 0, context);
    const std::size_t triangles = header.deformable_surface.size();
    writeArray(group.get(), "surface",
               triangles ? header.deformable_surface.front().data() : nullptr, triangles, 3,
               context);
  }

  impl_->steps_group = checked(H5Gcreate2(root, "steps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                               H5Gclose, context, "group 'steps'");
}

Recorder::~Recorder() {
  impl_->steps_group.reset();
  // Only a file that HDF5 flushed and closed is sealed: the readers refuse an unsealed one.
  if (impl_->file.close() < 0) return;
  try {
    sealFile(impl_->path);
  } catch (const std::exception&) {
    // A destructor cannot report it; the file stays unsealed and readRecording says so.
  }
}

int Recorder::stepsRecorded() const {
  return impl_->steps;
}

void Recorder::record(const World& world, const StepReport& report, const StepMetrics& metrics) {
  if (world.state().numBodies() != impl_->bodies)
    throw std::invalid_argument("Recorder::record: the world has " +
                                std::to_string(world.state().numBodies()) +
                                " bodies, the recording " + std::to_string(impl_->bodies));
  // Gather everything before touching the file, so that a world without impulses for its
  // contacts leaves no partial step group.
  captureStep(world, report, metrics, impl_->step);
  record(impl_->step);
}

void Recorder::record(const RecordedStep& s) {
  Impl& r = *impl_;
  if (static_cast<int>(s.position.size()) != r.bodies)
    throw std::invalid_argument("Recorder::record: the step has " +
                                std::to_string(s.position.size()) + " bodies, the recording " +
                                std::to_string(r.bodies));
  const std::size_t nb = s.position.size(), nc = s.contact_point.size();
  r.orientation.resize(4 * nb);
  for (std::size_t b = 0; b < nb; ++b) {
    const Quat& q = s.orientation[b];
    r.orientation[4 * b + 0] = q.w();
    r.orientation[4 * b + 1] = q.x();
    r.orientation[4 * b + 2] = q.y();
    r.orientation[4 * b + 3] = q.z();
  }
  r.contact_bodies.resize(2 * nc);
  for (std::size_t c = 0; c < nc; ++c)
    for (int i = 0; i < 2; ++i) r.contact_bodies[2 * c + i] = s.contact_bodies[c][i];

  const std::string name = numberedName(static_cast<std::size_t>(r.steps));
  const std::string context =
      "cannot write recording '" + r.path + "': step " + std::to_string(r.steps) + ": ";
  Handle group =
      checked(H5Gcreate2(r.steps_group.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              H5Gclose, context, "group 'steps/" + name + "'");
  try {
    const hid_t g = group.get();
    writeAttribute(g, "time", s.time, context);
    writeAttribute(g, "iterations", s.iterations, context);
    writeAttribute(g, "residual", s.residual, context);
    writeStringAttribute(g, "solve_status", s.solve_status, context);
    writeAttribute(g, "solver_ms", s.solver_ms, context);
    writeAttribute(g, "step_ms", s.step_ms, context);
    writeAttribute(g, "constraint_residual", s.constraint_residual, context);
    writeAttribute(g, "contact_fb_residual", s.contact_fb_residual, context);
    writeAttribute(g, "max_penetration", s.max_penetration, context);
    // The rows actually recorded, which is what a reader needs (equal to report.contacts).
    writeAttribute(g, "contacts", static_cast<int>(nc), context);
    writeAttribute(g, "energy", *s.energy, context);
    writeAttribute(g, "joint_error", *s.joint_error, context);
    writeArray(g, "position", rows(s.position), nb, 3, context);
    writeArray(g, "orientation", r.orientation.data(), nb, 4, context);
    writeArray(g, "contact_point", rows(s.contact_point), nc, 3, context);
    writeArray(g, "contact_normal", rows(s.contact_normal), nc, 3, context);
    writeArray(g, "contact_impulse", rows(s.contact_impulse), nc, 3, context);
    writeArray(g, "contact_gap", s.contact_gap.data(), nc, 0, context);
    writeArray(g, "contact_bodies", r.contact_bodies.data(), nc, 2, context);
    if (r.deformables)
      writeArray(g, "deformable_x", rows(s.deformable_x), s.deformable_x.size(), 3, context);
  } catch (...) {
    // A half-written step group would make the whole file unreadable (readRecording rejects
    // it), so drop it: the steps before it stay a valid recording and a retry reuses the name.
    group.reset();
    H5Ldelete(r.steps_group.get(), name.c_str(), H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    throw;
  }
  ++r.steps;
}

// ---------------------------------------------------------------------------------------------
// Reading

namespace {

// Reads one recording; every error names the file and the object at fault.
class RecordingReader : FileReader {
 public:
  explicit RecordingReader(std::string path) : FileReader(std::move(path), "recording") {}

  Recording read() {
    Handle file = openFile();
    const hid_t root = file.get();

    Recording rec;
    // The solver first: a problem file (another kind, with a schema of its own) lacks it, and
    // saying so tells more than its version would.
    rec.solver = readStringAttribute(root, "/", "solver");
    checkSchemaVersion(readScalar<int>(root, "/", "schema_version"), kSchemaVersion);
    rec.scene = readStringAttribute(root, "/", "scene");
    rec.dt = readScalar<double>(root, "/", "dt");

    Handle bodies = openGroup(root, "bodies", "/bodies");
    rec.body_names = readStrings(bodies.get(), "names", "/bodies/names");
    const hsize_t nb = rec.body_names.size();
    const std::vector<int> kinds = readArray<int>(bodies.get(), "kind", "/bodies/kind", nb, 0);
    rec.body_kind.assign(kinds.begin(), kinds.end());
    for (int k : rec.body_kind)
      if (k < 0 || k > static_cast<int>(BodyKind::Articulated))
        fail("dataset /bodies/kind holds " + std::to_string(k) + ", not a body kind");
    // Added after schema version 1 was fixed (for `subsim view`): older recordings lack them.
    if (H5Lexists(root, "shapes", H5P_DEFAULT) > 0) readShapes(root, nb, rec);
    hsize_t deformable_nodes = 0;
    if (H5Lexists(root, "deformables", H5P_DEFAULT) > 0)
      deformable_nodes = readDeformables(root, rec);

    Handle steps = openGroup(root, "steps", "/steps");
    const hsize_t count = memberCount(steps.get(), "/steps");
    rec.steps.resize(count);
    for (hsize_t k = 0; k < count; ++k) {
      const std::string name = numberedName(k);
      // Groups are numbered from 000000 without gaps; any other member means a foreign file.
      Handle group = openGroup(steps.get(), name, "/steps/" + name);
      readStep(group.get(), "/steps/" + name + "/", nb, deformable_nodes, rec.steps[k]);
    }
    // Read last, so that a foreign file is still named by its first missing group.
    rec.threads = readScalar<int>(root, "/", "threads");
    rec.iterations_cap = readScalar<int>(root, "/", "iterations_cap");
    rec.tolerance = readScalar<double>(root, "/", "tolerance");
    return rec;
  }

 private:
  template <typename T>
  T readScalar(hid_t object, const std::string& where, const char* name) const {
    const auto number = [](hid_t type) {
      const H5T_class_t cls = H5Tget_class(type);
      return cls == H5T_INTEGER || cls == H5T_FLOAT;
    };
    return readScalarAttribute<T>(object, where, name, number, "a number", "a number");
  }

  /// Opens dataset `full` (`name` in `group`) after checking that it exists, holds strings or
  /// numbers as asked, has rank 1 (cols == 0) or 2 with `cols` columns, and `rows` rows unless
  /// `any_rows`; returns the row count through `rows`.
  Handle openDataset(hid_t group, const char* name, const std::string& full, hsize_t& rows,
                     bool any_rows, hsize_t cols, bool strings) const {
    Handle set = FileReader::openDataset(group, name, full);
    Handle type = checked(H5Dget_type(set.get()), H5Tclose, prefix(), full);
    const H5T_class_t cls = H5Tget_class(type.get());
    const bool numeric = cls == H5T_INTEGER || cls == H5T_FLOAT;
    if (strings ? cls != H5T_STRING : !numeric)
      fail("dataset " + full + " does not hold " + (strings ? "strings" : "numbers"));
    const hsize_t n = datasetRows(set.get(), full, cols);
    if (!any_rows && n != rows)
      fail("dataset " + full + " has " + std::to_string(n) + " rows, expected " +
           std::to_string(rows));
    rows = n;
    return set;
  }

  /// Row-major contents of a rows x cols (cols == 0: 1-D) numeric dataset.
  template <typename T>
  hdf5::Hdf5Array<T> readArray(hid_t group, const char* name, const std::string& full, hsize_t rows,
                               hsize_t cols) const {
    hsize_t n = rows;
    Handle set = openDataset(group, name, full, n, false, cols, false);
    return readValues<T>(set.get(), full, n * (cols == 0 ? 1 : cols), " as numbers");
  }

  void readShapes(hid_t root, hsize_t nb, Recording& rec) const {
    Handle shapes = openGroup(root, "shapes", "/shapes");
    hsize_t n = 0;  // the shape count, from /shapes/body; the other datasets must match it
    Handle body_set = openDataset(shapes.get(), "body", "/shapes/body", n, true, 0, false);
    const std::vector<int> body = readValues<int>(body_set.get(), "/shapes/body", n, " as numbers");
    const std::vector<int> type = readArray<int>(shapes.get(), "type", "/shapes/type", n, 0);
    const DoubleBuffer size = readArray<double>(shapes.get(), "size", "/shapes/size", n, 3);
    const DoubleBuffer pose = readArray<double>(shapes.get(), "pose", "/shapes/pose", n, 7);
    rec.shapes.resize(n);
    for (hsize_t k = 0; k < n; ++k) {
      if (body[k] < 0 || static_cast<hsize_t>(body[k]) >= nb)
        fail("dataset /shapes/body holds " + std::to_string(body[k]) + ", not a body index");
      if (type[k] < 0 || type[k] > static_cast<int>(ShapeType::SignedDistance))
        fail("dataset /shapes/type holds " + std::to_string(type[k]) + ", not a shape type");
      RecordedShape& s = rec.shapes[k];
      s.body = body[k];
      s.type = static_cast<ShapeType>(type[k]);
      s.size = Vec3(size[3 * k], size[3 * k + 1], size[3 * k + 2]);
      const double* p = pose.data() + 7 * k;
      s.pose.position = Vec3(p[0], p[1], p[2]);
      s.pose.orientation = Quat(p[3], p[4], p[5], p[6]);
    }
    readShapeMeshes(shapes.get(), n, rec);
  }

  /// The signed distance shapes' surfaces: required when any shape is of that type.
  void readShapeMeshes(hid_t shapes, hsize_t n, Recording& rec) const {
    bool any = false;
    for (const RecordedShape& s : rec.shapes) any = any || s.type == ShapeType::SignedDistance;
    if (!any) return;
    if (H5Lexists(shapes, "mesh_counts", H5P_DEFAULT) <= 0)
      fail("a signed distance shape needs dataset /shapes/mesh_counts (its surface)");
    const std::vector<int> counts =
        readArray<int>(shapes, "mesh_counts", "/shapes/mesh_counts", n, 2);
    hsize_t nv = 0, nt = 0;
    for (hsize_t k = 0; k < n; ++k) {
      const bool field = rec.shapes[k].type == ShapeType::SignedDistance;
      if (counts[2 * k] < 0 || counts[2 * k + 1] < 0 || (field && counts[2 * k + 1] == 0) ||
          (!field && counts[2 * k] + counts[2 * k + 1] != 0))
        fail("dataset /shapes/mesh_counts row " + std::to_string(k) +
             " does not fit its shape's type");
      nv += static_cast<hsize_t>(counts[2 * k]);
      nt += static_cast<hsize_t>(counts[2 * k + 1]);
    }
    const DoubleBuffer vertices =
        readArray<double>(shapes, "mesh_vertices", "/shapes/mesh_vertices", nv, 3);
    const std::vector<int> triangles =
        readArray<int>(shapes, "mesh_triangles", "/shapes/mesh_triangles", nt, 3);
    std::size_t v = 0, t = 0;
    for (hsize_t k = 0; k < n; ++k) {
      RecordedShape& s = rec.shapes[k];
      for (int i = 0; i < counts[2 * k]; ++i, ++v)
        s.mesh_vertices.emplace_back(vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]);
      for (int i = 0; i < counts[2 * k + 1]; ++i, ++t) {
        const std::array<int, 3> tri{triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2]};
        for (int corner : tri)
          if (corner < 0 || corner >= counts[2 * k])
            fail("dataset /shapes/mesh_triangles row " + std::to_string(t) +
                 " names a vertex its shape does not have");
        s.mesh_triangles.push_back(tri);
      }
    }
  }

  /// Returns the deformables' node count (the rows of each step's deformable_x).
  hsize_t readDeformables(hid_t root, Recording& rec) const {
    Handle group = openGroup(root, "deformables", "/deformables");
    rec.deformable_names = readStrings(group.get(), "names", "/deformables/names");
    const hsize_t nd = rec.deformable_names.size();
    const std::vector<int> nodes =
        readArray<int>(group.get(), "node_count", "/deformables/node_count", nd, 0);
    const std::vector<int> triangles =
        readArray<int>(group.get(), "surface_count", "/deformables/surface_count", nd, 0);
    hsize_t total_nodes = 0, total_triangles = 0;
    for (hsize_t d = 0; d < nd; ++d) {
      if (nodes[d] < 0 || triangles[d] < 0) fail("/deformables holds a negative count");
      total_nodes += static_cast<hsize_t>(nodes[d]);
      total_triangles += static_cast<hsize_t>(triangles[d]);
    }
    rec.deformable_node_count.assign(nodes.begin(), nodes.end());
    rec.deformable_surface_count.assign(triangles.begin(), triangles.end());
    const std::vector<int> surface =
        readArray<int>(group.get(), "surface", "/deformables/surface", total_triangles, 3);
    rec.deformable_surface.resize(total_triangles);
    for (hsize_t t = 0; t < total_triangles; ++t)
      for (int i = 0; i < 3; ++i) {
        const int node = surface[3 * t + i];
        if (node < 0 || static_cast<hsize_t>(node) >= total_nodes)
          fail("dataset /deformables/surface holds node " + std::to_string(node) + " of " +
               std::to_string(total_nodes));
        rec.deformable_surface[t][i] = node;
      }
    return total_nodes;
  }

  std::vector<std::string> readStrings(hid_t group, const char* name,
                                       const std::string& full) const {
    hsize_t n = 0;
    Handle set = openDataset(group, name, full, n, true, 0, true);
    Handle type = checked(H5Dget_type(set.get()), H5Tclose, prefix(), full);
    std::vector<std::string> names(n);
    if (n == 0) return names;
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle memory = variableString(H5Tget_cset(type.get()), prefix());
      std::vector<char*> text(n, nullptr);
      if (H5Dread(set.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0)
        failHdf5(prefix(), full);
      for (hsize_t i = 0; i < n; ++i) {
        names[i] = text[i] != nullptr ? text[i] : "";
        H5free_memory(text[i]);
      }
      return names;
    }
    const std::size_t size = H5Tget_size(type.get());
    std::vector<char> buffer(n * size);
    if (H5Dread(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
      failHdf5(prefix(), full);
    for (hsize_t i = 0; i < n; ++i) {
      const char* begin = buffer.data() + i * size;
      std::size_t len = 0;
      while (len < size && begin[len] != '\0') ++len;
      names[i].assign(begin, len);
    }
    return names;
  }

  void readStep(hid_t g, const std::string& where, hsize_t nb, hsize_t deformable_nodes,
                RecordedStep& step) const {
    if (deformable_nodes > 0) {
      const DoubleBuffer x =
          readArray<double>(g, "deformable_x", where + "deformable_x", deformable_nodes, 3);
      step.deformable_x.resize(deformable_nodes);
      for (hsize_t k = 0; k < deformable_nodes; ++k)
        step.deformable_x[k] = Vec3(x[3 * k], x[3 * k + 1], x[3 * k + 2]);
    }
    step.time = readScalar<double>(g, where, "time");
    step.iterations = readScalar<int>(g, where, "iterations");
    step.residual = readScalar<double>(g, where, "residual");
    // Added after schema version 1 was fixed: recordings written before lack it.
    if (H5Aexists(g, "solve_status") > 0)
      step.solve_status = readStringAttribute(g, where, "solve_status");
    step.solver_ms = readScalar<double>(g, where, "solver_ms");
    step.step_ms = readScalar<double>(g, where, "step_ms");
    step.constraint_residual = readScalar<double>(g, where, "constraint_residual");
    step.contact_fb_residual = readScalar<double>(g, where, "contact_fb_residual");
    step.max_penetration = readScalar<double>(g, where, "max_penetration");
    const int contacts = readScalar<int>(g, where, "contacts");
    if (contacts < 0) fail("attribute " + where + "contacts is negative");
    // Added after schema version 1 was fixed, like solve_status.
    if (H5Aexists(g, "energy") > 0) step.energy = readScalar<double>(g, where, "energy");
    if (H5Aexists(g, "joint_error") > 0)
      step.joint_error = readScalar<double>(g, where, "joint_error");
    const hsize_t nc = static_cast<hsize_t>(contacts);

    const DoubleBuffer position = readArray<double>(g, "position", where + "position", nb, 3);
    const DoubleBuffer orientation =
        readArray<double>(g, "orientation", where + "orientation", nb, 4);
    step.position.resize(nb);
    step.orientation.resize(nb);
    for (hsize_t b = 0; b < nb; ++b) {
      step.position[b] = Vec3(position[3 * b], position[3 * b + 1], position[3 * b + 2]);
      step.orientation[b] = Quat(orientation[4 * b], orientation[4 * b + 1], orientation[4 * b + 2],
                                 orientation[4 * b + 3]);
    }

    const auto vec3s = [&](const char* name) {
      const DoubleBuffer data = readArray<double>(g, name, where + name, nc, 3);
      std::vector<Vec3> out(nc);
      for (hsize_t c = 0; c < nc; ++c) out[c] = Vec3(data[3 * c], data[3 * c + 1], data[3 * c + 2]);
      return out;
    };
    step.contact_point = vec3s("contact_point");
    step.contact_normal = vec3s("contact_normal");
    step.contact_impulse = vec3s("contact_impulse");
    step.contact_gap = readArray<double>(g, "contact_gap", where + "contact_gap", nc, 0);
    const std::vector<int> bodies =
        readArray<int>(g, "contact_bodies", where + "contact_bodies", nc, 2);
    step.contact_bodies.resize(nc);
    for (hsize_t c = 0; c < nc; ++c) step.contact_bodies[c] = {bodies[2 * c], bodies[2 * c + 1]};
  }
};

}  // namespace

Recording readRecording(const std::string& path) {
  silenceHdf5();
  return RecordingReader(path).read();
}

}  // namespace subsim
