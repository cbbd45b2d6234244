// `subsim view FILE.h5`: one self-contained page (three.js inside, nothing fetched) whose data
// is the recording's: bodies, shapes, frames and their poses, contacts, an FEM surface; what is
// not a recording, or a page that cannot be written, is refused with exit 2.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "cli_temp_dir.hpp"
#include "subsim/sim/recorder.hpp"

namespace {

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

/// The raw bytes of a base64 text.
std::vector<unsigned char> decodeBase64(const std::string& text) {
  std::vector<unsigned char> out;
  unsigned value = 0;
  int bits = 0;
  for (char c : text) {
    const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(digits, c);
    if (c == '=' || at == nullptr) break;
    value = (value << 6) | static_cast<unsigned>(at - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<unsigned char>((value >> bits) & 0xff));
    }
  }
  return out;
}

std::vector<float> floats(const nlohmann::json& field) {
  const std::vector<unsigned char> bytes = decodeBase64(field.get<std::string>());
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

class ViewCli : public subsim::cli_test::CliTempDir {
 protected:
  /// The page's data object.
  static nlohmann::json dataOf(const std::string& page) {
    const std::string open = "id=\"subsim-data\">";
    const std::size_t begin = page.find(open);
    EXPECT_NE(begin, std::string::npos);
    const std::size_t end = page.find("</script>", begin);
    return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
  }
};

TEST_F(ViewCli, WritesOneSelfContainedPageOfTheRecording) {
  const std::string rec_path = record("granular:spheres=8", 5);
  const Result r = run("view " + rec_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page_path = file("run.html");
  EXPECT_TRUE(contains(r.out, "wrote " + page_path)) << r.out;
  const std::string page = read(page_path);
  EXPECT_TRUE(contains(page, "Copyright 2010-2023 Three.js Authors"));  // three.js inside
  EXPECT_FALSE(contains(page, "<script src"));                          // nothing fetched
  EXPECT_FALSE(contains(page, "/*SUBSIM_DATA*/"));
  const nlohmann::json d = dataOf(page);
  const nlohmann::json& frames = d["frames"];
  const subsim::Recording rec = subsim::readRecording(rec_path);
  const std::size_t nb = rec.body_names.size();
  EXPECT_EQ(d["live"], false);
  EXPECT_EQ(frames["first"], 0);
  EXPECT_EQ(d["scene"], "granular:spheres=8");
  ASSERT_EQ(d["bodies"].size(), nb);
  EXPECT_EQ(d["bodies"][nb - 1]["name"], rec.body_names.back());
  EXPECT_EQ(d["shapes"].size(), rec.shapes.size());
  ASSERT_EQ(frames["time"].size(), 5u);
  EXPECT_DOUBLE_EQ(frames["time"][4].get<double>(), rec.steps[4].time);
  const std::vector<float> position = floats(frames["position"]);
  ASSERT_EQ(position.size(), 5 * nb * 3);
  for (int i = 0; i < 3; ++i)  // the last body at the last step, to float precision
    EXPECT_FLOAT_EQ(position[3 * (4 * nb + nb - 1) + i],
                    static_cast<float>(rec.steps[4].position[nb - 1][i]));
  std::size_t contacts = 0;
  for (const subsim::RecordedStep& s : rec.steps) contacts += s.contact_point.size();
  EXPECT_GT(contacts, 0u);
  EXPECT_EQ(floats(frames["contact_impulse"]).size(), 3 * contacts);
  EXPECT_EQ(d["deformable_nodes"], 0);
  // --output chooses the page.
  const Result named = run("view " + rec_path + " --output " + file("named.html"));
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(read(file("named.html")), page);
}

TEST_F(ViewCli, AnFemRecordingCarriesItsSurfaceAndNodes) {
  const std::string rec_path = record("softball:cells=3", 2);
  ASSERT_EQ(run("view " + rec_path).exit_code, 0);
  const nlohmann::json d = dataOf(read(file("run.html")));
  const subsim::Recording rec = subsim::readRecording(rec_path);
  ASSERT_EQ(rec.deformable_node_count.size(), 1u);
  const int nodes = rec.deformable_node_count[0];
  EXPECT_EQ(d["deformable_nodes"], nodes);
  EXPECT_EQ(decodeBase64(d["deformable_surface"]).size(), rec.deformable_surface.size() * 3 * 4);
  const std::vector<float> x = floats(d["frames"]["deformable_x"]);
  ASSERT_EQ(x.size(), 2u * nodes * 3);
  EXPECT_FLOAT_EQ(x[3 * nodes + 2], static_cast<float>(rec.steps[1].deformable_x[0].z()));
}

// `subsim run --view PAGE.html` records to PAGE.h5 and writes the page at the end.
TEST_F(ViewCli, RunWritesItsPageAtTheEnd) {
  const std::string page = file("granular.html");
  const Result r = run("run granular:spheres=8 --steps 3 --json --view " + page);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "the run's page: " + page)) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["view"], page);
  EXPECT_EQ(j["record"], file("granular.h5"));
  EXPECT_EQ(subsim::readRecording(file("granular.h5")).steps.size(), 3u);
  EXPECT_EQ(dataOf(read(page))["frames"]["time"].size(), 3u);
}

TEST_F(ViewCli, RefusesWhatIsNotARecordingOrCannotBeWritten) {
  const Result none = run("view");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(contains(none.err, "subsim: view: expected a recording")) << none.err;
  const Result missing = run("view " + file("missing.h5"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "subsim: view: ")) << missing.err;
  EXPECT_TRUE(contains(missing.err, "missing.h5")) << missing.err;
  const std::string text = file("notes.h5");
  write(text, "not a recording");
  const Result foreign = run("view " + text);
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_TRUE(contains(foreign.err, "notes.h5")) << foreign.err;
  const std::string rec_path = record("granular:spheres=8", 1);
  const Result unwritable = run("view " + rec_path + " --output " + file("no/dir/page.html"));
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_TRUE(contains(unwritable.err, "cannot write")) << unwritable.err;
  const Result itself = run("view " + rec_path + " --output " + rec_path);
  EXPECT_EQ(itself.exit_code, 2);
  EXPECT_TRUE(contains(itself.err, "is the recording itself")) << itself.err;
}

// --serve's options (the serving itself: tests/python/test_viewer.py).
TEST_F(ViewCli, RefusesBadServeOptions) {
  const Result alone = run("run granular:spheres=8 --steps 1 --port 8000");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_TRUE(contains(alone.err, "--port requires --serve")) << alone.err;
  const Result range = run("run granular:spheres=8 --steps 1 --serve --port 70000");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_TRUE(contains(range.err, "expected a whole number from 0 to 65535, got '70000'"))
      << range.err;
  const std::string rec_path = record("granular:spheres=8", 1);
  const Result both = run("view " + rec_path + " --serve --output " + file("page.html"));
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--output excludes --serve")) << both.err;
  const Result missing = run("view " + file("missing.h5") + " --serve --port 0");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "missing.h5")) << missing.err;
}

}  // namespace
