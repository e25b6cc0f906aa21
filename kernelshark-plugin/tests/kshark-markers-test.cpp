// SPDX-License-Identifier: GPL-2.0
/*
 * kshark-markers-test: the plugin's reading of markers A and B
 * (ks-markers.cpp) from a toolbar laid out as KernelShark 2.2.1 lays out its
 * own (KsDualMarkerSM::placeInToolBar(): a spacer label, the "Marker A"
 * button, its time label, a separator, the same for B), with the texts its
 * labels hold, and from toolbars it cannot read; and the stacks dialog
 * given markers that cannot be read. Offscreen (QT_QPA_PLATFORM=offscreen).
 *
 *   kshark-markers-test
 *
 * Prints a line per case, "case|A|B|problem" (A and B: the time in ns, or
 * "-" when not set), and "dialog|message|markers item enabled", which
 * tests/host/kshark-markers.sh checks.
 */
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QStandardItemModel>
#include <QToolBar>

#include <stdio.h>

#include "../ks-gui.hpp"

/* A main window whose toolbar has buttons @a and @b followed by labels of @ta and @tb. */
static QMainWindow *ksu_test_window(const char *a, const char *ta, const char *b, const char *tb)
{
	QMainWindow *w = new QMainWindow;
	QToolBar *bar = new QToolBar(w);

	w->addToolBar(bar);
	bar->addWidget(new QLabel("   "));
	bar->addWidget(new QPushButton(a));
	bar->addWidget(new QLabel(ta));
	bar->addSeparator();
	bar->addWidget(new QLabel("   "));
	bar->addWidget(new QPushButton(b));
	bar->addWidget(new QLabel(tb));
	bar->addSeparator();
	bar->addWidget(new QLabel("    A,B Delta: "));
	bar->addWidget(new QLabel(""));
	return w;
}

static void ksu_test_case(const char *name, const char *a, const char *ta, const char *b,
			  const char *tb)
{
	QMainWindow *w = ksu_test_window(a, ta, b, tb);
	KsuMarkers m = ksu_markers(w);

	printf("%s|%s|%s|%s\n", name,
	       m.haveA ? qPrintable(QString::number(m.a)) : "-",
	       m.haveB ? qPrintable(QString::number(m.b)) : "-", qPrintable(m.problem));
	delete w;
}

int main(int argc, char **argv)
{
	QApplication app(argc, argv);

	ksu_test_case("set", "Marker A", "3.785 008", "Marker B", "3.791 639");
	ksu_test_case("reversed", "Marker A", "3.791 639", "Marker B", "3.785 008");
	ksu_test_case("a only", "Marker A", "12.000 001", "Marker B", "");
	ksu_test_case("not set", "Marker A", "", "Marker B", "");
	ksu_test_case("no time", "Marker A", "1e5", "Marker B", "3.785 008");
	ksu_test_case("bad b", "Marker A", "3.785 008", "Marker B", "3,785 008");
	ksu_test_case("translated", "Marqueur A", "3.785 008", "Marqueur B", "3.791 639");
	printf("no window|-|-|%s\n", qPrintable(ksu_markers(nullptr).problem));

	/* the dialog on markers that cannot be read: said, the range not offered */
	KsuRange r;
	r.markersProblem = "Marker A shows \"1e5\", not a time as \"sec.mmm uuu\"";
	KsuStacksDialog d(r, -1);
	QLabel *said = d.findChild<QLabel *>("ksu_markers_problem");
	bool enabled = true;

	for (QComboBox *c : d.findChildren<QComboBox *>()) {
		QStandardItemModel *model = qobject_cast<QStandardItemModel *>(c->model());

		if (c->count() == 3 && model)
			enabled = model->item(1)->isEnabled();
	}
	printf("dialog|%s|%s\n", said ? qPrintable(said->text()) : "(none)",
	       enabled ? "enabled" : "disabled");
	return 0;
}
