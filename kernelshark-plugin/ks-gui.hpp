/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * plugin-ustack.so: what its Qt files share (Qt 5 widgets only; no header
 * of the KernelShark GUI but KsPlotTools.hpp and KsPlugins.hpp).
 */
#ifndef _KS_GUI_HPP
#define _KS_GUI_HPP

#include <QDialog>
#include <QString>

#include "ks-ustack.h"

class QMainWindow;
class QComboBox;
class QTableWidget;
class QLabel;

/* ks-menu.cpp: KernelShark's main window, once the menu initializer ran */
extern QMainWindow *ksu_main_window;

/* ks-draw.cpp: the model of the last graph drawn (its visible range, all entries) */
extern struct kshark_trace_histo *ksu_last_histo;

/* ks-stack-window.cpp: a window with the whole stack of an event, to copy from */
QWidget *ksu_stack_window_open(const struct kshark_entry *entry, QWidget *parent);
QString ksu_entry_text(const struct kshark_entry *entry);

/* ks-markers.cpp: the times of KernelShark's markers A and B, from its toolbar */
struct KsuMarkers {
	bool	haveA = false, haveB = false;	/* set */
	int64_t	a = 0, b = 0;			/* their times (ns, to the microsecond) */
	QString	problem;			/* why they cannot be read; empty when they can */
};

KsuMarkers ksu_markers(QMainWindow *w);

/* What the dialog works on: the entries (time order), the visible range, the markers. */
struct KsuRange {
	struct kshark_entry	**rows = nullptr;
	size_t			n = 0;
	int64_t			visMin = 0, visMax = 0;
	bool			haveMarkers = false;
	int64_t			markA = 0, markB = 0;
	QString			markersProblem;	/* why the markers cannot be read */
};

/**
 * class KsuStacksDialog - the stacks of a task over a range, grouped by stack
 *
 * Tools > "User stacks of a task" (Ctrl+Shift+U): a task (or every task),
 * the visible range or the one between markers A and B, and the table of
 * its stacks, most frequent first, with counts; export as folded stacks.
 */
class KsuStacksDialog : public QDialog {
public:
	KsuStacksDialog(const KsuRange &range, int pid, QWidget *parent = nullptr);
	~KsuStacksDialog();

	void refresh();
	QString dump() const;
	QString folded() const;
	bool exportFolded(const QString &path) const;

private:
	KsuRange		_range;
	struct ksu_groups	_groups;
	QComboBox		*_task;
	QComboBox		*_span;
	QTableWidget		*_table;
	QLabel			*_summary;

	void _fillTasks(int pid);
};

/* ks-dialog.cpp: open the dialog on KernelShark's data */
void ksu_dialog_open(QMainWindow *w);

#endif /* _KS_GUI_HPP */
