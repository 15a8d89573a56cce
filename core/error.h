#pragma once

#include <string>

namespace core {

// An input the program refuses: which key, and what is allowed (docs/DESIGN.md §4:
// "one line on stderr naming the key and what is allowed").
struct InputError
{
    std::string key;
    std::string message;

    std::string toString() const { return key.empty() ? message : key + ": " + message; }
    bool operator==(const InputError &) const = default;
};

} // namespace core
