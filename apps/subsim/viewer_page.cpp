#include "viewer_page.hpp"

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

nlohmann::json optionalSeries(const Recording& rec,
                              const std::optional<double> RecordedStep::*field) {
  nlohmann::json out = nlohmann::json::array();
  for (const RecordedStep& s : rec.steps)
    out.push_back(s.*field ? nlohmann::json(*(s.*field)) : nlohmann::json());
  return out;
}

nlohmann::json series(const Recording& rec, double RecordedStep::*field) {
  nlohmann::json out = nlohmann::json::array();
  for (const RecordedStep& s : rec.steps) out.push_back(s.*field);
  return out;
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

std::string viewerData(const Recording& rec) {
  nlohmann::json d;
  d["scene"] = rec.scene;
  d["solver"] = rec.solver;
  d["dt"] = rec.dt;
  d["bodies"] = nlohmann::json::array();
  for (std::size_t b = 0; b < rec.body_names.size(); ++b)
    d["bodies"].push_back(
        {{"name", rec.body_names[b]}, {"kind", b < rec.body_kind.size() ? rec.body_kind[b] : 0}});
  d["shapes"] = nlohmann::json::array();
  for (const RecordedShape& s : rec.shapes)
    d["shapes"].push_back(
        {{"body", s.body},
         {"type", static_cast<int>(s.type)},
         {"size", {s.size.x(), s.size.y(), s.size.z()}},
         {"pose",
          {s.pose.position.x(), s.pose.position.y(), s.pose.position.z(), s.pose.orientation.w(),
           s.pose.orientation.x(), s.pose.orientation.y(), s.pose.orientation.z()}}});
  d["deformable_names"] = rec.deformable_names;
  int nodes = 0;
  for (int n : rec.deformable_node_count) nodes += n;
  d["deformable_nodes"] = nodes;
  std::vector<std::int32_t> surface;
  for (const auto& tri : rec.deformable_surface)
    surface.insert(surface.end(), tri.begin(), tri.end());
  d["deformable_surface"] = base64(surface);

  nlohmann::json time = nlohmann::json::array();
  std::vector<float> position, orientation, deformable_x, point, normal, impulse;
  std::vector<std::int32_t> contact_begin{0};
  for (const RecordedStep& s : rec.steps) {
    time.push_back(s.time);
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
  d["time"] = time;
  d["solver_ms"] = series(rec, &RecordedStep::solver_ms);
  d["residual"] = series(rec, &RecordedStep::residual);
  d["max_penetration"] = series(rec, &RecordedStep::max_penetration);
  d["energy"] = optionalSeries(rec, &RecordedStep::energy);
  d["position"] = base64(position);
  d["orientation"] = base64(orientation);
  d["deformable_x"] = base64(deformable_x);
  d["contact_begin"] = base64(contact_begin);
  d["contact_point"] = base64(point);
  d["contact_normal"] = base64(normal);
  d["contact_impulse"] = base64(impulse);
  // Inside a script element "</" would end it (a body named "</script>", say).
  std::string text = d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

std::string viewerPage(const Recording& rec) {
  if (!viewerAvailable())
    throw std::runtime_error(
        "this subsim was built without three.js, which the page needs: run scripts/setup.sh "
        "(it installs three.js with npm into viewer/node_modules), then build again");
  std::string page = reinterpret_cast<const char*>(kViewerTemplate);
  std::string title;
  for (char c : rec.scene) title += c == '&' ? "&amp;" : c == '<' ? "&lt;" : std::string(1, c);
  replaceOnce(page, "@TITLE@", title);
  replaceOnce(page, "/*THREE_JS*/", reinterpret_cast<const char*>(kThreeJs));
  replaceOnce(page, "/*SUBSIM_DATA*/", viewerData(rec));
  return page;
}

}  // namespace subsim::cli
