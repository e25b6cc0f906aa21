// SPDX-License-Identifier: LGPL-2.1
/*
 * The dialog of Tools > "User stacks of a task": the user stacks of a task
 * (or of every task) over the visible range or between markers A and B,
 * grouped by identical stack (ks-group.c), most frequent first, with their
 * counts; a row per group, its frames innermost first. "Export folded..."
 * writes the groups as folded stacks (flame graph tools, speedscope,
 * Perfetto). Made without moc: lambdas are the slots.
 *
 * Environment, for tests: USTACK_KSHARK_EXPORT=FILE exports there when the
 * dialog opens, without asking; USTACK_KSHARK_LOG gets a line per refresh.
 */
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

#include <libkshark-model.h>

#include "ks-gui.hpp"

enum { KSU_SPAN_VISIBLE, KSU_SPAN_MARKERS, KSU_SPAN_ALL };

/* The frames of a group, innermost first, a line each, as the Info shows them. */
static QString ksu_group_frames(const struct ksu_group *g)
{
	struct ustack_info info = {};
	char *text;
	QString s;

	info.state = g->state;
	info.lost = g->lost;
	info.stack = g->stack;
	text = ksu_info_text(&info, g->first->cpu);
	s = QString(text ? text : "").trimmed();
	free(text);
	return s.replace(QRegularExpression("^\\s*=> ", QRegularExpression::MultilineOption), "");
}

static QString ksu_task_name(const struct kshark_entry *e, int pid)
{
	char *comm = kshark_comm_from_pid(e->stream_id, pid);
	QString s = QString("%1-%2").arg(comm ? comm : "<...>").arg(pid);

	free(comm);
	return s;
}

/**
 * KsuStacksDialog::KsuStacksDialog - the dialog on some entries
 * @range: the entries, the visible range and the markers
 * @pid: the task shown first; -1 for every task
 * @parent: its parent window
 */
KsuStacksDialog::KsuStacksDialog(const KsuRange &range, int pid, QWidget *parent)
: QDialog(parent), _range(range), _groups()
{
	QVBoxLayout *layout = new QVBoxLayout(this);
	QHBoxLayout *top = new QHBoxLayout;
	QHBoxLayout *buttons = new QHBoxLayout;
	QPushButton *exportButton = new QPushButton("Export folded...", this);
	QPushButton *copy = new QPushButton("Copy folded", this);
	QPushButton *close = new QPushButton("Close", this);

	setWindowTitle("User stacks");
	setObjectName("ksu_stacks_dialog");
	_task = new QComboBox(this);
	_span = new QComboBox(this);
	_span->addItem("Visible range", KSU_SPAN_VISIBLE);
	_span->addItem("Between markers A and B", KSU_SPAN_MARKERS);
	_span->addItem("Whole trace", KSU_SPAN_ALL);
	if (!_range.haveMarkers)
		_span->setItemData(KSU_SPAN_MARKERS, 0, Qt::UserRole - 1);	/* disabled */
	top->addWidget(new QLabel("Task:", this));
	top->addWidget(_task, 1);
	top->addWidget(new QLabel("Range:", this));
	top->addWidget(_span);
	layout->addLayout(top);
	/* markers that cannot be read are said, not taken for markers not set */
	if (!_range.markersProblem.isEmpty()) {
		QLabel *problem = new QLabel("Markers A and B cannot be used: " +
					     _range.markersProblem, this);

		problem->setObjectName("ksu_markers_problem");
		problem->setWordWrap(true);
		problem->setStyleSheet("QLabel { color: #b00000; }");
		layout->addWidget(problem);
		_span->setItemData(KSU_SPAN_MARKERS, "Markers A and B cannot be read: " +
				   _range.markersProblem, Qt::ToolTipRole);
	}

	_table = new QTableWidget(0, 3, this);
	_table->setObjectName("ksu_stacks_table");
	_table->setHorizontalHeaderLabels({ "Count", "Task", "Stack (innermost first)" });
	_table->horizontalHeader()->setStretchLastSection(true);
	_table->verticalHeader()->setVisible(false);
	_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
	_table->setWordWrap(false);
	layout->addWidget(_table, 1);

	_summary = new QLabel(this);
	layout->addWidget(_summary);
	buttons->addStretch();
	buttons->addWidget(exportButton);
	buttons->addWidget(copy);
	buttons->addWidget(close);
	layout->addLayout(buttons);

	_fillTasks(pid);
	connect(_task, QOverload<int>::of(&QComboBox::currentIndexChanged),
		[this](int) { refresh(); });
	connect(_span, QOverload<int>::of(&QComboBox::currentIndexChanged),
		[this](int) { refresh(); });
	connect(exportButton, &QPushButton::clicked, [this]() {
		QString path = QFileDialog::getSaveFileName(this, "Export folded stacks",
							    "stacks.folded",
							    "Folded stacks (*.folded *.txt)");
		if (!path.isEmpty())
			exportFolded(path);
	});
	connect(copy, &QPushButton::clicked, [this]() {
		QApplication::clipboard()->setText(folded());
	});
	connect(close, &QPushButton::clicked, this, &QDialog::close);
	resize(900, 480);
	refresh();
}

KsuStacksDialog::~KsuStacksDialog()
{
	ksu_groups_free(&_groups);
}

/* The tasks with a user stack (or a lost one) in the whole trace. */
void KsuStacksDialog::_fillTasks(int pid)
{
	struct ksu_groups all;
	std::set<int> pids;
	int select = 0;

	_task->addItem("All tasks", -1);
	if (ksu_group_entries(_range.rows, _range.n, INT64_MIN, INT64_MAX, -1, &all) == 0) {
		for (size_t i = 0; i < all.nr; i++) {
			if (pids.insert(all.groups[i].pid).second) {
				_task->addItem(ksu_task_name(all.groups[i].first, all.groups[i].pid),
					       all.groups[i].pid);
				if (all.groups[i].pid == pid)
					select = _task->count() - 1;
			}
		}
		ksu_groups_free(&all);
	}
	_task->setCurrentIndex(select);
}

/**
 * KsuStacksDialog::refresh - group the stacks again for the task and range chosen
 */
void KsuStacksDialog::refresh()
{
	int pid = _task->currentData().toInt();
	int64_t min = INT64_MIN, max = INT64_MAX;
	QString what = "the whole trace";

	switch (_span->currentData().toInt()) {
	case KSU_SPAN_VISIBLE:
		min = _range.visMin;
		max = _range.visMax;
		what = "the visible range";
		break;
	case KSU_SPAN_MARKERS:
		/* the labels say microseconds */
		min = _range.markA - 500;
		max = _range.markB + 499;
		what = "markers A and B";
		break;
	}
	ksu_groups_free(&_groups);
	if (ksu_group_entries(_range.rows, _range.n, min, max, pid, &_groups))
		_summary->setText("Out of memory");
	_table->setRowCount(_groups.nr);
	for (size_t i = 0; i < _groups.nr; i++) {
		const struct ksu_group *g = &_groups.groups[i];
		QTableWidgetItem *count = new QTableWidgetItem(QString::number(g->count));

		count->setTextAlignment(Qt::AlignRight | Qt::AlignTop);
		_table->setItem(i, 0, count);
		_table->setItem(i, 1, new QTableWidgetItem(ksu_task_name(g->first, g->pid)));
		_table->setItem(i, 2, new QTableWidgetItem(ksu_group_frames(g)));
	}
	_table->resizeColumnsToContents();
	_table->resizeRowsToContents();
	_summary->setText(QString("%1 events with a user stack or a lost one, %2 different, in %3")
			  .arg(_groups.events).arg(_groups.nr).arg(what));
	ksu_log("dialog: task %d, %s: %zu events, %zu groups", pid, qPrintable(what),
		_groups.events, _groups.nr);
}

/**
 * KsuStacksDialog::dump - the table as text, a line per row
 *
 * Return: "count<TAB>task<TAB>frame | frame | ..." lines.
 */
QString KsuStacksDialog::dump() const
{
	QString out;

	for (int r = 0; r < _table->rowCount(); r++) {
		out += _table->item(r, 0)->text() + "\t" + _table->item(r, 1)->text() + "\t" +
		       _table->item(r, 2)->text().replace("\n", " | ") + "\n";
	}
	return out;
}

/**
 * KsuStacksDialog::folded - the groups shown, as folded stacks
 */
QString KsuStacksDialog::folded() const
{
	char *text = ksu_groups_folded(&_groups);
	QString s(text ? text : "");

	free(text);
	return s;
}

/**
 * KsuStacksDialog::exportFolded - write the folded stacks to a file
 * @path: the file
 *
 * Return: true when written.
 */
bool KsuStacksDialog::exportFolded(const QString &path) const
{
	QFile f(path);
	QByteArray data = folded().toUtf8();
	bool ok;

	ok = f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
	ksu_log("export %s: %s", qPrintable(path), ok ? "written" : "failed");
	return ok;
}

/* The task of the entry nearest marker A (or of the first visible one with a stack). */
static int ksu_default_pid(const KsuRange &r, bool haveA, int64_t a)
{
	const struct ustack_info *info;
	size_t i;

	for (i = 0; i < r.n; i++) {
		if (haveA ? r.rows[i]->ts >= a - 500 : r.rows[i]->ts >= r.visMin)
			break;
	}
	for (; i < r.n && (haveA || r.rows[i]->ts <= r.visMax); i++) {
		info = ksu_lookup(r.rows[i]);
		if (haveA || (info && info->state != USTACK_STATE_NONE))
			return r.rows[i]->pid;
	}
	return -1;
}

/**
 * ksu_dialog_open - open the dialog on what KernelShark shows
 * @w: KernelShark's main window
 */
void ksu_dialog_open(QMainWindow *w)
{
	struct kshark_trace_histo *h = ksu_last_histo;
	const char *exportPath = getenv("USTACK_KSHARK_EXPORT");
	KsuStacksDialog *d;
	KsuMarkers markers;
	KsuRange r;

	if (!h || !h->data) {
		ksu_log("dialog: no data drawn yet");
		return;
	}
	r.rows = h->data;
	r.n = h->data_size;
	r.visMin = h->min;
	r.visMax = h->max;
	markers = ksu_markers(w);
	r.haveMarkers = markers.haveA && markers.haveB;
	r.markA = markers.a;
	r.markB = markers.b;
	r.markersProblem = markers.problem;
	if (!markers.problem.isEmpty())
		ksu_log("dialog: markers cannot be read: %s", qPrintable(markers.problem));
	else
		ksu_log("dialog: markers: A %s, B %s",
			markers.haveA ? qPrintable(QString::number(markers.a)) : "not set",
			markers.haveB ? qPrintable(QString::number(markers.b)) : "not set");
	d = new KsuStacksDialog(r, ksu_default_pid(r, r.haveMarkers, r.markA), w);
	d->setAttribute(Qt::WA_DeleteOnClose);
	d->show();
	ksu_log("dialog shown: %d rows", (int)d->findChild<QTableWidget *>()->rowCount());
	if (exportPath && *exportPath)
		d->exportFolded(exportPath);
}
