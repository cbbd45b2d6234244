#pragma once
// Fixed-size Eigen aliases used throughout subsim.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <vector>

namespace subsim {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Quat = Eigen::Quaterniond;
using VecX = Eigen::VectorXd;
/// Flat storage of doubles that Eigen maps: aligned like Eigen's own (EIGEN_MAX_ALIGN_BYTES).
/// Eigen's dynamic-size reductions and products on a Map start their packets at the first aligned
/// element, so with malloc's 16-byte alignment their rounding depended on where the heap put a
/// buffer: the same scene recorded different bits in different processes.  Aligned buffers make
/// the bits a function of the offsets alone.
using DoubleBuffer = std::vector<double, Eigen::aligned_allocator<double>>;
using MatX = Eigen::MatrixXd;

}  // namespace subsim
