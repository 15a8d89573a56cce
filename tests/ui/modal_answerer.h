#pragma once

// Answers the modal dialogs a real action opens, as a user would, and keeps
// what every message box said: a test triggers the window's own action and
// reads the message the user got.
#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <functional>

class ModalAnswerer : public QObject
{
public:
    // `answer` handles a modal dialog that is not a message box (a file dialog,
    // an options dialog); a message box gets Yes (replace the file?) or OK.
    explicit ModalAnswerer(std::function<void(QWidget *)> answer = {}) : m_answer(std::move(answer))
    {
        connect(&m_timer, &QTimer::timeout, this, &ModalAnswerer::poll);
        m_timer.start(20);
    }

    // "Title: text" of every message box, in order.
    QStringList messages;

private:
    void poll()
    {
        QWidget *modal = QApplication::activeModalWidget();
        if (!modal || !modal->isVisible() || m_handled.contains(modal))
            return;
        m_handled << modal;
        // From the event loop, not from this timer: an answer may open another dialog
        // (a file dialog asks whether to replace the file), and a timer is not called
        // again while its slot runs.
        QTimer::singleShot(0, modal, [this, modal] { answer(modal); });
    }

    void answer(QWidget *modal)
    {
        if (auto *box = qobject_cast<QMessageBox *>(modal)) {
            messages << box->windowTitle() + QStringLiteral(": ") + box->text();
            QAbstractButton *button = box->button(QMessageBox::Yes);
            if (!button)
                button = box->button(QMessageBox::Ok);
            if (button)
                button->click();
            else
                box->reject();
        } else if (m_answer) {
            m_answer(modal);
        }
    }

    QList<QPointer<QWidget>> m_handled;
    std::function<void(QWidget *)> m_answer;
    QTimer m_timer;
};
