#include "io/json_fields.h"

#include <QJsonDocument>
#include <cmath>
#include <limits>

namespace io {

JsonFields::JsonFields(const QJsonObject &object, std::string prefix)
    : m_object(object), m_prefix(std::move(prefix))
{}

std::optional<QJsonValue> JsonFields::take(const char *key)
{
    const QString name = QLatin1String(key);
    m_known.insert(name);
    if (m_error || !m_object.contains(name))
        return std::nullopt;
    return m_object.value(name);
}

void JsonFields::fail(const char *key, std::string message)
{
    if (!m_error)
        m_error = core::InputError{m_prefix + key, std::move(message)};
}

void JsonFields::integer64(const char *key, std::int64_t &out)
{
    auto value = take(key);
    if (!value)
        return;
    const double d = value->toDouble(std::numeric_limits<double>::quiet_NaN());
    if (!value->isDouble() || std::floor(d) != d || std::abs(d) > 9.0e15)
        return fail(key, "expected a whole number, got " + describe(*value));
    out = value->toInteger();
}

void JsonFields::integer(const char *key, int &out)
{
    std::int64_t wide = out;
    integer64(key, wide);
    if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
        return fail(key, "is out of range");
    out = static_cast<int>(wide);
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
    out = value->toString().toStdString();
}

void JsonFields::known(const char *key)
{
    m_known.insert(QLatin1String(key));
}

std::optional<core::InputError> JsonFields::finish() const
{
    if (m_error)
        return m_error;
    for (auto it = m_object.begin(); it != m_object.end(); ++it) {
        // "model.": unknown key would not say what is wrong; name the object instead.
        if (it.key().isEmpty())
            return core::InputError{m_prefix.substr(0, m_prefix.find_last_not_of('.') + 1),
                                    "empty key"};
        if (!m_known.contains(it.key()))
            return core::InputError{m_prefix + it.key().toStdString(), "unknown key"};
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
        return QString::number(value.toDouble(), 'g', 17).toStdString();
    case QJsonValue::String:
        return "\"" + value.toString().toStdString() + "\"";
    case QJsonValue::Array:
        return "an array";
    case QJsonValue::Object:
        return "an object";
    case QJsonValue::Undefined:
        break;
    }
    return "nothing";
}

} // namespace io
