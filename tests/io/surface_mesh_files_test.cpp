// Wavefront OBJ surfaces (io/surface_mesh_files.hpp) and mesh shapes in scene files: a box read
// back as its twelve triangles, quads split, the scale applied, the shape's mass properties, and
// every bad file named with what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "subsim/geometry/mesh_grid_shape.hpp"
#include "subsim/io/scene_file.hpp"
#include "subsim/io/surface_mesh_files.hpp"
#include "test_files.hpp"

namespace subsim {
namespace {

// A 2 x 2 x 1 box in cm as six quads, counter-clockwise seen from outside.
const char* const kBoxObj = R"(# box
v -1 -1 0
v 1 -1 0
v 1 1 0
v -1 1 0
v -1 -1 1
v 1 -1 1
v 1 1 1
v -1 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
)";

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(SurfaceMeshFiles, ReadsABoxOfQuadsAsTwelveScaledTriangles) {
  const test::TempFile obj(test::tempPath(".obj"));
  write(obj.path, kBoxObj);
  const TriangleSurface s = loadSurfaceMesh(obj.path, 0.01);
  EXPECT_EQ(s.vertices.size(), 8u);
  EXPECT_EQ(s.triangles.size(), 12u);
  EXPECT_TRUE(s.vertices[6].isApprox(Vec3(0.01, 0.01, 0.01)));
  const SolidMassProperties m = solidMassProperties(s);
  EXPECT_NEAR(m.volume, 0.02 * 0.02 * 0.01, 1e-18);
  EXPECT_TRUE(m.centroid.isApprox(Vec3(0, 0, 0.005)));
  EXPECT_NO_THROW(MeshGridShape(s, 0.002));
}

std::string loadError(const std::string& text) {
  const test::TempFile obj(test::tempPath(".obj"));
  write(obj.path, text);
  try {
    loadSurfaceMesh(obj.path);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot read surface mesh '" + obj.path + "': "), std::string::npos)
        << message;
    return message;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

TEST(SurfaceMeshFiles, BadFilesAreNamedWithWhatIsWrong) {
  EXPECT_NE(loadError("v 0 0 0\nv 1 0 0\n").find("no faces"), std::string::npos);
  EXPECT_NE(loadError("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n").find("vertex"), std::string::npos);
  try {
    loadSurfaceMesh("/nonexistent/nut.obj");
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/nut.obj"), std::string::npos);
  }
}

TEST(SurfaceMeshFiles, AMeshShapeInASceneFile) {
  const std::string dir = test::tempPath("_mesh");
  std::filesystem::create_directories(dir);
  write(dir + "/box.obj", kBoxObj);
  write(dir + "/open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const auto scene = [&](const std::string& shape) {
    const std::string path = dir + "/scene.yaml";
    write(path,
          "bodies:\n  - {name: floor, type: static, shapes: [{type: plane}]}\n"
          "  - {name: block, density: 1000, position: [0, 0, 0.1], shapes: [" +
              shape + "]}\n");
    return path;
  };
  const SceneFile s = loadSceneFile(scene("{type: mesh, file: box.obj, cell: 0.002, scale: 0.01}"));
  const BodyShape& block = s.model.shapes[1];
  ASSERT_EQ(block.shape.type, ShapeType::SignedDistance);
  EXPECT_NEAR(s.model.bodies[1].mass, 1000.0 * 4e-6, 1e-12);
  // The body's origin is the box's centre of mass: the mesh frame sits 5 mm below it.
  EXPECT_TRUE(block.local_pose.position.isApprox(Vec3(0, 0, -0.005)));
  const auto errorOf = [&](const std::string& shape) {
    try {
      loadSceneFile(scene(shape));
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "accepted " << shape;
    return std::string();
  };
  EXPECT_NE(errorOf("{type: mesh, file: nut.obj, cell: 0.002}")
                .find("shapes[0].file: expected a Wavefront OBJ file of a closed surface relative "
                      "to the scene file, got nut.obj: no such file"),
            std::string::npos);
  EXPECT_NE(errorOf("{type: mesh, file: open.obj, cell: 0.002}").find("expected a closed surface"),
            std::string::npos);
  EXPECT_NE(errorOf("{type: mesh, file: box.obj, cell: 0}")
                .find("shapes[0].cell: expected a "
                      "positive grid spacing"),
            std::string::npos);
  EXPECT_NE(
      errorOf("{type: mesh, file: box.obj, cell: 1e-7, scale: 0.01}")
          .find("shapes[0].cell: expected a closed mesh the grid can sample: cell: too small"),
      std::string::npos);
  EXPECT_NE(errorOf("{type: mesh, cell: 0.002}").find("shapes[0].file: missing"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace subsim
