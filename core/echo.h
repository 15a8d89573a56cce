#pragma once

#include <cstddef>
#include <string>
#include <string_view>

// How a message echoes what the user gave: a file's value, a --set value, a preset id
// or a key. The echo is safe to print on a terminal (control characters escaped, so
// an ANSI escape sequence in a file cannot recolour or clear the screen) and short
// (a 100 MB string is not printed back in full).
namespace core {

// Characters of a value a message echoes at most; a longer value is cut there.
inline constexpr std::size_t kEchoChars = 60;

// `text` with control characters escaped: \n, \r, \t, then \xNN for the other C0 and C1
// controls, DEL and bytes that are not UTF-8 (ESC is \x1b), and \uNNNN for the Unicode
// line separators and bidirectional overrides. Nothing else changes.
std::string escapeControls(std::string_view text);

// `text` escaped as escapeControls does, cut after `maxChars` characters; a cut one
// ends in "…" and says how long it was: "aaaa… (104857600 bytes)".
std::string excerpt(std::string_view text, std::size_t maxChars = kEchoChars);

// An excerpt in single quotes: 'tp=four'; a cut one 'aaaa…' (104857600 bytes).
std::string quoted(std::string_view text);

// A number as a message writes it: the shortest text that reads back as the same
// number, without "+" or leading zeros in the exponent: 1048576, 9e15, 0.001, 1e-300,
// 9223372036854775808. Numbers from 0.0001 to 10^7 are written out (1000000, 0.0005).
std::string plainNumber(double value);

} // namespace core
