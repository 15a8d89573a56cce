#pragma once

#include "core/error.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace io {

// Parses a file's JSON, which must be an object. Refuses, besides what is not JSON,
// a key that one object gives twice (QJsonDocument would keep the last silently),
// naming its path: "models[3].hidden: duplicate key". A document that is not JSON is
// refused naming where reading stopped, when that is inside a key's value.
// `what` names the kind of file in messages: "scenario file".
std::optional<core::InputError> parseJsonObject(const QByteArray &json, QJsonObject &out,
                                                std::string_view what);

// Reads typed keys from one JSON object, remembering the first problem and
// which keys were read, so that unknown keys can be refused by name. Keys are string
// literals: they are remembered by pointer, not copied (a preset file of 100,000 models
// reads some three million of them).
class JsonFields
{
public:
    JsonFields(const QJsonObject &object, std::string prefix);

    void integer(const char *key, int &out);
    // A whole number up to `limit`, in `unit` ("parameters") for messages.
    void integer64(const char *key, std::int64_t &out, double limit, std::string_view unit);
    void number(const char *key, double &out);
    void boolean(const char *key, bool &out);
    // A string without control characters: it becomes a label on screen.
    void text(const char *key, std::string &out);
    // Marks a key as known without reading it (the caller handles it).
    void known(const char *key);
    bool has(const char *key) const { return m_object.contains(QLatin1String(key)); }

    // The first problem, or an unknown key.
    std::optional<core::InputError> finish() const;

    void fail(const char *key, std::string message);

private:
    std::optional<QJsonValue> take(const char *key);

    const QJsonObject &m_object;
    std::string m_prefix;
    std::vector<std::string_view> m_known;
    std::optional<core::InputError> m_error;
};

// A JSON value for messages: its type in words ("an array"), or the value itself,
// short and with control characters escaped ('h100', 1e18, true).
std::string describe(const QJsonValue &value);

// "1e18 is more than the limit of 2147483647": a whole number beyond what a key holds.
std::string beyondLimit(double value, double limit, std::string_view unit = {});

} // namespace io
