// SPDX-License-Identifier: LGPL-2.1
/*
 * The times of KernelShark's markers A and B. KernelShark 2.2.1 gives a
 * plugin no way to them: its installed headers (libkshark*.h, KsPlugins.hpp,
 * KsPluginsGUI.hpp, KsPlotTools.hpp) have none, KsPluginsGUI.hpp only sets
 * a marker (markEntryA(), markEntryB()), and the class that holds them
 * (KsDualMarkerSM) is not installed. So they are read from its toolbar: a
 * "Marker A" button followed by a label with marker A's time ("sec.mmm uuu":
 * microseconds, empty when not set), the same for B, in the order of
 * KsDualMarkerSM::placeInToolBar(). A toolbar that is not that one (another
 * KernelShark, a translated one) or a label that holds no such time is said,
 * not taken for markers that are not set: the dialog shows why.
 */
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QRegularExpression>
#include <QToolBar>

#include "ks-gui.hpp"

/*
 * A label's time in nanoseconds, read exactly (no double). Return: 1 when
 * read, 0 when empty (the marker is not set), -1 when it is no time.
 */
static int ksu_label_time(const QString &text, int64_t *t)
{
	static const QRegularExpression time("^([0-9]{1,10})\\.([0-9]{1,9})$");
	QString s = QString(text).remove(' ');
	QRegularExpressionMatch m;
	qint64 sec, ns;
	bool ok1, ok2;

	if (s.isEmpty())
		return 0;
	m = time.match(s);
	if (!m.hasMatch())
		return -1;
	sec = m.captured(1).toLongLong(&ok1);
	ns = m.captured(2).leftJustified(9, '0').toLongLong(&ok2);
	if (!ok1 || !ok2)
		return -1;
	*t = sec * 1000000000 + ns;
	return 1;
}

/**
 * ksu_markers - the times of markers A and B
 * @w: KernelShark's main window
 *
 * Return: the markers set (their times in ns, to the microsecond the labels
 * show; A before B), or why they cannot be read (then none is set).
 */
KsuMarkers ksu_markers(QMainWindow *w)
{
	static const char * const names[2] = { "Marker A", "Marker B" };
	QLabel *labels[2] = { nullptr, nullptr };
	int64_t t[2] = { 0, 0 };
	bool set[2] = { false, false };
	KsuMarkers m;
	int i;

	if (!w) {
		m.problem = "KernelShark's main window is not known";
		return m;
	}
	for (QToolBar *tb : w->findChildren<QToolBar *>()) {
		QString next;

		for (QAction *act : tb->actions()) {
			QWidget *wid = tb->widgetForAction(act);
			QPushButton *button = qobject_cast<QPushButton *>(wid);
			QLabel *label = qobject_cast<QLabel *>(wid);

			if (button) {
				next = button->text();
				continue;
			}
			for (i = 0; label && i < 2; i++) {
				if (next == names[i] && !labels[i])
					labels[i] = label;
			}
			next.clear();
		}
	}
	for (i = 0; i < 2; i++) {
		if (!labels[i]) {
			m.problem = QString("KernelShark's toolbar has no \"%1\" button followed by "
					    "its time (the plugin reads the markers as KernelShark "
					    "2.2.1 shows them)").arg(names[i]);
			return m;
		}
		switch (ksu_label_time(labels[i]->text(), &t[i])) {
		case 1:
			set[i] = true;
			break;
		case -1:
			m.problem = QString("%1 shows \"%2\", not a time as \"sec.mmm uuu\"")
				    .arg(names[i]).arg(labels[i]->text());
			return m;
		}
	}
	m.haveA = set[0];
	m.haveB = set[1];
	m.a = t[0];
	m.b = t[1];
	if (m.haveA && m.haveB && m.a > m.b)
		std::swap(m.a, m.b);
	return m;
}
