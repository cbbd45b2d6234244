#include "subsim/io/scene_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>
#include <vector>

#include "subsim/io/scene_builder.hpp"
#include "subsim/io/yaml_reader.hpp"
#include "subsim/io/yaml_text_checks.hpp"

namespace subsim {
namespace {

using yaml::Fields;
using yaml::indexPath;
using yaml::Node;
using yaml::Range;
using yaml::Reader;

class SceneParser : public scene::SceneBuilder {
 public:
  explicit SceneParser(const Reader& reader) : SceneBuilder(reader) {}

  SceneFile parse(const Node& root, const std::string& default_name) {
    SceneFile scene;
    Model& m = scene.model;
    const Fields top(r_, root, "",
                     "a map of scene settings with a bodies list (see docs/scene-format.md)");
    top.allowOnly({"name", "dt", "theta", "geometric_stiffness", "steps", "gravity", "contact",
                   "bodies", "joints", "springs", "friction", "robots", "solver"});
    m.name = default_name;
    if (const Node* n = top.get("name")) m.name = r_.text(*n, "name", "a non-empty scene name");
    if (const Node* n = top.get("dt"))
      m.dt = r_.number(*n, "dt", "a positive time step in s", Range::Positive);
    if (const Node* n = top.get("theta")) {
      const std::string what = "0 <= theta <= 0.5 (the weight of v_k in vhat)";
      m.theta = r_.number(*n, "theta", what);
      if (!(m.theta >= 0.0 && m.theta <= 0.5)) r_.expected("theta", what, *n);
    }
    if (const Node* n = top.get("geometric_stiffness"))
      m.geometric_stiffness = r_.boolean(*n, "geometric_stiffness");
    if (const Node* n = top.get("steps"))
      scene.steps = static_cast<int>(r_.integer(*n, "steps", "a positive whole number of steps", 1,
                                                std::numeric_limits<int>::max()));
    if (const Node* n = top.get("gravity")) m.gravity = r_.vec3(*n, "gravity", "m/s^2");
    if (const Node* n = top.get("contact")) parseContact(*n, m.contact);
    if (const Node* n = top.get("solver")) scene.solver = parseSceneSolver(*n, r_.source());

    const Node& bodies =
        r_.list(top.required("bodies", "a list of bodies"), "bodies", "a non-empty list of bodies");
    if (bodies.size() == 0) r_.expected("bodies", "a non-empty list of bodies", bodies);
    for (std::size_t i = 0; i < bodies.size(); ++i) parseBody(bodies[i], indexPath("bodies", i), m);

    if (const Node* n = top.get("robots")) {
      r_.list(*n, "robots", "a list of robots");
      for (std::size_t i = 0; i < n->size(); ++i) parseRobot((*n)[i], indexPath("robots", i), m);
    }

    if (const Node* n = top.get("joints")) {
      r_.list(*n, "joints", "a list of joints");
      for (std::size_t i = 0; i < n->size(); ++i) parseJoint((*n)[i], indexPath("joints", i), m);
    }
    if (const Node* n = top.get("springs")) {
      r_.list(*n, "springs", "a list of springs");
      for (std::size_t i = 0; i < n->size(); ++i) parseSpring((*n)[i], indexPath("springs", i), m);
    }
    if (const Node* n = top.get("friction")) {
      r_.list(*n, "friction", "a list of friction pairs");
      for (std::size_t i = 0; i < n->size(); ++i)
        parseFriction((*n)[i], indexPath("friction", i), m);
    }
    return scene;
  }

 private:
  void parseContact(const Node& node, ContactSettings& contact) const {
    const Fields f(r_, node, "contact", "a map {margin: m, erp: 0..1, subcontacts: bool}");
    f.allowOnly({"margin", "erp", "subcontacts"});
    if (const Node* n = f.get("subcontacts"))
      contact.subcontacts = r_.boolean(*n, f.at("subcontacts"));
    if (const Node* n = f.get("margin"))
      contact.margin =
          r_.number(*n, f.at("margin"), "a non-negative distance in m", Range::NonNegative);
    if (const Node* n = f.get("erp")) {
      const std::string what =
          "a number between 0 and 1 (fraction of penetration removed per step)";
      contact.erp = r_.number(*n, f.at("erp"), what);
      if (!(contact.erp >= 0.0 && contact.erp <= 1.0)) r_.expected(f.at("erp"), what, *n);
    }
  }
};

std::string defaultName(const std::string& source_name) {
  const std::string stem = std::filesystem::path(source_name).stem().string();
  return stem.empty() ? std::string("unnamed") : stem;
}

SceneFile parseDocuments(const Reader& reader, const std::string& yaml_text,
                         const std::string& source_name) {
  checkYamlRoot(reader, yaml_text);
  checkBlockCommas(reader, yaml_text);
  std::vector<Node> documents;
  try {
    documents = YAML::LoadAll(yaml_text);
  } catch (const YAML::ParserException& e) {
    const std::string where = e.mark.is_null()
                                  ? std::string()
                                  : "line " + std::to_string(e.mark.line + 1) + ", column " +
                                        std::to_string(e.mark.column + 1) + ": ";
    throw SceneError(reader.source() + ": " + where + "YAML syntax error: " + e.msg);
  }
  if (documents.empty() || (documents.size() == 1 && documents.front().IsNull()))
    throw SceneError(reader.source() +
                     ": top level: expected a map of scene settings with a bodies list, got an "
                     "empty file");
  if (documents.size() > 1)
    throw SceneError(reader.source() + ": top level: expected a single YAML document, got " +
                     std::to_string(documents.size()) + " (separated by ---)");
  SceneParser parser(reader);
  SceneFile scene = parser.parse(documents.front(), defaultName(source_name));
  try {
    scene.model.validate();
  } catch (const std::invalid_argument& e) {
    throw SceneError(reader.source() + ": " + e.what());
  }
  return scene;
}

}  // namespace

SceneFile parseScene(const std::string& yaml_text, const std::string& source_name) {
  const Reader reader(source_name);
  // Every failure becomes a SceneError naming the file: callers catch one type, and no yaml-cpp
  // or standard library exception escapes from bad input.
  try {
    return parseDocuments(reader, yaml_text, source_name);
  } catch (const SceneError&) {
    throw;
  } catch (const YAML::Exception& e) {
    throw SceneError(source_name + ": YAML error: " + e.what());
  } catch (const std::exception& e) {
    throw SceneError(source_name + ": could not load the scene: " + e.what());
  }
}

SceneFile loadSceneFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw SceneError(path + ": cannot read the scene file: " +
                     (ec ? ec.message() : std::string("no such file")));
  if (std::filesystem::is_directory(status))
    throw SceneError(path + ": cannot read the scene file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot read the scene file: it could not be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(path + ": cannot read the scene file: read error");
  return parseScene(text.str(), path);
}

}  // namespace subsim
