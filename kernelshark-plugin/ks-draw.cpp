// SPDX-License-Identifier: LGPL-2.1
/*
 * Marks on the CPU and task graphs: a blue triangle over the events that
 * have a user stack, a red one over those whose stack was lost (or is not
 * known: events were dropped). One mark of a kind per bin. Double-clicking
 * a mark opens the whole stack of its event in a window (ks-stack-window.cpp).
 *
 * As KernelShark's own missed_events plugin does, nothing is drawn when
 * more than KSU_DRAW_MAX entries are visible: zoom in to see the marks.
 */
#include <cmath>
#include <vector>

#include <cstdlib>

#include <KsPlugins.hpp>
#include <KsPlotTools.hpp>
#include <QMainWindow>

#include "ks-gui.hpp"

#define KSU_DRAW_MAX	10000

struct kshark_trace_histo *ksu_last_histo;

namespace {

/* A triangle pointing down at its event; a double click opens the stack. */
class KsuMark : public KsPlot::Triangle {
public:
	const struct kshark_entry *_entry = nullptr;

	double distance(int x, int y) const override
	{
		ksplot_point c = center();

		return std::hypot(x - c.x, y - c.y);
	}

private:
	void _doubleClick() const override
	{
		ksu_log("double click: stack window of the event at offset %lld",
			(long long)_entry->offset);
		ksu_stack_window_open(_entry, (QWidget *)ksu_main_window);
	}
};

const KsPlot::Color ksu_color_stack(0x1f, 0x5f, 0xd0);
const KsPlot::Color ksu_color_lost(0xd0, 0x20, 0x20);

size_t ksu_first_at(struct kshark_entry **rows, size_t n, int64_t t)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rows[mid]->ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

KsuMark *ksu_mark(const KsPlot::Graph *graph, int bin, bool lost, const kshark_entry *e)
{
	KsuMark *m = new KsuMark;
	int x = graph->bin(bin)._base.x();
	int top = graph->base() - graph->height();

	/* the lost ones point up from the base, the others down from the top */
	if (lost) {
		m->setPoint(0, x - 4, graph->base());
		m->setPoint(1, x + 4, graph->base());
		m->setPoint(2, x, graph->base() - 7);
	} else {
		m->setPoint(0, x - 4, top);
		m->setPoint(1, x + 4, top);
		m->setPoint(2, x, top + 7);
	}
	m->_color = lost ? ksu_color_lost : ksu_color_stack;
	m->_size = 1.;
	m->_entry = e;
	return m;
}

/*
 * Where a mark is on the screen (the last of its kind drawn on a CPU graph),
 * for a test that double-clicks it: the graphs are drawn in pixels of
 * KernelShark's OpenGL widget. Logged only.
 */
void ksu_log_mark(const KsuMark *m, bool lost, int cpu)
{
	QWidget *gl = nullptr;
	ksplot_point c;
	QPoint p;

	if (!getenv("USTACK_KSHARK_LOG") || !ksu_main_window)
		return;
	/* KernelShark's graph widget; by class name, not to mix Qt's GL headers with KsPlot's */
	for (QWidget *w : ksu_main_window->findChildren<QWidget *>()) {
		if (w->inherits("QOpenGLWidget")) {
			gl = w;
			break;
		}
	}
	if (!gl)
		return;
	c = m->center();
	p = gl->mapToGlobal(QPoint(c.x, c.y));
	ksu_log("mark %s cpu %d at %d,%d offset %lld", lost ? "lost" : "stack", cpu, p.x(), p.y(),
		(long long)m->_entry->offset);
}

} /* namespace */

/**
 * ksu_draw - the draw handler: marks on a CPU or task graph
 * @argv_c: KernelShark's arguments (model, graph, the list of shapes)
 * @sd: the stream of the graph
 * @val: the CPU or the pid of the graph
 * @draw_action: KSHARK_CPU_DRAW or KSHARK_TASK_DRAW (others are not drawn on)
 */
extern "C" void ksu_draw(struct kshark_cpp_argv *argv_c, int sd, int val, int draw_action)
{
	KsCppArgV *argv = KS_ARGV_TO_CPP(argv_c);
	struct kshark_trace_histo *histo = argv->_histo;
	const KsPlot::Graph *graph = argv->_graph;
	int last_bin[2] = { -1, -1 };
	KsuMark *last_mark[2] = { nullptr, nullptr };
	size_t first, end, i, marks = 0;
	const struct ustack_info *info;

	if (!histo || !graph || !ksu_stream_get(sd))
		return;
	ksu_last_histo = histo;
	if (!(draw_action & (KSHARK_CPU_DRAW | KSHARK_TASK_DRAW)) || !histo->data ||
	    histo->bin_size <= 0)
		return;
	first = ksu_first_at(histo->data, histo->data_size, histo->min);
	end = ksu_first_at(histo->data, histo->data_size, histo->max + 1);
	if (end - first > KSU_DRAW_MAX)
		return;
	for (i = first; i < end; i++) {
		const struct kshark_entry *e = histo->data[i];
		int bin, lost;

		if (e->stream_id != sd || e->event_id < 0)
			continue;
		if (draw_action & KSHARK_CPU_DRAW ? e->cpu != val : e->pid != val)
			continue;
		info = ksu_lookup(e);
		if (!info || info->state == USTACK_STATE_NONE)
			continue;
		lost = info->state != USTACK_STATE_STACK;
		bin = (e->ts - histo->min) / histo->bin_size;
		if (bin < 0 || bin >= histo->n_bins || bin == last_bin[lost])
			continue;
		last_bin[lost] = bin;
		argv->_shapes->push_front(ksu_mark(graph, bin, lost, e));
		last_mark[lost] = static_cast<KsuMark *>(argv->_shapes->front());
		marks++;
	}
	if (!marks)
		return;
	ksu_log("draw %s %d: %zu marks", draw_action & KSHARK_CPU_DRAW ? "cpu" : "task", val, marks);
	if (draw_action & KSHARK_CPU_DRAW) {
		for (i = 0; i < 2; i++) {
			if (last_mark[i])
				ksu_log_mark(last_mark[i], i, val);
		}
	}
}
