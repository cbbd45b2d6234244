#pragma once
// Fixed-size Eigen aliases used throughout subsim.
#include <Eigen/Core>
#include <Eigen/Geometry>

namespace subsim {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Quat = Eigen::Quaterniond;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

}  // namespace subsim
