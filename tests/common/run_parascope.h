#pragma once

// Runs the real `parascope` binary as a user would, with no display in its
// environment: headless commands must find their way without one. The test target
// defines PARASCOPE_BIN, the binary's path.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <functional>

struct ParascopeRun
{
    int status = -1;       // -1 when it crashed or was stopped
    bool crashed = false;  // ended by a signal (an abort, a sanitizer report)
    bool timedOut = false; // still running when the time was up, and killed
    QString out;
    QString err;
};

// `timeoutMs` -1 waits as long as it takes (CTest's timeout bounds a run that hangs).
// `inChild`, when given, runs in the child before the program starts (a resource limit).
inline ParascopeRun runParascope(const QStringList &arguments, int timeoutMs = -1,
                                 const std::function<void()> &inChild = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    p.setProcessEnvironment(env);
    if (inChild)
        p.setChildProcessModifier(inChild);
    p.start(QStringLiteral(PARASCOPE_BIN), arguments);
    ParascopeRun run;
    if (!p.waitForFinished(timeoutMs) && p.state() != QProcess::NotRunning) {
        run.timedOut = true;
        p.kill();
        p.waitForFinished(-1);
    }
    run.crashed = !run.timedOut && p.exitStatus() == QProcess::CrashExit;
    if (!run.timedOut && !run.crashed)
        run.status = p.exitCode();
    run.out = QString::fromUtf8(p.readAllStandardOutput());
    run.err = QString::fromUtf8(p.readAllStandardError());
    return run;
}

// `parascope COMMAND` followed by the words of `rest`, split at spaces.
inline QStringList parascopeCommand(const QString &command, const QString &rest)
{
    return QStringList{command} + rest.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// The JSON object `parascope` writes with `arguments` and `--format json`, or an empty one;
// its error output goes to the test's log when it fails.
inline QJsonObject runParascopeJson(const QStringList &arguments)
{
    const ParascopeRun r =
        runParascope(arguments + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
    if (r.status != 0)
        qWarning("%s", qPrintable(r.err));
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}
