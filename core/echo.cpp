#include "core/echo.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace core {

namespace {

constexpr std::string_view kHexDigits = "0123456789abcdef";

void appendHex(std::string &out, std::string_view prefix, std::uint32_t value, int digits)
{
    out += prefix;
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
        out += kHexDigits[(value >> shift) & 0xf];
}

// The code point of the UTF-8 sequence at the start of `text` and its length in bytes;
// a byte that does not start a valid sequence is returned as a length of 0.
std::pair<std::uint32_t, std::size_t> decodeUtf8(std::string_view text)
{
    const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80)
        return {lead, 1};
    std::size_t length = 0;
    std::uint32_t code = 0;
    if ((lead & 0xe0) == 0xc0) {
        length = 2;
        code = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3;
        code = lead & 0x0f;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4;
        code = lead & 0x07;
    } else {
        return {lead, 0};
    }
    if (text.size() < length)
        return {lead, 0};
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xc0) != 0x80)
            return {lead, 0};
        code = (code << 6) | (byte(i) & 0x3f);
    }
    constexpr std::array<std::uint32_t, 5> kSmallest{0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return {lead, 0}; // overlong, beyond Unicode, or a surrogate
    return {code, length};
}

// Appends one character of `text` (at its start), escaped; returns the bytes it took.
std::size_t appendEscaped(std::string &out, std::string_view text)
{
    const auto [code, length] = decodeUtf8(text);
    if (length == 0) {
        appendHex(out, "\\x", code, 2); // not UTF-8
        return 1;
    }
    switch (code) {
    case '\n':
        out += "\\n";
        return length;
    case '\r':
        out += "\\r";
        return length;
    case '\t':
        out += "\\t";
        return length;
    default:
        break;
    }
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f))
        appendHex(out, "\\x", code, 2);
    else if (code == 0x2028 || code == 0x2029 || (code >= 0x202a && code <= 0x202e) ||
             (code >= 0x2066 && code <= 0x2069))
        appendHex(out, "\\u", code, 4);
    else
        out += text.substr(0, length);
    return length;
}

// The first `maxChars` characters of `text`, escaped; `cut` says whether more followed.
std::string escapedHead(std::string_view text, std::size_t maxChars, bool &cut)
{
    std::string out;
    std::size_t at = 0;
    for (std::size_t chars = 0; at < text.size() && chars < maxChars; ++chars)
        at += appendEscaped(out, text.substr(at));
    cut = at < text.size();
    return out;
}

} // namespace

std::string escapeControls(std::string_view text)
{
    bool cut = false;
    return escapedHead(text, text.size(), cut);
}

std::string excerpt(std::string_view text, std::size_t maxChars)
{
    bool cut = false;
    std::string out = escapedHead(text, maxChars, cut);
    if (cut)
        out += "\u2026 (" + std::to_string(text.size()) + " bytes)";
    return out;
}

std::string quoted(std::string_view text)
{
    bool cut = false;
    std::string out = "'" + escapedHead(text, kEchoChars, cut);
    if (cut)
        return out + "\u2026' (" + std::to_string(text.size()) + " bytes)";
    return out + "'";
}

std::string plainNumber(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "infinity" : "-infinity";
    std::array<char, 40> buffer{};
    char *end = nullptr;
    if (std::trunc(value) == value && std::abs(value) < 1e7)
        end = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                            static_cast<long long>(value))
                  .ptr;
    else if (std::abs(value) >= 1e-4 && std::abs(value) < 1e7) // 0.0005, not 5e-4
        end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                            std::chars_format::fixed)
                  .ptr;
    else
        end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
    // "1e+18" and "1e-05" as people write them: 1e18, 1e-5.
    const std::string_view text(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
    const std::size_t e = text.find('e');
    if (e == std::string_view::npos)
        return std::string(text);
    int exponent = 0;
    std::string_view digits = text.substr(e + 1);
    if (digits.starts_with('+'))
        digits.remove_prefix(1);
    std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    return std::string(text.substr(0, e)) + "e" + std::to_string(exponent);
}

} // namespace core
