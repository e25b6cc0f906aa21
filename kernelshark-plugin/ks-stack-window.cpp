// SPDX-License-Identifier: LGPL-2.1
/*
 * The whole user stack of one event in a window of its own: the event's
 * line (task, pid, CPU, time, event) and its Info with the stack, in a
 * read-only text the user selects and copies from, and a Copy button.
 */
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWidget>

#include "ks-gui.hpp"

/**
 * ksu_entry_text - an event and its stack as text
 * @entry: the event
 *
 * Return: "task-pid [cpu] sec.usec: event" and the Info lines under it.
 */
QString ksu_entry_text(const struct kshark_entry *entry)
{
	char *task = kshark_get_task(entry);
	char *event = kshark_get_event_name(entry);
	char *info = kshark_get_info(entry);
	QString text;

	text = QString("%1-%2 [%3] %4.%5: %6: %7\n")
		.arg(task ? task : "<...>").arg(entry->pid).arg(entry->cpu, 3, 10, QChar('0'))
		.arg(entry->ts / 1000000000).arg((entry->ts / 1000) % 1000000, 6, 10, QChar('0'))
		.arg(event ? event : "?").arg(info ? info : "");
	free(task);
	free(event);
	free(info);
	return text;
}

/* The frame lines of a stack's text, for the log. */
static int ksu_frame_lines(const QString &text)
{
	return text.count("\n  => ") + (text.startsWith("  => ") ? 1 : 0);
}

/* The first frame line, without its arrow. */
static QString ksu_first_frame(const QString &text)
{
	int at = text.indexOf("\n  => ");

	return at < 0 ? QString() : text.mid(at + 6).section('\n', 0, 0);
}

/**
 * ksu_stack_window_open - open a window with an event's stack
 * @entry: the event
 * @parent: the window it belongs to (deleted with it); may be NULL
 *
 * Return: the window, shown; it deletes itself when closed.
 */
QWidget *ksu_stack_window_open(const struct kshark_entry *entry, QWidget *parent)
{
	QWidget *w = new QWidget(parent, Qt::Window);
	QVBoxLayout *layout = new QVBoxLayout(w);
	QHBoxLayout *buttons = new QHBoxLayout;
	QPlainTextEdit *text = new QPlainTextEdit(w);
	QPushButton *copy = new QPushButton("Copy", w);
	QPushButton *close = new QPushButton("Close", w);

	w->setAttribute(Qt::WA_DeleteOnClose);
	w->setWindowTitle("User stack");
	w->setObjectName("ksu_stack_window");
	text->setObjectName("ksu_stack_text");
	text->setReadOnly(true);
	text->setLineWrapMode(QPlainTextEdit::NoWrap);
	text->setFont(QFont("Monospace"));
	text->setPlainText(ksu_entry_text(entry));
	layout->addWidget(text);
	buttons->addStretch();
	buttons->addWidget(copy);
	buttons->addWidget(close);
	layout->addLayout(buttons);
	QObject::connect(copy, &QPushButton::clicked, [text]() {
		QApplication::clipboard()->setText(text->toPlainText());
	});
	QObject::connect(close, &QPushButton::clicked, w, &QWidget::close);
	w->resize(720, 320);
	w->show();
	ksu_log("stack window shown: %d frames, innermost %s", ksu_frame_lines(text->toPlainText()),
		qPrintable(ksu_first_frame(text->toPlainText())));
	return w;
}
