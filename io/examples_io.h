#pragma once

#include "core/error.h"
#include "core/scenario.h"

#include <QList>
#include <QString>
#include <optional>

namespace io {

// A deployment search an example runs in the Planner (docs/inference.md, "Planning a
// deployment"): the targets it sets, in milliseconds; empty for none.
struct ExamplePlan
{
    std::optional<double> tpotMs;
    std::optional<double> ttftMs;
};

// One of the worked examples (docs/worked-examples.md), shipped with the program
// (resources/examples).
struct Example
{
    QString id;
    QString title;
    QString chart; // the chart that teaches it: a page id of ui/charts/chart_pages.cpp
    QString explanation;
    core::Scenario scenario;
    // Set: opening the example also opens the Planner and searches the scenario's
    // deployment with these targets.
    std::optional<ExamplePlan> plan;
};

// The built-in examples, in menu order. A broken resource is a programming
// error and stops the program with a message.
QList<Example> builtinExamples();

} // namespace io
