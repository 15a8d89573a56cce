#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace core {

// The identifiers users type for an enumeration, kept stable once shipped
// (docs/DESIGN.md §4). Each enum provides `enumNames(E{})` returning an array of these.
template <typename E> struct EnumName
{
    E value;
    std::string_view name;
};

template <typename E> constexpr std::string_view toString(E value)
{
    for (const auto &entry : enumNames(E{}))
        if (entry.value == value)
            return entry.name;
    return {};
}

template <typename E> constexpr std::optional<E> parseEnum(std::string_view text)
{
    for (const auto &entry : enumNames(E{}))
        if (entry.name == text)
            return entry.value;
    return std::nullopt;
}

// "gpipe, 1f1b, interleaved, zb-h1 or dualpipev", for error messages.
template <typename E> std::string allowedNames()
{
    const auto &names = enumNames(E{});
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0)
            out += i + 1 == names.size() ? " or " : ", ";
        out += names[i].name;
    }
    return out;
}

} // namespace core
