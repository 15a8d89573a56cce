#pragma once

#include <QLayout>
#include <QList>

namespace ui {

// Lays its items out left to right and starts a new row where the next one would not fit,
// each row's items centred on the row's height: a row of inputs that wraps instead of
// widening a narrow dock (presentation mode at 1280 pixels cut the Planner's in half).
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;

    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override; // the widest item: everything else may wrap
    QSize sizeHint() const override;    // every item on one row
    void setGeometry(const QRect &rect) override;

private:
    int horizontalGap() const;
    int verticalGap() const;
    // Places the items in `rect` (only measures when `apply` is false); returns the height.
    int arrange(const QRect &rect, bool apply) const;

    QList<QLayoutItem *> m_items;
};

} // namespace ui
