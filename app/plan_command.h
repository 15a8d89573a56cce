#pragma once

#include <QStringList>

namespace cli {

// `parascope plan`: every parallel layout of a model on N devices, ranked by step time
// (docs/DESIGN.md §4). `arguments` start with the program name, without the subcommand.
// Returns the exit status.
int runPlan(const QStringList &arguments);

} // namespace cli
