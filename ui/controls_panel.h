#pragma once

#include <QHash>
#include <QWidget>
#include <functional>

class QCheckBox;
class QDoubleSpinBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace ui {

class FieldMask;
class ScenarioDocument;
class SliderSpin;
class StepBurst;

// Every scenario input as a control: pickers, sliders with spin boxes, check
// boxes. Each control edits one key through the document and shows the
// document's value; none computes anything.
class ControlsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ControlsPanel(ScenarioDocument *document, QWidget *parent = nullptr);

    // The control that edits a key (object name = the key), for tests and focus.
    QWidget *control(const QString &key) const { return m_controls.value(key); }
    // Under the framework picker: the profile's keys set differently ("changed:
    // cache_outputs"), hidden when none is.
    QLabel *profileNote() const { return m_profileNote; }
    // Labels above their controls rather than beside them: half the width, for large text on
    // a narrow screen.
    void setStacked(bool stacked);
    bool isStacked() const;

Q_SIGNALS:
    // The panel needs another width: the framework's names for ZeRO stages changed.
    void widthWanted();

private:
    QComboBox *addChoice(const QString &key, const QString &label);
    SliderSpin *addSlider(const QString &key, const QString &label, int minimum, int maximum,
                          bool logarithmic);
    QCheckBox *addCheck(const QString &key, const QString &label);
    // A line of text for a key written out (pipeline_layout), set when editing finishes; empty
    // is the key's unset word, which the placeholder names.
    QLineEdit *addText(const QString &key, const QString &label, const QString &placeholder);
    struct NumberRange
    {
        double minimum = 0;
        double maximum = 1;
        int decimals = 2;
        double step = 0.1;
        double scale = 1; // the key's value is the box's × scale ("768 M" for 768000000)
    };
    // A spin box for a decimal key, one undo step per typed value or burst of steps.
    QDoubleSpinBox *addNumber(const QString &key, const QString &label, const NumberRange &range);
    void addRow(const QString &key, const QString &label, QWidget *control);
    // The gesture for an edit from a control: the current burst's while the edit is one of its
    // steps, so that the burst is one undo step; 0 (a step of its own) otherwise.
    std::function<int()> stepGesture(const StepBurst *steps);
    void refresh();
    // Sizes the ZeRO picker for the framework's names; true when its width changed.
    bool fitZeroNames();

    ScenarioDocument *m_document;
    QFormLayout *m_form;
    QHash<QString, QWidget *> m_controls;
    QLabel *m_profileNote = nullptr;
};

} // namespace ui
