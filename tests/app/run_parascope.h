#pragma once

// Runs the real `parascope` binary as a user would, with no display in its
// environment: headless commands must find their way without one.
#include <QProcess>
#include <QString>
#include <QStringList>

struct ParascopeRun
{
    int status = -1; // -1 when it crashed
    QString out;
    QString err;
};

inline ParascopeRun runParascope(const QStringList &arguments)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(PARASCOPE_BIN), arguments);
    p.waitForFinished(-1); // CTest's timeout bounds a run that hangs
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}
