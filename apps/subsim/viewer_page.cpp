#include "viewer_page.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace subsim::cli {

// The page template and three.js, embedded at build time (CMakeLists.txt: viewer_assets.cpp).
extern const unsigned char kViewerTemplate[];
extern const unsigned char kThreeJs[];
extern const bool kHaveThreeJs;

namespace {

/// Base64 of the raw bytes of `values` (little-endian on every machine subsim builds for).
template <typename T>
std::string base64(const std::vector<T>& values) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  const std::size_t n = values.size() * sizeof(T);
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (std::size_t i = 0; i < n; i += 3) {
    const std::uint32_t b0 = bytes[i], b1 = i + 1 < n ? bytes[i + 1] : 0,
                        b2 = i + 2 < n ? bytes[i + 2] : 0;
    const std::uint32_t word = (b0 << 16) | (b1 << 8) | b2;
    out += digits[(word >> 18) & 63];
    out += digits[(word >> 12) & 63];
    out += i + 1 < n ? digits[(word >> 6) & 63] : '=';
    out += i + 2 < n ? digits[word & 63] : '=';
  }
  return out;
}

void append(std::vector<float>& out, const Vec3& v) {
  for (int i = 0; i < 3; ++i) out.push_back(static_cast<float>(v[i]));
}

void replaceOnce(std::string& text, const std::string& marker, const std::string& value) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) throw std::logic_error("viewer template lacks " + marker);
  text.replace(at, marker.size(), value);
}

}  // namespace

bool viewerAvailable() {
  return kHaveThreeJs;
}

namespace {

/// The part of the page's data that does not change as steps arrive.
nlohmann::json headerJson(const Recording& rec) {
  nlohmann::json d;
  d["scene"] = rec.scene;
  d["solver"] = rec.solver;
  d["dt"] = rec.dt;
  d["bodies"] = nlohmann::json::array();
  for (std::size_t b = 0; b < rec.body_names.size(); ++b)
    d["bodies"].push_back(
        {{"name", rec.body_names[b]}, {"kind", b < rec.body_kind.size() ? rec.body_kind[b] : 0}});
  d["shapes"] = nlohmann::json::array();
  for (const RecordedShape& s : rec.shapes) {
    nlohmann::json shape = {
        {"body", s.body},
        {"type", static_cast<int>(s.type)},
        {"size", {s.size.x(), s.size.y(), s.size.z()}},
        {"pose",
         {s.pose.position.x(), s.pose.position.y(), s.pose.position.z(), s.pose.orientation.w(),
          s.pose.orientation.x(), s.pose.orientation.y(), s.pose.orientation.z()}}};
    if (!s.mesh_triangles.empty()) {
      std::vector<float> vertices;
      std::vector<std::int32_t> triangles;
      for (const Vec3& v : s.mesh_vertices)
        for (int i = 0; i < 3; ++i) vertices.push_back(static_cast<float>(v[i]));
      for (const auto& t : s.mesh_triangles) triangles.insert(triangles.end(), t.begin(), t.end());
      shape["vertices"] = vertices;
      shape["triangles"] = triangles;
    }
    d["shapes"].push_back(std::move(shape));
  }
  d["deformable_names"] = rec.deformable_names;
  int nodes = 0;
  for (int n : rec.deformable_node_count) nodes += n;
  d["deformable_nodes"] = nodes;
  std::vector<std::int32_t> surface;
  for (const auto& tri : rec.deformable_surface)
    surface.insert(surface.end(), tri.begin(), tri.end());
  d["deformable_surface"] = base64(surface);
  return d;
}

/// Steps [first, end) of `rec`, as the fields the page's data documents.
nlohmann::json framesJson(const Recording& rec, std::size_t first, std::size_t end) {
  nlohmann::json d, time = nlohmann::json::array(), solver_ms = nlohmann::json::array(),
                    residual = nlohmann::json::array(), penetration = nlohmann::json::array(),
                    energy = nlohmann::json::array();
  std::vector<float> position, orientation, deformable_x, point, normal, impulse;
  std::vector<std::int32_t> contact_begin{0};
  for (std::size_t k = first; k < end; ++k) {
    const RecordedStep& s = rec.steps[k];
    time.push_back(s.time);
    solver_ms.push_back(s.solver_ms);
    residual.push_back(s.residual);
    penetration.push_back(s.max_penetration);
    energy.push_back(s.energy ? nlohmann::json(*s.energy) : nlohmann::json());
    for (std::size_t b = 0; b < s.position.size(); ++b) {
      append(position, s.position[b]);
      const Quat& q = s.orientation[b];
      for (double x : {q.w(), q.x(), q.y(), q.z()}) orientation.push_back(static_cast<float>(x));
    }
    for (const Vec3& x : s.deformable_x) append(deformable_x, x);
    for (std::size_t c = 0; c < s.contact_point.size(); ++c) {
      append(point, s.contact_point[c]);
      append(normal, s.contact_normal[c]);
      append(impulse, s.contact_impulse[c]);
    }
    contact_begin.push_back(static_cast<std::int32_t>(point.size() / 3));
  }
  d["first"] = first;
  d["time"] = time;
  d["solver_ms"] = solver_ms;
  d["residual"] = residual;
  d["max_penetration"] = penetration;
  d["energy"] = energy;
  d["position"] = base64(position);
  d["orientation"] = base64(orientation);
  d["deformable_x"] = base64(deformable_x);
  d["contact_begin"] = base64(contact_begin);
  d["contact_point"] = base64(point);
  d["contact_normal"] = base64(normal);
  d["contact_impulse"] = base64(impulse);
  return d;
}

/// JSON text; "</" escaped, since inside a script element it would end it (a body named
/// "</script>", say).
std::string scriptText(const nlohmann::json& d) {
  std::string text = d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

std::string pageWith(const Recording& rec, const std::string& data) {
  if (!viewerAvailable())
    throw std::runtime_error(
        "this subsim was built without three.js, which the page needs: run scripts/setup.sh "
        "(it installs three.js with npm into viewer/node_modules), then build again");
  std::string page = reinterpret_cast<const char*>(kViewerTemplate);
  std::string title;
  for (char c : rec.scene) title += c == '&' ? "&amp;" : c == '<' ? "&lt;" : std::string(1, c);
  replaceOnce(page, "@TITLE@", title);
  replaceOnce(page, "/*THREE_JS*/", reinterpret_cast<const char*>(kThreeJs));
  replaceOnce(page, "/*SUBSIM_DATA*/", data);
  return page;
}

}  // namespace

std::string viewerData(const Recording& rec) {
  nlohmann::json d = headerJson(rec);
  d["live"] = false;
  d["frames"] = framesJson(rec, 0, rec.steps.size());
  return scriptText(d);
}

std::string viewerFrames(const Recording& rec, std::size_t first, std::size_t end, bool done) {
  nlohmann::json d = framesJson(rec, first, end);
  d["done"] = done && end == rec.steps.size();
  return d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::size_t viewerFramesEnd(const Recording& rec, std::size_t first) {
  // About a million floats (4 MB before base64) per answer, and at least one step.
  constexpr std::size_t kFloats = 1000000;
  std::size_t end = first, floats = 0;
  while (end < rec.steps.size() && (end == first || floats < kFloats)) {
    const RecordedStep& s = rec.steps[end++];
    floats += 7 * s.position.size() + 3 * s.deformable_x.size() + 9 * s.contact_point.size();
  }
  return end;
}

std::string liveViewerPage(const Recording& header) {
  nlohmann::json d = headerJson(header);
  d["live"] = true;
  return pageWith(header, scriptText(d));
}

std::string viewerPage(const Recording& rec) {
  return pageWith(rec, viewerData(rec));
}

}  // namespace subsim::cli
