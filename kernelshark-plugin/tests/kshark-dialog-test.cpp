// SPDX-License-Identifier: GPL-2.0
/*
 * kshark-dialog-test: the plugin's windows, rendered without a display
 * (QT_QPA_PLATFORM=offscreen), on entries loaded by libkshark.
 *
 *   kshark-dialog-test OUTDIR MULTI.dat SAMPLE.dat
 *
 * Writes to OUTDIR: dialog-all.png/.txt (every task, whole trace),
 * dialog-visible.png/.txt (the task of the first getppid event, visible
 * range = the first half of the trace), stack.png/.txt (the stack window of
 * the first sys_enter_getppid), folded.txt (the export). The .txt files are
 * the dialog's own table dumped a row per line, what tests/host/kshark-dialog.sh
 * checks; the PNGs are what a person sees.
 */
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QTextStream>

#include <libkshark-tepdata.h>

#include "../ks-gui.hpp"

extern "C" int kshark_data_plugin_initializer(struct kshark_data_stream *stream);
extern "C" int kshark_data_plugin_deinitializer(struct kshark_data_stream *stream);

static bool save(const QString &path, const QString &text)
{
	QFile f(path);

	if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
		return false;
	QTextStream(&f) << text;
	return true;
}

static bool shot(QWidget *w, const QString &path)
{
	w->show();
	QApplication::processEvents();
	return w->grab().save(path, "PNG");
}

int main(int argc, char **argv)
{
	struct kshark_context *ctx = nullptr;
	struct kshark_entry **rows = nullptr;
	const struct kshark_entry *first = nullptr;
	int *ids, sd, i;
	ssize_t n, j;

	if (argc != 4) {
		fprintf(stderr, "usage: kshark-dialog-test OUTDIR MULTI.dat SAMPLE.dat\n");
		return 2;
	}
	QApplication app(argc, argv);
	QString out(argv[1]);

	if (!kshark_instance(&ctx))
		return 2;
	for (i = 2; i < 4; i++) {
		sd = kshark_open(ctx, argv[i]);
		if (sd < 0)
			return 2;
		kshark_tep_init_all_buffers(ctx, sd);
	}
	ids = kshark_all_streams(ctx);
	for (i = 0; i < ctx->n_streams; i++)
		kshark_data_plugin_initializer(kshark_get_data_stream(ctx, ids[i]));
	n = kshark_load_all_entries(ctx, &rows);
	if (n <= 0)
		return 2;
	for (j = 0; j < n && !first; j++) {
		char *name = kshark_get_event_name(rows[j]);

		if (name && !strcmp(name, "syscalls/sys_enter_getppid") && ksu_lookup(rows[j]) &&
		    ksu_lookup(rows[j])->state == USTACK_STATE_STACK)
			first = rows[j];
		free(name);
	}
	if (!first)
		return 2;

	KsuRange r;
	r.rows = rows;
	r.n = n;
	r.visMin = rows[0]->ts;
	r.visMax = rows[0]->ts + (rows[n - 1]->ts - rows[0]->ts) / 2;
	r.haveMarkers = true;
	r.markA = rows[0]->ts;
	r.markB = rows[n - 1]->ts;

	KsuStacksDialog all(r, -1);
	/* the whole trace: the range box's last item */
	for (QComboBox *c : all.findChildren<QComboBox *>()) {
		if (c->count() == 3)
			c->setCurrentIndex(2);
	}
	save(out + "/dialog-all.txt", all.dump());
	shot(&all, out + "/dialog-all.png");
	all.exportFolded(out + "/folded.txt");

	KsuStacksDialog visible(r, first->pid);
	save(out + "/dialog-visible.txt", visible.dump());
	shot(&visible, out + "/dialog-visible.png");

	QWidget *win = ksu_stack_window_open(first, nullptr);
	save(out + "/stack.txt", win->findChild<QPlainTextEdit *>()->toPlainText());
	shot(win, out + "/stack.png");
	win->close();
	QApplication::processEvents();

	for (i = 0; i < ctx->n_streams; i++)
		kshark_data_plugin_deinitializer(kshark_get_data_stream(ctx, ids[i]));
	free(rows);
	free(ids);
	kshark_free(ctx);
	return 0;
}
