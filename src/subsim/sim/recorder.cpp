#include "subsim/sim/recorder.hpp"

#include <hdf5.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace subsim {
namespace {

constexpr int kSchemaVersion = 1;

// Owns one HDF5 identifier, so that every early return and exception closes what was opened
// (a leaked identifier keeps the file open and its last writes unflushed).
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  void reset() {
    // A destructor cannot report a failed close; HDF5 has already recorded it on its stack.
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = H5I_INVALID_HID;
  }
  /// Closes now and reports failure, for the file, whose close performs the final flush.
  herr_t close() {
    const herr_t status = id_ >= 0 && closer_ != nullptr ? closer_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

// HDF5 prints its error stack to stderr by default; the recorder reports errors by exception
// instead.  The setting is global (per thread in thread-safe HDF5 builds), so it is made by each
// entry point rather than once.
void silenceHdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

// Why the last HDF5 call failed, from the innermost entry of its error stack (the outer entries
// only say which call failed); clears the stack.  For system errors HDF5's text is long
// ("unable to open file: name = ..., errno = 2, error message = 'No such file or directory',
// flags = ..."), so only the system's message is kept.
std::string hdf5Detail() {
  std::string detail;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* err, void* data) -> herr_t {
        if (n == 0 && err != nullptr && err->desc != nullptr)
          *static_cast<std::string*>(data) = err->desc;
        return 0;
      },
      &detail);
  H5Eclear2(H5E_DEFAULT);
  const std::string marker = "error message = '";
  const std::size_t begin = detail.find(marker);
  if (begin != std::string::npos) {
    const std::size_t end = detail.find('\'', begin + marker.size());
    if (end != std::string::npos)
      return detail.substr(begin + marker.size(), end - begin - marker.size());
  }
  return detail.empty() ? "HDF5 error" : detail;
}

// Every failure below is reported as "<context><what>: <HDF5's reason>"; the context names the
// file (and the step) so that the message stands alone.
[[noreturn]] void failHdf5(const std::string& context, const std::string& what) {
  throw std::runtime_error(context + (what.empty() ? "" : what + ": ") + hdf5Detail());
}

Handle checked(hid_t id, Handle::Closer closer, const std::string& context,
               const std::string& what) {
  if (id < 0) failHdf5(context, what);
  return Handle(id, closer);
}

void checkStatus(herr_t status, const std::string& context, const std::string& what) {
  if (status < 0) failHdf5(context, what);
}

// HDF5 converts between ASCII and UTF-8 strings not at all, so a reader must ask for the
// character set the file holds (h5py writes UTF-8, C tools often ASCII).
Handle variableString(H5T_cset_t cset, const std::string& context) {
  Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, context, "string type");
  checkStatus(H5Tset_size(type.get(), H5T_VARIABLE), context, "string type");
  checkStatus(H5Tset_cset(type.get(), cset), context, "string type");
  return type;
}

// ---------------------------------------------------------------------------------------------
// Writing

template <typename T>
struct Hdf5Type;
template <>
struct Hdf5Type<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t memory() { return H5T_NATIVE_DOUBLE; }
};
template <>
struct Hdf5Type<int> {
  static hid_t file() { return H5T_STD_I32LE; }
  static hid_t memory() { return H5T_NATIVE_INT; }
};

template <typename T>
void writeAttribute(hid_t object, const char* name, T value, const std::string& context) {
  const std::string what = std::string("attribute '") + name + "'";
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, context, what);
  Handle attr =
      checked(H5Acreate2(object, name, Hdf5Type<T>::file(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, context, what);
  checkStatus(H5Awrite(attr.get(), Hdf5Type<T>::memory(), &value), context, what);
}

void writeStringAttribute(hid_t object, const char* name, const std::string& value,
                          const std::string& context) {
  const std::string what = std::string("attribute '") + name + "'";
  Handle type = variableString(H5T_CSET_UTF8, context);
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, context, what);
  Handle attr = checked(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, context, what);
  const char* text = value.c_str();
  checkStatus(H5Awrite(attr.get(), type.get(), &text), context, what);
}

/// A rows x cols dataset (cols == 0: a 1-D dataset of `rows`), row-major `data`.  Zero rows give
/// a zero-size dataset, which HDF5 allows with the default contiguous layout.
template <typename T>
void writeArray(hid_t group, const char* name, const T* data, hsize_t rows, hsize_t cols,
                const std::string& context) {
  const std::string what = std::string("dataset '") + name + "'";
  const hsize_t dims[2] = {rows, cols};
  Handle space =
      checked(H5Screate_simple(cols == 0 ? 1 : 2, dims, nullptr), H5Sclose, context, what);
  Handle set = checked(H5Dcreate2(group, name, Hdf5Type<T>::file(), space.get(), H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose, context, what);
  // Nothing to transfer for an empty dataset (and `data` may then be null).
  if (rows == 0) return;
  checkStatus(H5Dwrite(set.get(), Hdf5Type<T>::memory(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
              context, what);
}

std::string stepGroupName(int step) {
  char name[32];
  std::snprintf(name, sizeof(name), "%06d", step);
  return name;
}

}  // namespace

struct Recorder::Impl {
  std::string path;
  int bodies = 0;
  int steps = 0;
  Handle file;
  Handle steps_group;
  // Reused across steps so that recording does not allocate once the contact count settles.
  std::vector<double> position, orientation, contact_point, contact_normal, contact_impulse,
      contact_gap;
  std::vector<int> contact_bodies;
};

Recorder::Recorder(const std::string& path, const Model& model, const RecordingInfo& info)
    : impl_(std::make_unique<Impl>()) {
  silenceHdf5();
  impl_->path = path;
  impl_->bodies = static_cast<int>(model.bodies.size());
  const std::string context = "cannot create recording '" + path + "': ";

  Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, context, "file access list");
  // Closing the file then closes anything still open in it, so the destructor always releases it.
  checkStatus(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), context, "file access list");
  impl_->file = checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                        context, "");
  const hid_t root = impl_->file.get();

  writeAttribute(root, "schema_version", kSchemaVersion, context);
  writeStringAttribute(root, "scene", info.scene, context);
  writeStringAttribute(root, "solver", info.solver, context);
  writeAttribute(root, "dt", info.dt, context);
  writeAttribute(root, "threads", info.threads, context);
  writeAttribute(root, "iterations_cap", info.iterations_cap, context);
  writeAttribute(root, "tolerance", info.tolerance, context);

  Handle bodies = checked(H5Gcreate2(root, "bodies", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          H5Gclose, context, "group 'bodies'");
  {
    Handle type = variableString(H5T_CSET_UTF8, context);
    const hsize_t n = model.bodies.size();
    Handle space = checked(H5Screate_simple(1, &n, nullptr), H5Sclose, context, "bodies/names");
    Handle names = checked(H5Dcreate2(bodies.get(), "names", type.get(), space.get(), H5P_DEFAULT,
                                      H5P_DEFAULT, H5P_DEFAULT),
                           H5Dclose, context, "bodies/names");
    std::vector<const char*> text;
    for (const Body& b : model.bodies) text.push_back(b.name.c_str());
    if (n > 0)
      checkStatus(H5Dwrite(names.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()),
                  context, "bodies/names");
  }
  std::vector<int> kinds;
  for (const Body& b : model.bodies) kinds.push_back(static_cast<int>(b.kind));
  writeArray(bodies.get(), "kind", kinds.data(), kinds.size(), 0, context);

  impl_->steps_group = checked(H5Gcreate2(root, "steps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                               H5Gclose, context, "group 'steps'");
}

Recorder::~Recorder() {
  impl_->steps_group.reset();
  impl_->file.close();
}

int Recorder::stepsRecorded() const {
  return impl_->steps;
}

void Recorder::record(const World& world, const StepReport& report, const StepMetrics& metrics) {
  Impl& r = *impl_;
  const State& state = world.state();
  if (state.numBodies() != r.bodies)
    throw std::invalid_argument("Recorder::record: the world has " +
                                std::to_string(state.numBodies()) + " bodies, the recording " +
                                std::to_string(r.bodies));
  const std::vector<AssembledContact>& contacts = world.lastContacts();
  const StepProblem& problem = world.lastProblem();
  const VecX& lambda = world.lastSolution().lambda;

  // Gather everything before touching the file, so that a world without impulses for its
  // contacts leaves no partial step group.
  const std::size_t nb = static_cast<std::size_t>(r.bodies);
  r.position.resize(3 * nb);
  r.orientation.resize(4 * nb);
  for (std::size_t b = 0; b < nb; ++b) {
    const Pose& pose = state.pose[b];
    for (int i = 0; i < 3; ++i) r.position[3 * b + i] = pose.position[i];
    const Quat& q = pose.orientation;
    r.orientation[4 * b + 0] = q.w();
    r.orientation[4 * b + 1] = q.x();
    r.orientation[4 * b + 2] = q.y();
    r.orientation[4 * b + 3] = q.z();
  }
  const std::size_t nc = contacts.size();
  r.contact_point.resize(3 * nc);
  r.contact_normal.resize(3 * nc);
  r.contact_impulse.resize(3 * nc);
  r.contact_gap.resize(nc);
  r.contact_bodies.resize(2 * nc);
  for (std::size_t c = 0; c < nc; ++c) {
    const AssembledContact& contact = contacts[c];
    if (contact.constraint < 0 || contact.constraint >= problem.numConstraints() ||
        problem.constraints[contact.constraint].row_offset + 3 > lambda.size())
      throw std::logic_error("Recorder::record: contact " + std::to_string(c) +
                             " has no impulse in the world's last solution");
    const int row = problem.constraints[contact.constraint].row_offset;
    for (int i = 0; i < 3; ++i) {
      r.contact_point[3 * c + i] = contact.geometry.point[i];
      r.contact_normal[3 * c + i] = contact.geometry.normal[i];
      r.contact_impulse[3 * c + i] = lambda[row + i];
    }
    r.contact_gap[c] = contact.geometry.gap;
    r.contact_bodies[2 * c + 0] = contact.body_a;
    r.contact_bodies[2 * c + 1] = contact.body_b;
  }

  const std::string name = stepGroupName(r.steps);
  const std::string context =
      "cannot write recording '" + r.path + "': step " + std::to_string(r.steps) + ": ";
  Handle group =
      checked(H5Gcreate2(r.steps_group.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              H5Gclose, context, "group 'steps/" + name + "'");
  try {
    const hid_t g = group.get();
    writeAttribute(g, "time", state.time, context);
    writeAttribute(g, "iterations", report.iterations, context);
    writeAttribute(g, "residual", report.residual, context);
    writeAttribute(g, "solver_ms", report.solver_ms, context);
    writeAttribute(g, "step_ms", report.step_ms, context);
    writeAttribute(g, "constraint_residual", metrics.constraint_residual, context);
    writeAttribute(g, "contact_fb_residual", metrics.contact_fb_residual, context);
    writeAttribute(g, "max_penetration", report.max_penetration, context);
    // The rows actually recorded, which is what a reader needs (equal to report.contacts).
    writeAttribute(g, "contacts", static_cast<int>(nc), context);
    writeArray(g, "position", r.position.data(), nb, 3, context);
    writeArray(g, "orientation", r.orientation.data(), nb, 4, context);
    writeArray(g, "contact_point", r.contact_point.data(), nc, 3, context);
    writeArray(g, "contact_normal", r.contact_normal.data(), nc, 3, context);
    writeArray(g, "contact_impulse", r.contact_impulse.data(), nc, 3, context);
    writeArray(g, "contact_gap", r.contact_gap.data(), nc, 0, context);
    writeArray(g, "contact_bodies", r.contact_bodies.data(), nc, 2, context);
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
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Recording read() {
    const htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
    if (is_hdf5 < 0) failHdf5("cannot open recording '" + path_ + "': ", "");
    if (is_hdf5 == 0) fail("not an HDF5 file");
    Handle file = checked(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                          "cannot open recording '" + path_ + "': ", "");
    const hid_t root = file.get();

    Recording rec;
    const int version = readScalar<int>(root, "/", "schema_version");
    if (version != kSchemaVersion)
      fail("attribute /schema_version is " + std::to_string(version) + ", this reader knows " +
           std::to_string(kSchemaVersion));
    rec.scene = readStringAttribute(root, "/", "scene");
    rec.solver = readStringAttribute(root, "/", "solver");
    rec.dt = readScalar<double>(root, "/", "dt");

    Handle bodies = openGroup(root, "bodies", "/bodies");
    rec.body_names = readStrings(bodies.get(), "/bodies/names");
    const hsize_t nb = rec.body_names.size();
    readArray<int>(bodies.get(), "kind", "/bodies/kind", nb, 0);

    Handle steps = openGroup(root, "steps", "/steps");
    H5G_info_t info;
    if (H5Gget_info(steps.get(), &info) < 0) failHdf5(prefix(), "/steps");
    rec.steps.resize(info.nlinks);
    for (hsize_t k = 0; k < info.nlinks; ++k) {
      const std::string name = stepGroupName(static_cast<int>(k));
      // Groups are numbered from 000000 without gaps; any other member means a foreign file.
      Handle group = openGroup(steps.get(), name, "/steps/" + name);
      readStep(group.get(), "/steps/" + name + "/", nb, rec.steps[k]);
    }
    return rec;
  }

 private:
  std::string prefix() const { return "'" + path_ + "' is not a valid subsim recording: "; }
  [[noreturn]] void fail(const std::string& what) const {
    H5Eclear2(H5E_DEFAULT);
    throw std::runtime_error(prefix() + what);
  }

  Handle openGroup(hid_t parent, const std::string& name, const std::string& full) const {
    if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) fail("missing group " + full);
    const hid_t id = H5Gopen2(parent, name.c_str(), H5P_DEFAULT);
    if (id < 0) fail(full + " is not a group");
    return Handle(id, H5Gclose);
  }

  Handle openAttribute(hid_t object, const std::string& where, const char* name) const {
    if (H5Aexists(object, name) <= 0) fail("missing attribute " + where + name);
    Handle attr = checked(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, prefix(), where + name);
    Handle space = checked(H5Aget_space(attr.get()), H5Sclose, prefix(), where + name);
    if (H5Sget_simple_extent_npoints(space.get()) != 1)
      fail("attribute " + where + name + " is not a single value");
    return attr;
  }

  template <typename T>
  T readScalar(hid_t object, const std::string& where, const char* name) const {
    Handle attr = openAttribute(object, where, name);
    Handle type = checked(H5Aget_type(attr.get()), H5Tclose, prefix(), where + name);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
      fail("attribute " + where + name + " is not a number");
    T value{};
    if (H5Aread(attr.get(), Hdf5Type<T>::memory(), &value) < 0)
      fail("attribute " + where + name + " cannot be read as a number: " + hdf5Detail());
    return value;
  }

  std::string readStringAttribute(hid_t object, const std::string& where, const char* name) const {
    const std::string full = where + name;
    Handle attr = openAttribute(object, where, name);
    Handle type = checked(H5Aget_type(attr.get()), H5Tclose, prefix(), full);
    if (H5Tget_class(type.get()) != H5T_STRING) fail("attribute " + full + " is not a string");
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle memory = variableString(H5Tget_cset(type.get()), prefix());
      char* text = nullptr;
      if (H5Aread(attr.get(), memory.get(), &text) < 0) failHdf5(prefix(), full);
      std::string value = text != nullptr ? text : "";
      H5free_memory(text);
      return value;
    }
    // Fixed-length strings (as other tools write them) are accepted too.
    const std::size_t size = H5Tget_size(type.get());
    std::string value(size, '\0');
    if (size > 0 && H5Aread(attr.get(), type.get(), value.data()) < 0) failHdf5(prefix(), full);
    value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
    return value;
  }

  /// Opens dataset `full` (`name` in `group`) after checking that it exists, holds strings or
  /// numbers as asked, has rank 1 (cols == 0) or 2 with `cols` columns, and `rows` rows unless
  /// `any_rows`; returns the row count through `rows`.
  Handle openDataset(hid_t group, const char* name, const std::string& full, hsize_t& rows,
                     bool any_rows, hsize_t cols, bool strings) const {
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) fail("missing dataset " + full);
    const hid_t id = H5Dopen2(group, name, H5P_DEFAULT);
    if (id < 0) fail(full + " is not a dataset");
    Handle set(id, H5Dclose);
    Handle type = checked(H5Dget_type(set.get()), H5Tclose, prefix(), full);
    const H5T_class_t cls = H5Tget_class(type.get());
    const bool numeric = cls == H5T_INTEGER || cls == H5T_FLOAT;
    if (strings ? cls != H5T_STRING : !numeric)
      fail("dataset " + full + " does not hold " + (strings ? "strings" : "numbers"));
    Handle space = checked(H5Dget_space(set.get()), H5Sclose, prefix(), full);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    const int want_rank = cols == 0 ? 1 : 2;
    if (rank != want_rank)
      fail("dataset " + full + " has rank " + std::to_string(rank) + ", expected " +
           std::to_string(want_rank));
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) failHdf5(prefix(), full);
    if (cols != 0 && dims[1] != cols)
      fail("dataset " + full + " has " + std::to_string(dims[1]) + " columns, expected " +
           std::to_string(cols));
    if (!any_rows && dims[0] != rows)
      fail("dataset " + full + " has " + std::to_string(dims[0]) + " rows, expected " +
           std::to_string(rows));
    rows = dims[0];
    return set;
  }

  /// Row-major contents of a rows x cols (cols == 0: 1-D) numeric dataset.
  template <typename T>
  std::vector<T> readArray(hid_t group, const char* name, const std::string& full, hsize_t rows,
                           hsize_t cols) const {
    hsize_t n = rows;
    Handle set = openDataset(group, name, full, n, false, cols, false);
    std::vector<T> data(n * (cols == 0 ? 1 : cols));
    // Zero-row datasets hold nothing to read (and H5Dread rejects a null buffer).
    if (!data.empty() &&
        H5Dread(set.get(), Hdf5Type<T>::memory(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
      fail("dataset " + full + " cannot be read as numbers: " + hdf5Detail());
    return data;
  }

  std::vector<std::string> readStrings(hid_t group, const std::string& full) const {
    hsize_t n = 0;
    Handle set = openDataset(group, "names", full, n, true, 0, true);
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

  void readStep(hid_t g, const std::string& where, hsize_t nb, RecordedStep& step) const {
    step.time = readScalar<double>(g, where, "time");
    step.iterations = readScalar<int>(g, where, "iterations");
    step.residual = readScalar<double>(g, where, "residual");
    step.solver_ms = readScalar<double>(g, where, "solver_ms");
    step.constraint_residual = readScalar<double>(g, where, "constraint_residual");
    step.contact_fb_residual = readScalar<double>(g, where, "contact_fb_residual");
    step.max_penetration = readScalar<double>(g, where, "max_penetration");
    const int contacts = readScalar<int>(g, where, "contacts");
    if (contacts < 0) fail("attribute " + where + "contacts is negative");
    const hsize_t nc = static_cast<hsize_t>(contacts);

    const std::vector<double> position =
        readArray<double>(g, "position", where + "position", nb, 3);
    const std::vector<double> orientation =
        readArray<double>(g, "orientation", where + "orientation", nb, 4);
    step.position.resize(nb);
    step.orientation.resize(nb);
    for (hsize_t b = 0; b < nb; ++b) {
      step.position[b] = Vec3(position[3 * b], position[3 * b + 1], position[3 * b + 2]);
      step.orientation[b] = Quat(orientation[4 * b], orientation[4 * b + 1], orientation[4 * b + 2],
                                 orientation[4 * b + 3]);
    }

    const auto vec3s = [&](const char* name) {
      const std::vector<double> data = readArray<double>(g, name, where + name, nc, 3);
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

  std::string path_;
};

}  // namespace

Recording readRecording(const std::string& path) {
  silenceHdf5();
  return Reader(path).read();
}

}  // namespace subsim
