#pragma once

#include <QApplication>
#include <QFont>
#include <QPalette>
#include <QVariant>

namespace ui {

// How both Planner tables show a cell beyond its value: the row the explorer holds in bold,
// every row greyed while the search is stale, words to the left and numbers to the right.
// An empty QVariant for any other role.
inline QVariant rowLook(int role, bool loaded, bool stale, bool words)
{
    switch (role) {
    case Qt::TextAlignmentRole:
        return ((words ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter).toInt();
    case Qt::FontRole:
        if (loaded) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ForegroundRole:
        if (stale)
            return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    default:
        return {};
    }
}

} // namespace ui
