#include "ui/settings.h"

namespace ui {

namespace {
const QString kLastScenario = QStringLiteral("session/scenario");
const QString kLastFile = QStringLiteral("session/file");
const QString kRecentFiles = QStringLiteral("files/recent");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kSizesInGib = QStringLiteral("view/sizesInGib");
const QString kSweepSeconds = QStringLiteral("timeline/sweepSeconds");
} // namespace

QByteArray Settings::lastScenario() const
{
    return m_settings.value(kLastScenario).toByteArray();
}

void Settings::setLastScenario(const QByteArray &json)
{
    m_settings.setValue(kLastScenario, json);
}

QString Settings::lastFile() const
{
    return m_settings.value(kLastFile).toString();
}

void Settings::setLastFile(const QString &path)
{
    m_settings.setValue(kLastFile, path);
}

QStringList Settings::recentFiles() const
{
    return m_settings.value(kRecentFiles).toStringList();
}

void Settings::addRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecent)
        files.removeLast();
    m_settings.setValue(kRecentFiles, files);
}

bool Settings::sizesInGib() const
{
    return m_settings.value(kSizesInGib, false).toBool();
}

void Settings::setSizesInGib(bool gib)
{
    m_settings.setValue(kSizesInGib, gib);
}

double Settings::sweepSeconds() const
{
    return m_settings.value(kSweepSeconds, 15.0).toDouble();
}

void Settings::setSweepSeconds(double seconds)
{
    m_settings.setValue(kSweepSeconds, seconds);
}

QByteArray Settings::windowGeometry() const
{
    return m_settings.value(kGeometry).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings.setValue(kGeometry, geometry);
}

QByteArray Settings::windowState() const
{
    return m_settings.value(kState).toByteArray();
}

void Settings::setWindowState(const QByteArray &state)
{
    m_settings.setValue(kState, state);
}

} // namespace ui
