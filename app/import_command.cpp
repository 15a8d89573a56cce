#include "app/import_command.h"

#include "app/cli.h"
#include "app/command_line.h"
#include "core/evaluate.h"
#include "io/framework_config.h"
#include "io/input_file.h"
#include "io/presets_io.h"
#include "io/scenario_io.h"
#include "io/text.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

namespace cli {

int runImport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Read a framework's file: a Hugging Face config.json becomes a model preset in your "
        "presets file; a torchtitan TOML, a Megatron-LM argument list or a DeepSpeed config "
        "becomes a scenario. Lists every setting read, ignored (and why) and assumed."));
    const QCommandLineOption presetsFile = io::presetsOption(),
                             set = setOption(QStringLiteral("Applied to the base scenario."));
    QCommandLineOption base(QStringLiteral("base"),
                            QStringLiteral("The scenario the import starts from (its device "
                                           "and every key the file does not set); the "
                                           "default scenario without it."),
                            QStringLiteral("SCENARIO"));
    QCommandLineOption id(QStringLiteral("id"),
                          QStringLiteral("The id of an imported model preset."),
                          QStringLiteral("ID"));
    QCommandLineOption devices(QStringLiteral("devices"),
                               QStringLiteral("The number of devices, where the file leaves it "
                                              "to the launcher."),
                               QStringLiteral("N"));
    QCommandLineOption output({QStringLiteral("o"), QStringLiteral("output")},
                              QStringLiteral("Write the scenario to FILE instead of stdout."),
                              QStringLiteral("FILE"));
    QCommandLineOption saveModel(QStringLiteral("save-model"),
                                 QStringLiteral("The presets file an imported model is added "
                                                "to; your presets file by default."),
                                 QStringLiteral("FILE"));
    QCommandLineOption dryRun(QStringLiteral("dry-run"),
                              QStringLiteral("Show what would be read; write nothing."));
    parser.addOptions({presetsFile, set, base, id, devices, output, saveModel, dryRun});
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("config.json, a job .toml, a launch script or "
                                                "argument list, or a DeepSpeed .json."),
                                 QStringLiteral("FILE"));
    const StandardOptions standard;
    standard.addTo(parser);
    if (int status = parseStandard(parser, standard, arguments); status >= 0)
        return status;
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1)
        return fail(QString(),
                    QStringLiteral("expected one file to import, got %1").arg(files.size()));

    io::ImportOptions options;
    options.modelId = parser.value(id).toStdString();
    options.fileName = QFileInfo(files.constFirst()).fileName().toStdString();
    if (parser.isSet(devices)) {
        bool ok = false;
        const int n = parser.value(devices).toInt(&ok);
        if (!ok || n < 1)
            return fail(QStringLiteral("--devices"),
                        QStringLiteral("expected a whole number of at least 1, got '%1'")
                            .arg(parser.value(devices)));
        options.devices = n;
    }
    core::Presets presets;
    if (auto e = io::loadPresets(presets, parser.value(presetsFile)))
        return fail(*e);
    core::Scenario start;
    if (parser.isSet(base))
        if (auto e = io::readScenarioFile(parser.value(base), start)) {
            if (e->key.empty())
                e->key = "--base";
            return fail(*e);
        }
    for (const QString &assignment : parser.values(set))
        if (auto e = io::applySetting(start, assignment))
            return fail(*e);

    QByteArray content;
    if (auto e = io::readInputFile(files.constFirst(), content))
        return fail(*e);
    auto result = io::importConfig(content, start, presets, options);
    // A refused --devices is the command line's, not the file's.
    if (auto *error = std::get_if<core::InputError>(&result))
        return fail(error->key == "devices" && options.devices
                        ? *error
                        : io::inFile(*error, files.constFirst()));
    const io::ImportedConfig &imported = std::get<io::ImportedConfig>(result);

    QTextStream err(stderr);
    err << io::qs(io::importSummary(imported));
    if (imported.model) {
        presets.put(*imported.model);
        err << QStringLiteral("Model %1: %2 parameters\n")
                   .arg(io::qs(imported.model->id),
                        io::formatCount(core::exactParams(*imported.model)));
    }
    // The scenario must evaluate before anything is written: an import never saves a
    // layout Parascope would refuse.
    if (imported.scenario) {
        const core::Report report = core::evaluate(*imported.scenario, presets);
        if (report.error)
            return fail(io::inFile(*report.error, files.constFirst()));
    }
    if (parser.isSet(dryRun)) {
        err.flush();
        return ok;
    }
    if (imported.model) {
        const QString path =
            parser.isSet(saveModel) ? parser.value(saveModel) : io::userPresetsPath();
        if (auto e = io::addModelToPresetsFile(*imported.model, path))
            return fail(*e);
        err << QStringLiteral("Added model %1 to %2\n")
                   .arg(io::qs(imported.model->id), QString::fromStdString(io::describePath(path)));
    }
    err.flush();
    if (imported.scenario) {
        if (parser.isSet(output)) {
            if (auto e = io::writeScenarioFile(parser.value(output), *imported.scenario))
                return fail(QStringLiteral("--output"), *e);
        } else {
            QTextStream out(stdout);
            out << io::writeScenario(*imported.scenario);
        }
    }
    return ok;
}

} // namespace cli
