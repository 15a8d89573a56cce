#pragma once

// Scenarios as tests write them and as a failure reports them: from "key=value" settings
// (the keys of core/fields.cpp, as --set takes them), as the --set arguments that
// reproduce them, and a relative comparison of doubles. For the tests of every module:
// core, io, the command line and the window.
#include "core/fields.h"
#include "core/report.h"
#include "core/scenario.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>

// The default scenario with each "key=value" set in turn. A setting the scenario table
// refuses is a mistake in the test: it stops the test program, naming the setting.
inline core::Scenario scenario(const QStringList &settings)
{
    core::Scenario s;
    for (const QString &setting : settings) {
        const qsizetype eq = setting.indexOf(QLatin1Char('='));
        if (eq <= 0)
            qFatal("bad test setting %s: expected KEY=VALUE", qPrintable(setting));
        if (auto e = core::setField(s, setting.left(eq).toStdString(),
                                    setting.mid(eq + 1).toStdString()))
            qFatal("bad test setting %s: %s", qPrintable(setting), e->toString().c_str());
    }
    return s;
}

inline core::Scenario scenario(std::initializer_list<const char *> settings)
{
    QStringList list;
    for (const char *setting : settings)
        list << QString::fromUtf8(setting);
    return scenario(list);
}

// Megatron-Bridge's Llama 3 70B on 64 GB200s as one stage of D = 64 (v0.4.2,
// llama3_workload_base_configs.py, _GB200_FP8_CS_V2), without its ZeRO stage, micro-batching and
// offloaded layers: Megatron-LM's profile, FP8 current scaling with FP8 parameters, BF16
// gradient reduction, Transformer Engine's loss, 8,192 tokens, no recomputation. The settings
// in the order a user sets them, the framework's profile first.
inline QStringList megatronBridge70bOnGb200()
{
    return {"framework=megatron",
            "model=llama-3.1-70b",
            "device=gb200-nvl72",
            "precision=fp8",
            "fp8_scaling=current",
            "fp8_params=true",
            "grad_precision=bf16",
            "loss_fusion=te",
            "seq_len=8192",
            "tp=1",
            "dp=64",
            "recompute=none",
            "sequence_parallel=false",
            "cache_outputs=false"};
}

// "key=value,key=value".
inline core::Scenario scenario(const QString &set)
{
    return scenario(set.split(QLatin1Char(','), Qt::SkipEmptyParts));
}

// Whether a report fits with `headroomBytes` left free on every stage, as the planner and the
// recomputation warnings ask (docs/planner.md, "Headroom").
inline bool fitsWithHeadroom(const core::Report &r, std::int64_t headroomBytes)
{
    return !r.error && r.fits &&
           std::all_of(r.stages.begin(), r.stages.end(),
                       [headroomBytes](const core::StageReport &st) {
                           return st.headroomBytes >= headroomBytes;
                       });
}

// The scenario on an inline device that publishes no peak for any precision: evaluate then
// times the schedule in layer-times (F = a chunk's layers, B = 2F), which tests derive by hand.
inline core::Scenario inLayerTimes(core::Scenario s)
{
    core::DeviceSpec device;
    device.id = "no-peak";
    device.memoryGib = 80;
    device.devicesPerNode = 8;
    s.customDevice = device;
    s.device = device.id;
    return s;
}

// Each pipeline stage's transformer layers in a report, stage 0 first.
inline QList<int> stageLayers(const core::Report &r)
{
    QList<int> layers;
    for (const core::StageReport &st : r.stages)
        layers << st.layers;
    return layers;
}

// The scenario as the --set arguments that reproduce it: "--set model=... --set tp=8 ...".
inline QString settingsLine(const core::Scenario &s)
{
    QStringList settings;
    for (const core::FieldInfo &field : core::scenarioFields())
        if (const std::string value = core::fieldText(s, field.key); !value.empty())
            settings << QStringLiteral("--set %1=%2")
                            .arg(QString::fromUtf8(field.key.data(), qsizetype(field.key.size())),
                                 QString::fromStdString(value));
    return settings.join(QLatin1Char(' '));
}

// a and b differ by at most `rel` of the larger.
inline bool near(double a, double b, double rel = 1e-12)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}
