#include "io/examples_io.h"

#include "io/scenario_io.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <utility>

namespace io {

QList<Example> builtinExamples()
{
    QFile index(QStringLiteral(":/examples/examples.json"));
    if (!index.open(QIODevice::ReadOnly))
        qFatal("built-in examples are missing");
    const QJsonObject root = QJsonDocument::fromJson(index.readAll()).object();
    QList<Example> out;
    for (const QJsonValue &value : root.value(QStringLiteral("examples")).toArray()) {
        const QJsonObject o = value.toObject();
        Example e;
        e.id = o.value(QStringLiteral("id")).toString();
        e.title = o.value(QStringLiteral("title")).toString();
        e.chart = o.value(QStringLiteral("chart")).toString();
        e.explanation = o.value(QStringLiteral("explanation")).toString();
        if (o.contains(QStringLiteral("plan"))) {
            const QJsonObject plan = o.value(QStringLiteral("plan")).toObject();
            ExamplePlan p;
            for (const auto &[key, target] :
                 {std::pair{"tpot_ms", &p.tpotMs}, std::pair{"ttft_ms", &p.ttftMs}})
                if (plan.contains(QLatin1String(key)))
                    *target = plan.value(QLatin1String(key)).toDouble();
            e.plan = p;
        }
        const QString file =
            QStringLiteral(":/examples/") + o.value(QStringLiteral("file")).toString();
        if (auto error = readScenarioFile(file, e.scenario))
            qFatal("built-in example %s is broken: %s", qPrintable(e.id),
                   error->toString().c_str());
        out.append(e);
    }
    return out;
}

} // namespace io
