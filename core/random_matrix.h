#pragma once

#include <Eigen/Core>
#include <random>

namespace core {

// A rows × cols matrix of values drawn uniformly from [-scale, scale], column by column from
// `rng`: the demonstrators' weights and inputs, the same for the same seed on every machine.
inline Eigen::MatrixXf uniformRandomMatrix(Eigen::Index rows, Eigen::Index cols, float scale,
                                           std::mt19937_64 &rng)
{
    std::uniform_real_distribution<float> uniform(-scale, scale);
    Eigen::MatrixXf m(rows, cols);
    for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            m(i, j) = uniform(rng);
    return m;
}

} // namespace core
