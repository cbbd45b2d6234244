// The built-in Allegro hand (robots/allegro) and mounting a tool's URDF on an arm
// (io/urdf_attach.hpp): the hand's published kinematics, the Panda with the hand as one
// articulation, and the errors of attaching.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/io/builtin_robots.hpp"
#include "subsim/io/urdf_attach.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "test_files.hpp"

namespace subsim {
namespace {

const std::string kAllegroPath =
    std::string(SUBSIM_SOURCE_DIR) + "/robots/allegro/allegro_hand_right.urdf";

TEST(UrdfAllegro, SixteenJointsWithWoniksNamesAndTheBuiltInCopyIsTheFile) {
  const UrdfRobot hand = loadUrdfFile(kAllegroPath);
  EXPECT_TRUE(hand.notes.empty()) << hand.notes.front();
  Articulation art = hand.articulation;
  art.finalize();
  EXPECT_EQ(art.nq(), 16);
  EXPECT_EQ(art.nv(), 16);
  for (int k = 0; k < 16; ++k) {
    const int link = art.findLink("link_" + std::to_string(k) + ".0");
    ASSERT_GE(link, 0) << k;
    EXPECT_EQ(art.links[link].joint_name, "joint_" + std::to_string(k) + ".0");
    EXPECT_EQ(art.links[link].joint, ArticulationJointType::Revolute);
    EXPECT_TRUE(art.links[link].limited);
  }
  double mass = 0.0;
  for (const ArticulationLink& l : art.links) mass += l.mass;
  EXPECT_NEAR(mass,
              0.4154 + 3 * (0.0119 + 0.065 + 0.0355 + 0.0096 + 0.0168) +
                  (0.0176 + 0.0119 + 0.038 + 0.0388 + 0.0168),
              1e-12);
  // Compiled in from the same file.
  EXPECT_EQ(std::string(allegroHandUrdf()), test::readFile(kAllegroPath));
  ASSERT_NE(findBuiltinRobot("allegro_hand"), nullptr);
  EXPECT_EQ(findBuiltinRobot("allegro_hand")->urdf, &allegroHandUrdf);
  EXPECT_EQ(findBuiltinRobot("allegro"), nullptr);
}

// At q = 0 the fingers are straight along the palm's z: the middle fingertip's centre at the sum
// of its joint offsets (0.0007 + 0.0164 + 0.054 + 0.0384 + 0.0267 m); the index and ring fingers
// leave the palm at y = +-0.0435 m, leaning 5 degrees outwards.  Flexing joint 2 of the middle
// finger by 90 degrees turns the last two phalanges (0.0384 + 0.0267 m) towards the palm's +x.
TEST(UrdfAllegro, FingertipsWherePublishedKinematicsPutThem) {
  Articulation art = loadUrdfFile(kAllegroPath).articulation;
  art.finalize();
  std::vector<Pose> poses;
  VecX q = VecX::Zero(16);
  forwardKinematics(art, q, poses);
  const int middle = art.findLink("link_7.0_tip"), index = art.findLink("link_3.0_tip");
  const int ring = art.findLink("link_11.0_tip");
  const double length = 0.0164 + 0.054 + 0.0384 + 0.0267;
  EXPECT_LT((poses[middle].position - Vec3(0.0, 0.0, 0.0007 + length)).norm(), 1e-12);
  const double lean = 0.0872665;
  EXPECT_LT((poses[index].position -
             Vec3(0.0, 0.0435 + length * std::sin(lean), -0.001542 + length * std::cos(lean)))
                .norm(),
            1e-6);
  EXPECT_NEAR(poses[ring].position.y(), -poses[index].position.y(), 1e-12);
  q[art.links[art.findLink("link_6.0")].q_index] = 0.5 * M_PI;
  forwardKinematics(art, q, poses);
  EXPECT_LT((poses[middle].position - Vec3(0.0384 + 0.0267, 0.0, 0.0007 + 0.0164 + 0.054)).norm(),
            1e-12);
}

TEST(UrdfAttach, ThePandaWithTheAllegroHandIsOneTwentyThreeJointArticulation) {
  const PandaAllegro pa = pandaWithAllegroHand();
  Articulation art = pa.urdf.articulation;
  art.finalize();
  EXPECT_EQ(art.nq(), 23);
  EXPECT_EQ(art.findLink("panda_stirrer"), -1);
  const int flange = art.findLink("panda_link8");
  ASSERT_EQ(art.links[pa.palm_link].parent, flange);
  EXPECT_EQ(art.links[pa.palm_link].joint_name, "palm_link_mount");
  EXPECT_EQ(art.links[pa.tip_links[3]].name, "link_15.0_tip");
  ASSERT_EQ(pa.finger_links[1].size(), 5u);  // four phalanges and the tip
  EXPECT_EQ(art.links[pa.finger_links[1].front()].name, "link_4.0");
  // Every collision shape of the arm (less the rod) and of the hand, on its own link.
  const UrdfRobot panda = loadUrdfString(pandaUrdf(), "panda");
  const UrdfRobot hand = loadUrdfString(allegroHandUrdf(), "hand");
  const int rod = panda.articulation.findLink("panda_stirrer");
  int arm_shapes = 0;
  for (const UrdfCollision& c : panda.collisions) arm_shapes += c.link != rod;
  EXPECT_EQ(pa.urdf.collisions.size(), arm_shapes + hand.collisions.size());
  // The palm's frame 0.095 m out along the flange's z, the wrist face on the flange.
  std::vector<Pose> poses;
  forwardKinematics(art, art.neutralConfiguration(), poses);
  EXPECT_LT(
      (poses[pa.palm_link].position - poses[flange].transformPoint(Vec3(0.0, 0.0, 0.095))).norm(),
      1e-12);
  // The hand's own kinematics carried over: the middle fingertip at the same place in the palm.
  std::vector<Pose> hand_poses;
  Articulation alone = hand.articulation;
  alone.finalize();
  forwardKinematics(alone, alone.neutralConfiguration(), hand_poses);
  const Vec3 tip_in_palm =
      poses[pa.palm_link].inverseTransformPoint(poses[pa.tip_links[1]].position);
  EXPECT_LT((tip_in_palm - hand_poses[alone.findLink("link_7.0_tip")].position).norm(), 1e-12);
}

// attachUrdf(robot, parent, tool) throws std::invalid_argument whose message holds `expected`.
void expectRefused(UrdfRobot& robot, int parent, const UrdfRobot& tool,
                   const std::string& expected) {
  try {
    attachUrdf(robot, parent, Pose(), tool);
    ADD_FAILURE() << "attached; expected an error holding: " << expected;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(UrdfAttach, RefusesAMissingParentAFloatingToolAndRepeatedLinkNames) {
  UrdfRobot arm = loadUrdfString(pandaUrdf(), "panda");
  const UrdfRobot hand = loadUrdfString(allegroHandUrdf(), "hand");
  const int links = static_cast<int>(arm.articulation.links.size());
  expectRefused(arm, links, hand, "is not a link of 'panda'");
  expectRefused(arm, 0, loadUrdfString(allegroHandUrdf(), "hand", true),
                "is not fixed to the world");
  UrdfRobot with_hand = arm;
  attachUrdf(with_hand, links - 1, Pose(), hand);
  const std::size_t before = with_hand.articulation.links.size();
  expectRefused(with_hand, 0, hand, "already has a link named 'palm_link'");
  EXPECT_EQ(with_hand.articulation.links.size(), before);
  EXPECT_EQ(static_cast<int>(arm.articulation.links.size()), links);  // left as it was
}

}  // namespace
}  // namespace subsim
