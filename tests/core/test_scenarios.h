#pragma once

// Helpers the core tests share: a scenario from "key=value,key=value" (the keys of
// core/fields.cpp, as --set takes them) and a relative comparison of doubles.
#include "core/fields.h"
#include "core/scenario.h"

#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <algorithm>
#include <cmath>

inline core::Scenario scenario(const QString &set)
{
    core::Scenario s;
    for (const QString &kv : set.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList p = kv.split(QLatin1Char('='));
        if (auto e = core::setField(s, p.at(0).toStdString(), p.at(1).toStdString()))
            qFatal("bad test scenario %s", qPrintable(kv));
    }
    return s;
}

inline bool near(double a, double b, double rel = 1e-12)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}
