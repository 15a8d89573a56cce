#pragma once

#include "core/error.h"
#include "core/presets.h"
#include "core/scenario.h"
#include "core/sharding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace fuzz {

// A binary request of `Size` bytes, little-endian: a shorter input is padded with zeros.
template <std::size_t Size> class Fields
{
public:
    Fields(const std::uint8_t *data, std::size_t size)
    {
        std::memcpy(m_bytes.data(), data, std::min(size, m_bytes.size()));
    }
    template <typename T> T at(std::size_t offset) const
    {
        // A field past the request's end is the target's own mistake: stop there, loudly.
        if (offset + sizeof(T) > Size)
            __builtin_trap();
        T value;
        std::memcpy(&value, m_bytes.data() + offset, sizeof value);
        return value;
    }

private:
    std::array<std::uint8_t, Size> m_bytes{};
};

static_assert(std::endian::native == std::endian::little, "the seed corpora are little-endian");

// The built-in presets (resources/presets), read once through io's presets
// reader, as the program reads them.
const core::Presets &presets();

// Stops the fuzzer with a message when a property does not hold: libFuzzer
// records the input as a crash, like a sanitizer report.
void require(bool condition, const char *what);

// A refused input: the error says what is wrong, and names the field unless
// the whole document is unreadable.
void checkRefusal(const core::InputError &error, bool needsKey);

// The rest of the chain for an accepted scenario: validate, evaluate, the JSON and
// text reports, and the report's own arithmetic (every stage adds up, nothing is
// negative that cannot be, fractions stay fractions). `with` holds the presets the
// scenario may name: the built-in ones unless a presets file added its own.
void evaluateAndCheck(const core::Scenario &scenario, const core::Presets &with = presets());

// A sharding analysis of `request`: a refusal names the request field; an accepted
// request has four strategies whose times and bytes are finite and not negative, the
// best no slower than the worst, and a numerical check that ran at a size T divides,
// no larger than asked, or says why it did not run.
void checkShardReport(const core::ShardRequest &request, const core::ShardReport &report);

} // namespace fuzz
