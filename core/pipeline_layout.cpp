#include "core/pipeline_layout.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace core {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// The repeat count of "*n" at text[at] (at the '*'): n and where its digits end, or nothing.
struct Repeat
{
    std::uint64_t count = 0;
    std::size_t end = 0;
};
std::optional<Repeat> repeatAt(std::string_view text, std::size_t at)
{
    if (at + 1 >= text.size() || text[at] != '*' || !isDigit(text[at + 1]))
        return std::nullopt;
    Repeat r;
    std::size_t i = at + 1;
    for (; i < text.size() && isDigit(text[i]); ++i)
        r.count = std::min<std::uint64_t>(r.count * 10 + static_cast<std::uint64_t>(text[i] - '0'),
                                          kLayoutSymbols + 1);
    r.end = i;
    return r;
}

// Appends `part` n times, unless that passes kLayoutSymbols.
bool appendRepeated(std::string &out, std::string_view part, std::uint64_t n)
{
    if (!part.empty() && n > (kLayoutSymbols - std::min(out.size(), kLayoutSymbols)) / part.size())
        return false;
    for (std::uint64_t i = 0; i < n; ++i)
        out += part;
    return true;
}

// One pass of Python's re.sub over r'\(([^)]+)\)\*(\d+)' (parentheses) or r'(.)\*(\d+)'.
// [^)]+ reaches the first ')' and no further, and \d+ takes every digit, so a match at a
// position is decided without backtracking.
std::optional<std::string> unroll(std::string_view text, bool parentheses)
{
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        std::string_view group;
        std::optional<Repeat> r;
        if (parentheses && text[i] == '(') {
            const std::size_t close = text.find(')', i + 1);
            if (close != std::string_view::npos && close > i + 1) {
                group = text.substr(i + 1, close - i - 1);
                r = repeatAt(text, close + 1);
            }
        } else if (!parentheses && text[i] != '\n') {
            group = text.substr(i, 1);
            r = repeatAt(text, i + 1);
        }
        if (r) {
            if (!appendRepeated(out, group, r->count))
                return std::nullopt;
            i = r->end;
        } else {
            if (out.size() >= kLayoutSymbols)
                return std::nullopt;
            out += text[i++];
        }
    }
    return out;
}

} // namespace

std::variant<std::vector<LayoutStage>, std::string> parsePipelineLayout(std::string_view text)
{
    std::string plain;
    for (char c : text)
        if (c != ',')
            plain += c; // purely cosmetic commas
    const std::string tooLong =
        "unrolls to more than " + std::to_string(kLayoutSymbols) + " layers and separators";
    const std::optional<std::string> grouped = unroll(plain, true);
    if (!grouped)
        return tooLong;
    const std::optional<std::string> unrolled = unroll(*grouped, false);
    if (!unrolled)
        return tooLong;
    std::vector<LayoutStage> stages(1);
    for (char c : *unrolled) {
        LayoutStage &stage = stages.back();
        switch (c) {
        case '|':
            stages.emplace_back();
            break;
        case 't':
            ++stage.decoders;
            break;
        case 'm':
            ++stage.mtp;
            break;
        case 'E':
        case 'L':
            if (c == 'E' ? stage.embedding : stage.loss)
                return std::string("'") + c + "' twice in one stage";
            (c == 'E' ? stage.embedding : stage.loss) = true;
            break;
        default:
            return std::string("'") + c +
                   "' is not a layer: E (embedding), L (loss), t (transformer layer), m "
                   "(multi-token prediction) and | between stages";
        }
    }
    return stages;
}

std::string pipelineLayoutText(const std::vector<LayoutStage> &stages)
{
    const auto stageText = [](const LayoutStage &s) {
        std::string out = s.embedding ? "E" : "";
        if (s.decoders == 1)
            out += "t";
        else if (s.decoders > 1)
            out += "t*" + std::to_string(s.decoders);
        if (s.mtp == 1)
            out += "m";
        else if (s.mtp > 1)
            out += "m*" + std::to_string(s.mtp);
        return out + (s.loss ? "L" : "");
    };
    const auto same = [](const LayoutStage &a, const LayoutStage &b) {
        return a.decoders == b.decoders && a.mtp == b.mtp && a.embedding == b.embedding &&
               a.loss == b.loss;
    };
    std::string out;
    for (std::size_t i = 0; i < stages.size();) {
        std::size_t run = 1;
        while (i + run < stages.size() && same(stages[i + run], stages[i]))
            ++run;
        const std::string one = stageText(stages[i]);
        // A run ending the layout keeps its last stage apart: (x|)*n ends with a separator.
        const bool last = i + run == stages.size();
        const std::size_t grouped = last ? run - 1 : run;
        if (grouped > 1) {
            // A comma after the group, as Megatron-LM's examples write it: cosmetic.
            out += "(" + one + "|)*" + std::to_string(grouped) + ",";
        } else {
            for (std::size_t k = 0; k < grouped; ++k)
                out += one + "|";
        }
        if (last)
            out += one;
        i += run;
    }
    return out;
}

std::vector<LayoutStage> layoutOfCounts(const std::vector<int> &decoders, int mtp)
{
    std::vector<LayoutStage> out(decoders.size());
    for (std::size_t j = 0; j < decoders.size(); ++j)
        out[j].decoders = decoders[j];
    if (!out.empty()) {
        out.front().embedding = true;
        out.back().loss = true;
        out.back().mtp = mtp;
    }
    return out;
}

std::vector<int> balancedPartition(const std::vector<double> &weights, int parts)
{
    const int n = static_cast<int>(weights.size());
    const int m = std::max(parts, 1);
    std::vector<int> bounds(static_cast<std::size_t>(m) + 1, 0);
    if (n <= m) {
        // partition_uniform: one item a part while they last.
        for (int p = 0; p <= m; ++p)
            bounds[static_cast<std::size_t>(p)] = std::min(p, n);
        return bounds;
    }
    // dp_max, dp_min and dp_cost[i][j]: the heaviest and lightest of j runs over the first i
    // items and their difference, as partition_balanced keeps them (infinite: no such cut).
    constexpr double inf = std::numeric_limits<double>::infinity();
    const auto at = [m](int i, int j) {
        return static_cast<std::size_t>(i) * static_cast<std::size_t>(m + 1) +
               static_cast<std::size_t>(j);
    };
    const std::size_t cells = at(n, m) + 1;
    std::vector<double> most(cells, inf), least(cells, inf), cost(cells, inf);
    std::vector<int> position(cells, 0);
    std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
    for (int i = 0; i < n; ++i)
        prefix[static_cast<std::size_t>(i) + 1] =
            prefix[static_cast<std::size_t>(i)] + weights[static_cast<std::size_t>(i)];
    most[at(0, 0)] = 0;
    cost[at(0, 0)] = 0;
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= std::min(i, m); ++j)
            for (int k = 0; k < i; ++k) {
                const double run =
                    prefix[static_cast<std::size_t>(i)] - prefix[static_cast<std::size_t>(k)];
                const double hi = std::max(most[at(k, j - 1)], run);
                const double lo = std::min(least[at(k, j - 1)], run);
                const double c = hi - lo; // infinite where k cannot end j − 1 runs
                if (cost[at(i, j)] >= c) {
                    cost[at(i, j)] = c;
                    most[at(i, j)] = hi;
                    least[at(i, j)] = lo;
                    position[at(i, j)] = k;
                }
            }
    bounds[static_cast<std::size_t>(m)] = n;
    for (int j = m; j >= 1; --j)
        bounds[static_cast<std::size_t>(j) - 1] =
            position[at(bounds[static_cast<std::size_t>(j)], j)];
    return bounds;
}

double balancedPartitionSteps(std::size_t items, int parts)
{
    return static_cast<double>(items) * static_cast<double>(items) * std::max(parts, 1);
}

} // namespace core
