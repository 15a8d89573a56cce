// Compiled with core's settings by the boundary test: core and Eigen are visible.
#include "core/evaluate.h"

#include <Eigen/Dense>

int boundaryProbe()
{
    Eigen::Matrix2d m = Eigen::Matrix2d::Identity();
    return static_cast<int>(m.trace()) + static_cast<int>(core::Scenario{}.tp);
}
