// SPDX-License-Identifier: LGPL-2.1
/*
 * The times of KernelShark's markers A and B, without its headers: its
 * toolbar holds a "Marker A" button followed by a label with the time of
 * marker A ("sec.mmm uuu", microseconds, empty when not set), and the same
 * for B. Their order in the toolbar is KernelShark 2.2.1's
 * (KsDualMarkerSM::placeInToolBar).
 */
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QToolBar>

#include "ks-gui.hpp"

/* A label's time in nanoseconds; false when empty. */
static bool ksu_label_time(const QLabel *l, int64_t *t)
{
	QString s = l->text().remove(' ');
	bool ok = false;
	double v;

	if (s.isEmpty())
		return false;
	v = s.toDouble(&ok);
	if (!ok)
		return false;
	*t = (int64_t)(v * 1e9 + (v >= 0 ? 0.5 : -0.5));
	return true;
}

/**
 * ksu_markers - the times of markers A and B
 * @w: KernelShark's main window
 * @a: set to marker A's time (ns, to the microsecond the label shows)
 * @b: set to marker B's time
 *
 * Return: true when both markers are set.
 */
bool ksu_markers(QMainWindow *w, int64_t *a, int64_t *b)
{
	bool haveA = false, haveB = false;

	if (!w)
		return false;
	for (QToolBar *tb : w->findChildren<QToolBar *>()) {
		QString next;

		for (QAction *act : tb->actions()) {
			QWidget *wid = tb->widgetForAction(act);
			QPushButton *button = qobject_cast<QPushButton *>(wid);
			QLabel *label = qobject_cast<QLabel *>(wid);

			if (button) {
				next = button->text();
			} else if (label && next == "Marker A") {
				haveA = ksu_label_time(label, a);
				next.clear();
			} else if (label && next == "Marker B") {
				haveB = ksu_label_time(label, b);
				next.clear();
			}
		}
	}
	if (haveA && haveB && *a > *b)
		std::swap(*a, *b);
	return haveA && haveB;
}
