#pragma once

// What the random tests (the sweep of tst_invariants, the monkey of tst_monkey) share:
// draws from one seeded engine, and their size and seed from the environment.
#include <QString>
#include <QtGlobal>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>

// Random draws from one std::mt19937_64, so that a seed gives the same sequence on every
// run (with the same standard library's distributions).
class Dice
{
public:
    explicit Dice(std::uint64_t seed) : m_rng(seed) {}

    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }
    double real(double lo, double hi)
    {
        return std::uniform_real_distribution<double>(lo, hi)(m_rng);
    }
    bool chance(double p) { return real(0, 1) < p; }
    // One item of an array or a vector, each as likely.
    template <typename Items> const auto &pick(const Items &items)
    {
        return items[std::size_t(uniform(0, int(std::size(items)) - 1))];
    }

private:
    std::mt19937_64 m_rng;
};

// The whole number in the environment variable `name`, or `fallback` when it is unset or
// not a number (PARASCOPE_SWEEP_SEED, PARASCOPE_MONKEY_STEPS, ...).
inline std::uint64_t environmentNumber(const char *name, std::uint64_t fallback)
{
    bool ok = false;
    const std::uint64_t value = qEnvironmentVariable(name).toULongLong(&ok);
    return ok ? value : fallback;
}
