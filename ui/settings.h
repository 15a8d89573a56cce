#pragma once

#include <QByteArray>
#include <QSettings>
#include <QStringList>

namespace ui {

// Every persistent setting, declared once with its default. Nothing else in
// Parascope names a QSettings key.
class Settings
{
public:
    Settings() = default;

    // The scenario on screen when the window last closed (scenario JSON), and its file.
    QByteArray lastScenario() const;
    void setLastScenario(const QByteArray &json);
    QString lastFile() const;
    void setLastFile(const QString &path);

    // Most recent first, at most kMaxRecent.
    QStringList recentFiles() const;
    void addRecentFile(const QString &path);
    static constexpr int kMaxRecent = 8;

    // Sizes in GiB (2^30) instead of decimal GB.
    bool sizesInGib() const;
    void setSizesInGib(bool gib);

    // The timeline's sweep: seconds for the whole step (Timeline tab, Speed).
    double sweepSeconds() const;
    void setSweepSeconds(double seconds);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray &state);

private:
    mutable QSettings m_settings;
};

} // namespace ui
