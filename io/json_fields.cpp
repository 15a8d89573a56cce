#include "io/json_fields.h"

#include "core/echo.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace io {

namespace {

// Characters of a key path a message names at most: deeper levels are left out.
constexpr std::size_t kKeyPathChars = 120;

// One object or array that a walk through a JSON document is inside.
struct JsonLevel
{
    explicit JsonLevel(bool isObject) : object(isObject), atKey(isObject) {}

    bool object;
    bool atKey;          // an object waiting for its next key
    QString key;         // an object's current key
    qsizetype index = 0; // an array's current element
    QSet<QString> keys;  // the keys an object has given so far
};

// A key as QJsonDocument reads it: "\u0074p" is the key tp.
QString decodeKey(const char *raw, qsizetype size)
{
    const QByteArrayView bytes(raw, size);
    if (!bytes.contains('\\'))
        return QString::fromUtf8(bytes);
    const QByteArray array = QByteArray("[\"") + bytes.toByteArray() + QByteArray("\"]");
    return QJsonDocument::fromJson(array).array().at(0).toString();
}

// Follows the objects, arrays and keys of a JSON document, not its values: linear in
// its size, and no deeper than QJsonDocument lets a document be.
class JsonWalk
{
public:
    explicit JsonWalk(bool findDuplicates) : m_findDuplicates(findDuplicates) {}

    // Walks the first `end` bytes; stops early at a key an object gives twice.
    void walk(const QByteArray &json, qsizetype end);

    bool foundDuplicate() const { return m_duplicate; }
    bool duplicateIsEmpty() const { return m_duplicate && m_levels.back().key.isEmpty(); }
    // Where the walk stopped: "models[3].hidden", empty at the top level.
    std::string path() const;

private:
    void onKey(const char *raw, qsizetype size, bool complete);

    std::vector<JsonLevel> m_levels;
    bool m_findDuplicates;
    bool m_duplicate = false;
};

void JsonWalk::walk(const QByteArray &json, qsizetype end)
{
    const char *data = json.constData();
    for (qsizetype i = 0; i < end && !m_duplicate; ++i) {
        switch (data[i]) {
        case '"': {
            qsizetype close = i + 1;
            while (close < end && data[close] != '"')
                close += data[close] == '\\' ? 2 : 1;
            close = std::min(close, end);
            if (!m_levels.empty() && m_levels.back().object && m_levels.back().atKey)
                onKey(data + i + 1, close - i - 1, close < end);
            i = close;
            break;
        }
        case '{':
            m_levels.emplace_back(true);
            break;
        case '[':
            m_levels.emplace_back(false);
            break;
        case '}':
        case ']':
            if (!m_levels.empty())
                m_levels.pop_back();
            break;
        case ',':
            if (!m_levels.empty()) {
                JsonLevel &top = m_levels.back();
                if (top.object)
                    top.atKey = true;
                else
                    ++top.index;
            }
            break;
        default:
            break;
        }
    }
}

void JsonWalk::onKey(const char *raw, qsizetype size, bool complete)
{
    JsonLevel &top = m_levels.back();
    top.key = decodeKey(raw, size);
    top.atKey = false;
    if (!complete || !m_findDuplicates)
        return;
    if (top.keys.contains(top.key))
        m_duplicate = true;
    else
        top.keys.insert(top.key);
}

std::string JsonWalk::path() const
{
    std::string out;
    for (const JsonLevel &level : m_levels) {
        if (out.size() > kKeyPathChars)
            return out + "\u2026";
        if (!level.object)
            out += "[" + std::to_string(level.index) + "]";
        else if (level.atKey)
            break; // between keys: the object itself
        else if (!level.key.isEmpty())
            out += (out.empty() ? "" : ".") + core::excerpt(level.key.toStdString());
    }
    return out;
}

} // namespace

std::optional<core::InputError> parseJsonObject(const QByteArray &json, QJsonObject &out,
                                                std::string_view what)
{
    const std::string notValid = "not a valid " + std::string(what) + ": ";
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        JsonWalk walk(false);
        walk.walk(json, std::clamp<qsizetype>(parseError.offset, 0, json.size()));
        return core::InputError{walk.path(), notValid + parseError.errorString().toStdString() +
                                                 " at byte " + std::to_string(parseError.offset)};
    }
    if (!doc.isObject())
        return core::InputError{"", notValid + "expected a JSON object"};
    JsonWalk walk(true);
    walk.walk(json, json.size());
    if (walk.duplicateIsEmpty()) // the path names the object holding it
        return core::InputError{walk.path(), "empty key, given twice"};
    if (walk.foundDuplicate())
        return core::InputError{walk.path(), "duplicate key: each key is given once"};
    out = doc.object();
    return std::nullopt;
}

JsonFields::JsonFields(const QJsonObject &object, std::string prefix)
    : m_object(object), m_prefix(std::move(prefix))
{
    m_known.reserve(64); // a device's keys, the most any object here has
}

std::optional<QJsonValue> JsonFields::take(const char *key)
{
    m_known.emplace_back(key);
    if (m_error)
        return std::nullopt;
    const auto found = m_object.constFind(QLatin1StringView(key));
    if (found == m_object.constEnd())
        return std::nullopt;
    return found.value();
}

void JsonFields::fail(const char *key, std::string message)
{
    if (!m_error)
        m_error = core::InputError{m_prefix + key, std::move(message)};
}

void JsonFields::integer64(const char *key, std::int64_t &out, double limit, std::string_view unit)
{
    auto value = take(key);
    if (!value)
        return;
    const double d = value->toDouble();
    if (!value->isDouble() || std::floor(d) != d)
        return fail(key, "expected a whole number, got " + describe(*value));
    if (std::abs(d) > limit)
        return fail(key, beyondLimit(d, d < 0 ? -limit : limit, unit));
    out = value->toInteger();
}

void JsonFields::integer(const char *key, int &out)
{
    auto value = take(key);
    if (!value)
        return;
    const double d = value->toDouble();
    if (!value->isDouble() || std::floor(d) != d)
        return fail(key, "expected a whole number, got " + describe(*value));
    if (d > std::numeric_limits<int>::max() || d < std::numeric_limits<int>::min())
        return fail(key, beyondLimit(d, d < 0 ? std::numeric_limits<int>::min()
                                              : std::numeric_limits<int>::max()));
    out = static_cast<int>(d);
}

void JsonFields::number(const char *key, double &out)
{
    auto value = take(key);
    if (!value)
        return;
    if (!value->isDouble())
        return fail(key, "expected a number, got " + describe(*value));
    out = value->toDouble();
}

void JsonFields::boolean(const char *key, bool &out)
{
    auto value = take(key);
    if (!value)
        return;
    if (!value->isBool())
        return fail(key, "expected true or false, got " + describe(*value));
    out = value->toBool();
}

void JsonFields::text(const char *key, std::string &out)
{
    auto value = take(key);
    if (!value)
        return;
    if (!value->isString())
        return fail(key, "expected a string, got " + describe(*value));
    std::string text = value->toString().toStdString();
    if (core::escapeControls(text) != text)
        return fail(key, "must not contain control characters, got " + describe(*value));
    out = std::move(text);
}

void JsonFields::known(const char *key)
{
    m_known.emplace_back(key);
}

std::optional<core::InputError> JsonFields::finish() const
{
    if (m_error)
        return m_error;
    for (auto it = m_object.begin(); it != m_object.end(); ++it) {
        const QString key = it.key();
        // "model.": unknown key would not say what is wrong; name the object instead.
        if (key.isEmpty())
            return core::InputError{m_prefix.substr(0, m_prefix.find_last_not_of('.') + 1),
                                    "empty key"};
        if (std::none_of(m_known.begin(), m_known.end(), [&key](std::string_view known) {
                return key == QLatin1StringView(known.data(), qsizetype(known.size()));
            }))
            return core::InputError{m_prefix + core::excerpt(key.toStdString()), "unknown key"};
    }
    return std::nullopt;
}

std::string describe(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return "null";
    case QJsonValue::Bool:
        return value.toBool() ? "true" : "false";
    case QJsonValue::Double:
        return core::plainNumber(value.toDouble());
    case QJsonValue::String:
        return core::quoted(value.toString().toStdString());
    case QJsonValue::Array:
        return "an array";
    case QJsonValue::Object:
        return "an object";
    case QJsonValue::Undefined:
        break;
    }
    return "nothing";
}

std::string beyondLimit(double value, double limit, std::string_view unit)
{
    return core::plainNumber(value) +
           (value < 0 ? " is less than the limit of " : " is more than the limit of ") +
           core::plainNumber(limit) + (unit.empty() ? "" : " " + std::string(unit));
}

} // namespace io
