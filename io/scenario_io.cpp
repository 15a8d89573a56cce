#include "io/scenario_io.h"

#include "core/echo.h"
#include "core/fields.h"
#include "io/input_file.h"
#include "io/json_fields.h"
#include "io/presets_io.h"
#include "io/save_file.h"
#include "io/text.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>
#include <limits>

namespace io {

namespace {

// A JSON scalar as the text `core::setField` parses, or an error naming the key.
std::optional<core::InputError> scalarText(const core::FieldInfo &field, const QJsonValue &value,
                                           std::string &text)
{
    const std::string key(field.key);
    switch (core::fieldKind(field)) {
    case core::FieldKind::integer: {
        const double d = value.toDouble();
        if (!value.isDouble() || std::floor(d) != d)
            return core::InputError{key, "expected a whole number, got " + describe(value)};
        if (d > std::numeric_limits<int>::max() || d < std::numeric_limits<int>::min())
            return core::InputError{key, beyondLimit(d, d < 0 ? std::numeric_limits<int>::min()
                                                              : std::numeric_limits<int>::max())};
        text = std::to_string(value.toInteger());
        return std::nullopt;
    }
    case core::FieldKind::number:
        // An optional number is unset as null (as it is written) or as its word ("auto").
        if (std::holds_alternative<std::optional<double> core::Scenario::*>(field.member) &&
            (value.isNull() ||
             (!field.unset.empty() && value.toString().toStdString() == field.unset))) {
            text.clear();
            return std::nullopt;
        }
        if (!value.isDouble())
            return core::InputError{key, "expected a number, got " + describe(value)};
        text = QString::number(value.toDouble(), 'g', 17).toStdString();
        return std::nullopt;
    case core::FieldKind::boolean:
        if (!value.isBool())
            return core::InputError{key, "expected true or false, got " + describe(value)};
        text = value.toBool() ? "true" : "false";
        return std::nullopt;
    case core::FieldKind::text:
        if (!value.isString())
            return core::InputError{key, "expected a string, got " + describe(value)};
        text = value.toString().toStdString();
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::optional<core::InputError> readScenario(const QByteArray &json, core::Scenario &out)
{
    QJsonObject root;
    if (auto e = parseJsonObject(json, root, "scenario file"))
        return e;

    const QJsonValue format = root.value(QStringLiteral("format"));
    if (format.toString() != QLatin1String(core::kScenarioFormat))
        return core::InputError{"format", "expected \"" + std::string(core::kScenarioFormat) +
                                              "\", got " + describe(format)};
    const QJsonValue version = root.value(QStringLiteral("version"));
    const double number = version.toDouble();
    if (!version.isDouble() || number != std::floor(number) || number < 1)
        return core::InputError{"version",
                                "expected a whole number from 1, got " + describe(version)};
    if (number > core::kScenarioVersion)
        return core::InputError{"version", "version " + core::plainNumber(number) +
                                               " is newer than this Parascope reads (" +
                                               std::to_string(core::kScenarioVersion) +
                                               "); please update Parascope"};

    core::Scenario s;
    // The framework first: its profile sets keys that the file's own values then override.
    if (const QJsonValue framework = root.value(QStringLiteral("framework"));
        !framework.isUndefined()) {
        std::string text;
        if (auto e = scalarText(*core::findField("framework"), framework, text))
            return e;
        if (auto e = core::setField(s, "framework", text))
            return e;
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string key = it.key().toStdString();
        if (key == "format" || key == "version" || key == "framework")
            continue;
        const core::FieldInfo *field = core::findField(key);
        if (!field)
            return core::unknownKey(key);
        if (it.value().isObject() && key == "model") {
            core::ModelSpec model;
            if (auto e = parseModel(it.value().toObject(), model, "model."))
                return e;
            s.model = model.id;
            s.customModel = std::move(model);
            continue;
        }
        if (it.value().isObject() && key == "device") {
            core::DeviceSpec device;
            if (auto e = parseDevice(it.value().toObject(), device, "device."))
                return e;
            s.device = device.id;
            s.customDevice = std::move(device);
            continue;
        }
        std::string text;
        if (auto e = scalarText(*field, it.value(), text))
            return e;
        if (auto e = core::setField(s, key, text))
            return e;
    }
    out = std::move(s);
    return std::nullopt;
}

std::optional<core::InputError> readScenarioFile(const QString &path, core::Scenario &out)
{
    QByteArray json;
    if (auto e = readInputFile(path, json))
        return e;
    if (auto e = readScenario(json, out))
        return inFile(*e, path);
    return std::nullopt;
}

QByteArray writeScenario(const core::Scenario &s)
{
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(core::kScenarioFormat));
    root.insert(QStringLiteral("version"), core::kScenarioVersion);
    for (const auto &field : core::scenarioFields()) {
        const QString key = qs(field.key);
        if (field.key == "model" && s.customModel) {
            root.insert(key, modelToJson(*s.customModel));
            continue;
        }
        if (field.key == "device" && s.customDevice) {
            root.insert(key, deviceToJson(*s.customDevice));
            continue;
        }
        const std::string text = core::fieldText(s, field.key);
        const std::optional<double> number = core::fieldNumber(s, field.key);
        switch (core::fieldKind(field)) {
        case core::FieldKind::integer:
            root.insert(key, qint64(number.value_or(0)));
            break;
        case core::FieldKind::number:
            root.insert(key, number ? QJsonValue(*number) : QJsonValue(QJsonValue::Null));
            break;
        case core::FieldKind::boolean:
            root.insert(key, text == "true");
            break;
        case core::FieldKind::text:
            root.insert(key, qs(text));
            break;
        }
    }
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

std::optional<QString> writeScenarioFile(const QString &path, const core::Scenario &scenario)
{
    return saveFile(path, writeScenario(scenario));
}

std::optional<core::InputError> applySetting(core::Scenario &s, const QString &assignment)
{
    const qsizetype eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0)
        return core::InputError{"--set", "expected KEY=VALUE, got " +
                                             core::quoted(assignment.toStdString())};
    const QString value = assignment.mid(eq + 1).trimmed();
    const std::string key = assignment.left(eq).trimmed().toStdString();
    // An inline model or device, as a scenario file holds one: --set 'model={"id": ...}'.
    if ((key == "model" || key == "device") && value.startsWith(QLatin1Char('{'))) {
        QJsonObject object;
        if (auto e = parseJsonObject(value.toUtf8(), object, "inline " + key))
            return core::InputError{e->key.empty() ? key : key + "." + e->key, e->message};
        core::Scenario next = s;
        if (key == "model") {
            core::ModelSpec model;
            if (auto e = parseModel(object, model, "model."))
                return e;
            next.model = model.id;
            next.customModel = std::move(model);
        } else {
            core::DeviceSpec device;
            if (auto e = parseDevice(object, device, "device."))
                return e;
            next.device = device.id;
            next.customDevice = std::move(device);
        }
        s = std::move(next);
        return std::nullopt;
    }
    auto error = core::setField(s, key, value.toStdString());
    // "--set tp=4,pp=2": a value refused that goes on to another key's assignment was meant as
    // two settings, which take a --set each.
    static const QRegularExpression another(QStringLiteral(",\\s*([a-z_]+)\\s*="));
    const QRegularExpressionMatch next = another.match(value);
    if (error && next.hasMatch() && core::findField(next.captured(1).toStdString()))
        error->message += "; give each key its own --set (--set KEY=VALUE --set KEY=VALUE)";
    return error;
}

} // namespace io
