#pragma once

#include <QHash>
#include <QLabel>

namespace ui {

// A word-wrapped (usually rich-text) label laid out by its height for the width it is given,
// which it remembers. QLabel lays its text out again on every heightForWidth(), and a
// window's layout asks several times for several widths each time anything in it changes
// size: with a table of text that is milliseconds per edit, whether or not the label
// changed. Its size hints are one line's height and no particular width, not the three
// layouts of the text QLabel makes for them each time the text changes.
class WrappedLabel : public QLabel
{
    Q_OBJECT

public:
    explicit WrappedLabel(QWidget *parent = nullptr);

    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void changeEvent(QEvent *event) override;

private:
    mutable QString m_measured;        // the text the heights are for
    mutable int m_measuredMinimum = 0; // and the minimum height
    mutable QFont m_measuredFont;      // and the font
    mutable QHash<int, int> m_heights;
};

} // namespace ui
