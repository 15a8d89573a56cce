#pragma once

#include <QStringList>

namespace cli {

// `parascope import FILE`: a framework's file read into a model preset or a scenario
// (docs/import.md).
int runImport(const QStringList &arguments);

} // namespace cli
