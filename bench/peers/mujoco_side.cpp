// The MuJoCo half of the peer comparison: the subsim Model translated to MJCF, run through
// MuJoCo's C API, and judged with subsim's contact metric evaluated on MuJoCo's data.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "peer.hpp"

namespace peer {

namespace {

using subsim::Body;
using subsim::BodyKind;
using subsim::BodyShape;
using subsim::Model;
using subsim::Pose;
using subsim::Quat;
using subsim::ShapeType;
using subsim::Vec3;

std::string vec(const Vec3& v) {
  char s[96];
  std::snprintf(s, sizeof s, "%.17g %.17g %.17g", v.x(), v.y(), v.z());
  return s;
}
// MJCF quaternions are w x y z.
std::string quat(const Quat& q) {
  char s[128];
  std::snprintf(s, sizeof s, "%.17g %.17g %.17g %.17g", q.w(), q.x(), q.y(), q.z());
  return s;
}

/// The contact softness of each setting.  MuJoCo clamps solref's time constant to at least 2 dt
/// (0.02 s here, its default), so "stiff" keeps it and raises the impedance solimp towards 1.
const char* solimpOf(const std::string& contact) {
  return contact == "stiff" ? "0.99 0.99 0.001" : "0.9 0.95 0.001";
}

/// One <geom> for a subsim shape, in its body's frame.  Filters: the cable's segments must not
/// collide with each other (neighbours overlap, as in subsim where the cable masks its own group),
/// so chain geoms get contype 0 / conaffinity 1 and touch only the default contype-1 geoms.
std::string geomXml(const BodyShape& s, bool chain_segment) {
  std::ostringstream g;
  g.precision(17);
  g << "<geom pos=\"" << vec(s.local_pose.position) << "\" quat=\""
    << quat(s.local_pose.orientation) << "\" friction=\"" << s.mu << " 0 0\"";
  switch (s.shape.type) {
    case ShapeType::Sphere:
      g << " type=\"sphere\" size=\"" << s.shape.radius << "\"";
      break;
    case ShapeType::Capsule:  // subsim and MuJoCo both: half length of the segment along local z
      g << " type=\"capsule\" size=\"" << s.shape.radius << " " << s.shape.half_length << "\"";
      break;
    case ShapeType::Box:
      g << " type=\"box\" size=\"" << vec(s.shape.half_extents) << "\"";
      break;
    case ShapeType::Plane:  // subsim: the half-space z <= 0 of its frame, as MuJoCo's plane
      g << " type=\"plane\" size=\"0 0 1\"";
      break;
    case ShapeType::Cylinder:
      g << " type=\"cylinder\" size=\"" << s.shape.radius << " " << s.shape.half_length << "\"";
      break;
    case ShapeType::SignedDistance:
      throw std::invalid_argument(
          "MuJoCo side: a signed distance shape has no MuJoCo geom here (export its surface as a "
          "mesh asset first)");
  }
  if (chain_segment) g << " contype=\"0\" conaffinity=\"1\"";
  g << "/>";
  return g.str();
}

/// Explicit mass properties (compiler inertiafromgeom="false"), so MuJoCo's inertias are subsim's
/// numbers rather than its own estimate from the geoms.
std::string inertialXml(const Body& b) {
  std::ostringstream s;
  s.precision(17);
  s << "<inertial pos=\"0 0 0\" mass=\"" << b.mass << "\" fullinertia=\"" << b.inertia(0, 0) << " "
    << b.inertia(1, 1) << " " << b.inertia(2, 2) << " " << b.inertia(0, 1) << " " << b.inertia(0, 2)
    << " " << b.inertia(1, 2) << "\"/>";
  return s.str();
}

std::string shapesOf(const Model& m, int body, bool chain_segment) {
  std::string out;
  for (int s : m.bodies[body].shapes) out += geomXml(m.shapes[s], chain_segment);
  return out;
}

/// The cable as nested bodies: segment i's frame sits at its centre with local z along the cable
/// (as subsim's), a ball joint at its start end; the first joint is anchored to the world (the
/// pin).
std::string chainXml(const PeerScene& sc) {
  const Model& m = sc.model;
  const double half = 0.5 * sc.chain_segment_length;
  std::ostringstream x;
  for (int i = 0; i < sc.chain_segments; ++i) {
    const int b = sc.chain_first_body + i;
    const Body& body = m.bodies[b];
    if (i == 0) {
      x << "<body name=\"seg0\" pos=\"" << vec(body.initial_pose.position) << "\" quat=\""
        << quat(body.initial_pose.orientation) << "\">";
    } else {
      x << "<body name=\"seg" << i << "\" pos=\"0 0 " << sc.chain_segment_length << "\">";
    }
    x << "<joint type=\"ball\" pos=\"0 0 " << -half << "\" stiffness=\"" << sc.chain_joint_stiffness
      << "\" damping=\"" << sc.chain_joint_damping << "\"/>" << inertialXml(body)
      << shapesOf(m, b, true);
  }
  for (int i = 0; i < sc.chain_segments; ++i) x << "</body>";
  return x.str();
}

}  // namespace

std::string mujocoXml(const PeerScene& sc, const MujocoConfig& c) {
  const Model& m = sc.model;
  // Contact buffers: MuJoCo 2.2 allocates efc_AR as njmax x njmax, so size them to the scene.
  int dynamic = 0;
  for (const Body& b : m.bodies) dynamic += b.kind == BodyKind::Dynamic;
  const int nconmax = 8 * dynamic + 100, njmax = 4 * nconmax;
  std::ostringstream x;
  x.precision(17);
  x << "<mujoco model=\"" << sc.name << "\">\n"
    << "<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n"
    << "<size nconmax=\"" << nconmax << "\" njmax=\"" << njmax << "\"/>\n"
    << "<option timestep=\"" << m.dt << "\" gravity=\"" << vec(m.gravity) << "\" integrator=\""
    << (sc.chain ? "implicit" : "Euler") << "\" solver=\""
    << (c.solver == "pgs"  ? "PGS"
        : c.solver == "cg" ? "CG"
                           : "Newton")
    << "\" iterations=\"" << c.iterations << "\" tolerance=\"" << c.tolerance << "\" cone=\""
    << c.cone << "\"/>\n"
    << "<default><geom condim=\"3\" margin=\"0\" solref=\"0.02 1\" solimp=\"" << solimpOf(c.contact)
    << "\"/></default>\n<worldbody>\n";
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
    const Body& body = m.bodies[b];
    const bool in_chain =
        sc.chain && b >= sc.chain_first_body && b < sc.chain_first_body + sc.chain_segments;
    if (in_chain) continue;
    if (body.kind == BodyKind::Static) {
      // Static shapes become world geoms at the body's pose (MJCF frames compose the same way).
      x << "<body name=\"" << body.name << "\" pos=\"" << vec(body.initial_pose.position)
        << "\" quat=\"" << quat(body.initial_pose.orientation) << "\">" << shapesOf(m, b, false)
        << "</body>\n";
    } else if (body.kind == BodyKind::Dynamic) {
      x << "<body name=\"" << body.name << "\" pos=\"" << vec(body.initial_pose.position)
        << "\" quat=\"" << quat(body.initial_pose.orientation) << "\"><freejoint/>"
        << inertialXml(body) << shapesOf(m, b, false) << "</body>\n";
    } else if (!body.shapes.empty()) {
      // A kinematic body with shapes would need a mocap body, which has no velocity for the
      // contacts; the peer scenes have none (the granular rod's drive is shapeless).
      throw std::runtime_error("mujoco: kinematic body with shapes not supported: " + body.name);
    }
  }
  if (sc.chain) x << chainXml(sc) << "\n";
  x << "</worldbody>\n</mujoco>\n";
  return x.str();
}

std::string mujocoVersion() {
  return std::string(mj_versionString()) + " (header " + std::to_string(mjVERSION_HEADER) + ")";
}

double fbSquared(const double l[3], const double g[3], double mu) {
  const double phi_n = l[0] + g[0] - std::sqrt(l[0] * l[0] + g[0] * g[0]);
  const double a1 = l[1] - g[1], a2 = l[2] - g[2];
  const double radius = mu * std::max(l[0], 0.0), norm = std::hypot(a1, a2);
  const double scale = norm > radius ? radius / norm : 1.0;
  const double p1 = l[1] - scale * a1, p2 = l[2] - scale * a2;
  return phi_n * phi_n + p1 * p1 + p2 * p2;
}

namespace {

std::string shortNumber(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", v);
  return s;
}

/// MuJoCo's timers run only with a clock callback; milliseconds.
mjtNum clockMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

/// mj_loadXML reads files only: the text goes through a virtual file system.
std::unique_ptr<mjModel, ModelDeleter> loadFromString(const std::string& xml) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const char* name = "peer.xml";
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(xml.size())) != 0)
    throw std::runtime_error("mujoco: cannot create the in-memory MJCF file");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], xml.data(), xml.size());
  char error[1000] = "";
  mjModel* m = mj_loadXML(name, vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  if (!m) throw std::runtime_error(std::string("mujoco: ") + error);
  return std::unique_ptr<mjModel, ModelDeleter>(m);
}

/// subsim's compliant welds to shapeless kinematic drives (the granular rod) as a spring-damper
/// force and torque in xfrc_applied.  subsim solves the weld implicitly with the contacts; an
/// explicit spring here blows up (the rod's inertia about its own axis, 1e-5 kg m^2, against the
/// isotropic angular stiffness gives h w = 4), so each axis is integrated by backward Euler on its
/// own (mass, or principal inertia, spring and damper; the contacts are not in that solve):
///   v+ = (I v + h f_ext + h k e + h c v_d) / (I + h c + h^2 k),  F = k (e - h v+) + c (v_d - v+),
/// with e the error to the drive's pose at the end of the step.
struct Drive {
  int body = -1;  // subsim body index of the driven body
  int qpos = -1;  // its free joint's addresses in MuJoCo
  int dof = -1;
  int mj_body = -1;
  const subsim::Joint* joint = nullptr;
  const Body* drive = nullptr;
};

std::vector<Drive> drivesOf(const Model& m, const mjModel* mm) {
  std::vector<Drive> drives;
  for (const subsim::Joint& j : m.joints) {
    if (j.type != subsim::JointType::Weld || !j.compliant() || j.body_b < 0) continue;
    if (m.bodies[j.body_b].kind != BodyKind::Kinematic) continue;
    Drive d;
    d.body = j.body_a;
    d.mj_body = mj_name2id(mm, mjOBJ_BODY, m.bodies[j.body_a].name.c_str());
    if (d.mj_body < 0) throw std::runtime_error("mujoco: driven body missing");
    const int joint = mm->body_jntadr[d.mj_body];
    if (joint < 0 || mm->jnt_type[joint] != mjJNT_FREE)
      throw std::runtime_error("mujoco: driven body without a free joint");
    d.qpos = mm->jnt_qposadr[joint];
    d.dof = mm->jnt_dofadr[joint];
    d.joint = &j;
    d.drive = &m.bodies[j.body_b];
    if (!j.anchor_a.isZero() || !m.bodies[j.body_a].inertia.isDiagonal())
      throw std::runtime_error("mujoco: drive off the centre of mass or off the principal axes");
    drives.push_back(d);
  }
  return drives;
}

/// Backward Euler on one axis: the spring-damper force (see Drive).
double implicitSpring(double inertia, double v, double f_ext, double k, double c, double e,
                      double v_target, double h) {
  const double v_next =
      (inertia * v + h * f_ext + h * k * e + h * c * v_target) / (inertia + h * c + h * h * k);
  return k * (e - h * v_next) + c * (v_target - v_next);
}

void applyDrives(const std::vector<Drive>& drives, const Model& sm, const mjData* d, mjtNum* xfrc,
                 double h) {
  for (const Drive& dr : drives) {
    const subsim::Joint& j = *dr.joint;
    const Body& body = sm.bodies[dr.body];
    const double t = d->time;
    const Pose p = dr.drive->trajectory.pose(t + h);
    const Vec3 v_drive =
        (dr.drive->trajectory.pose(t + h).position - dr.drive->trajectory.pose(t).position) / h;
    // The state after the last step: free joint qpos [x, quat (w x y z)], qvel [v world, w local]
    // (xipos and xquat still hold the previous step's start).
    const mjtNum* qp = d->qpos + dr.qpos;
    const mjtNum* qv = d->qvel + dr.dof;
    const Vec3 x(qp[0], qp[1], qp[2]);
    const Quat q(qp[3], qp[4], qp[5], qp[6]);
    const Vec3 e = p.transformPoint(j.anchor_b) - x;
    Vec3 force;
    for (int k = 0; k < 3; ++k)
      force[k] = implicitSpring(body.mass, qv[k], body.mass * sm.gravity[k], j.stiffness, j.damping,
                                e[k], v_drive[k], h);
    // Rotation error in the body frame, q^-1 q_target as a rotation vector.
    const Eigen::AngleAxisd err(q.conjugate() * p.orientation * j.rest_relative);
    const Vec3 theta = err.angle() * err.axis();
    Vec3 torque_local;
    for (int k = 0; k < 3; ++k)
      torque_local[k] = implicitSpring(body.inertia(k, k), qv[3 + k], 0.0, j.angular_stiffness,
                                       j.angular_damping, theta[k], 0.0, h);
    const Vec3 torque = q * torque_local;
    for (int k = 0; k < 3; ++k) {
      xfrc[6 * dr.mj_body + k] = force[k];
      xfrc[6 * dr.mj_body + 3 + k] = torque[k];
    }
  }
}

/// The contact-frame velocity [n, t1, t2] of contact i from its efc rows J v: elliptic cones have
/// the frame rows themselves, pyramidal ones the edges n +- mu t_k.
void contactVelocity(const mjContact& con, const std::vector<mjtNum>& jv, bool elliptic,
                     double g[3]) {
  const mjtNum* r = jv.data() + con.efc_address;
  if (elliptic) {
    for (int k = 0; k < 3; ++k) g[k] = r[k];
  } else {
    const double mu = con.friction[0];
    g[0] = 0.5 * (r[0] + r[1]);
    g[1] = (r[0] - r[1]) / (2 * mu);
    g[2] = (r[2] - r[3]) / (2 * mu);
  }
}

}  // namespace

RunFigures runMujoco(const PeerScene& sc, const MujocoConfig& c) {
  const std::string xml = mujocoXml(sc, c);
  auto model = loadFromString(xml);
  mjModel* m = model.get();
  std::unique_ptr<mjData, DataDeleter> data(mj_makeData(m));
  mjData* d = data.get();
  mjcb_time = clockMs;
  // mj_makeData leaves the derived quantities (xipos, xquat) zero: the drives read them.
  mj_forward(m, d);
  const std::vector<Drive> drives = drivesOf(sc.model, m);
  const bool elliptic = c.cone == "elliptic";
  const double h = sc.model.dt, erp = sc.model.contact.erp;

  RunFigures f;
  f.engine = "MuJoCo " +
             std::string(c.solver == "pgs"  ? "PGS"
                         : c.solver == "cg" ? "CG"
                                            : "Newton") +
             " " + c.cone + " " + c.contact;
  f.iterations = std::to_string(c.iterations) +
                 (c.tolerance > 0 ? ", tol " + shortNumber(c.tolerance) : ", tol 0");
  double step_ms = 0.0, fb_sum = 0.0;
  long contacts = 0, iterations = 0;
  std::vector<mjtNum> jv;
  for (int k = 0; k < sc.steps; ++k) {
    applyDrives(drives, sc.model, d, d->xfrc_applied, h);
    const auto t0 = std::chrono::steady_clock::now();
    mj_step(m, d);
    step_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ++f.steps_completed;
    iterations += d->solver_iter;
    contacts += d->ncon;
    // Post-step: qvel is v_{k+1}, the velocity MuJoCo's constraints act on; efc_J and the
    // contacts are those of the step (taken at q_k, as subsim's).
    jv.assign(std::max(d->nefc, 1), 0.0);
    if (d->nefc > 0) mj_mulJacVec(m, d, jv.data(), d->qvel);
    double sum = 0.0;
    int judged = 0;
    for (int i = 0; i < d->ncon; ++i) {
      const mjContact& con = d->contact[i];
      f.max_penetration_m = std::max(f.max_penetration_m, -con.dist);
      if (con.efc_address < 0) continue;
      mjtNum force[6];
      mj_contactForce(m, d, i, force);  // contact frame [n, t1, t2], N
      const double lambda[3] = {force[0] * h, force[1] * h, force[2] * h};
      double g[3];
      contactVelocity(con, jv, elliptic, g);
      // subsim's gap term: e = gap / h (speculative, gap >= 0) or erp gap / h (penetration).
      g[0] += (con.dist >= 0 ? con.dist : erp * con.dist) / h;
      sum += fbSquared(lambda, g, con.friction[0]);
      ++judged;
    }
    if (judged > 0) {
      const double r = std::sqrt(sum) / judged;
      fb_sum += r > 1e-16 ? -std::log10(r) : 16.0;
      ++f.steps_with_contacts;
    }
    bool bad = false;
    for (int q = 0; q < m->nv; ++q) bad = bad || !std::isfinite(d->qvel[q]);
    if (bad) {
      f.note = "diverged (non-finite velocity) at step " + std::to_string(k + 1);
      break;
    }
  }
  const int n = std::max(f.steps_completed, 1);
  f.step_ms_mean = step_ms / n;
  f.solver_ms_mean = d->timer[mjTIMER_CONSTRAINT].duration / n;
  f.iterations_mean = static_cast<double>(iterations) / n;
  f.contacts_mean = static_cast<double>(contacts) / n;
  f.accuracy_fb_mean = f.steps_with_contacts > 0 ? fb_sum / f.steps_with_contacts : 0.0;
  if (d->warning[mjWARN_CONTACTFULL].number > 0 || d->warning[mjWARN_CNSTRFULL].number > 0)
    f.note += (f.note.empty() ? "" : "; ") + std::string("contact buffer full");
  // MuJoCo resets the state itself on a non-finite acceleration, which would hide a divergence.
  if (d->warning[mjWARN_BADQACC].number > 0 || d->warning[mjWARN_BADQVEL].number > 0)
    f.note += (f.note.empty() ? "" : "; ") + std::string("MuJoCo reset on bad qacc/qvel");
  mjcb_time = nullptr;
  return f;
}

}  // namespace peer
