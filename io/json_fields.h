#pragma once

#include "core/error.h"

#include <QJsonObject>
#include <QSet>
#include <QString>
#include <cstdint>
#include <optional>
#include <string>

namespace io {

// Reads typed keys from one JSON object, remembering the first problem and
// which keys were read, so that unknown keys can be refused by name.
class JsonFields
{
public:
    JsonFields(const QJsonObject &object, std::string prefix);

    void integer(const char *key, int &out);
    void integer64(const char *key, std::int64_t &out);
    void number(const char *key, double &out);
    void boolean(const char *key, bool &out);
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
    QSet<QString> m_known;
    std::optional<core::InputError> m_error;
};

// The type of a JSON value in words, for messages: "a string", "a number".
std::string describe(const QJsonValue &value);

} // namespace io
