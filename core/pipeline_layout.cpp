#include "core/pipeline_layout.h"

#include <algorithm>
#include <cstdint>
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

std::vector<LayoutStage> layoutOfCounts(const std::vector<int> &decoders)
{
    std::vector<LayoutStage> out(decoders.size());
    for (std::size_t j = 0; j < decoders.size(); ++j)
        out[j].decoders = decoders[j];
    if (!out.empty()) {
        out.front().embedding = true;
        out.back().loss = true;
    }
    return out;
}

} // namespace core
