// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph drawn: an SVG with a rectangle per node of the tree, as
 * wide as its count, the root at the bottom, each with its name (cut to
 * fit) and a tooltip with its count and share, and the script of flame.js
 * (zoom on click). As an HTML page, the SVG comes inline with a search box
 * and a reset button; nothing is loaded from elsewhere.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "flame.h"

#define FLAME_PAD	10	/* pixels left and right of the graph */
#define FLAME_TOP	34	/* the title's band */
#define FLAME_BOTTOM	30	/* the details line's band */
#define FLAME_ROW	16	/* a frame's height, with its gap */
#define FLAME_FONT	11	/* pixels */
#define FLAME_CHAR	6.7	/* the width of a character of that font, about */

struct flame_draw {
	FILE			*out;
	const struct flame_tree	*tree;
	double			scale;		/* pixels per count */
	unsigned int		width;
	unsigned int		height;
};

/* The suffix flamegraph.pl and perf's stackcollapse give kernel frames */
static bool flame_is_kernel(const struct flame_node *node)
{
	return node->name_len >= 4 && !memcmp(node->name + node->name_len - 4, "_[k]", 4);
}

/*
 * A colour of the name itself, so a function has the same colour wherever
 * it is and in every graph: user frames red to yellow, kernel frames blue,
 * frames named only by their file ("[libc.so.6]", "[unknown]") grey.
 */
static void flame_colour(const struct flame_node *node, char *buf, size_t size)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < node->name_len; i++)
		h = (h ^ (unsigned char)node->name[i]) * 16777619u;
	if (!node->depth)
		snprintf(buf, size, "hsl(0,0%%,80%%)");
	else if (flame_is_kernel(node))
		snprintf(buf, size, "hsl(%u,60%%,%u%%)", 195 + h % 30, 62 + (h >> 8) % 14);
	else if (node->name[0] == '[')
		snprintf(buf, size, "hsl(40,%u%%,%u%%)", 5 + h % 10, 72 + (h >> 8) % 10);
	else
		snprintf(buf, size, "hsl(%u,%u%%,%u%%)", h % 55, 70 + (h >> 8) % 20,
			 55 + (h >> 16) % 12);
}

/* The name as it fits in @width pixels: whole, cut with "..", or not at all. */
static void flame_label(FILE *out, const struct flame_node *node, double width)
{
	double room = (width - 6) / FLAME_CHAR;
	size_t max = room > 0 ? (size_t)room : 0, bytes;

	if (max < 3)
		return;
	if (flame_utf8_chars(node->name, node->name_len, max, &bytes) <= max) {
		flame_put_xml(out, node->name, node->name_len);
		return;
	}
	flame_utf8_chars(node->name, node->name_len, max - 2, &bytes);
	flame_put_xml(out, node->name, bytes);
	fputs("..", out);
}

static int flame_draw_node(const struct flame_node *node, void *context)
{
	struct flame_draw *d = context;
	unsigned int max_depth = d->tree->max_depth;
	double x = FLAME_PAD + node->start * d->scale;
	double w = node->count * d->scale;
	unsigned int y = FLAME_TOP + (max_depth - node->depth) * FLAME_ROW;
	char colour[48];

	flame_colour(node, colour, sizeof(colour));
	fputs("<g class=\"f\" data-n=\"", d->out);
	flame_put_xml(d->out, node->name, node->name_len);
	fprintf(d->out, "\" data-s=\"%llu\" data-c=\"%llu\" data-d=\"%u\"><title>",
		node->start, node->count, node->depth);
	flame_put_xml(d->out, node->name, node->name_len);
	fprintf(d->out, " (%llu events, %.2f%%)</title>", node->count,
		100.0 * node->count / d->tree->root.count);
	fprintf(d->out, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"%s\"/>",
		x, y, w > 1 ? w - 0.5 : w, FLAME_ROW - 1, colour);
	fprintf(d->out, "<text x=\"%.2f\" y=\"%u\">", x + 3, y + FLAME_ROW - 4);
	flame_label(d->out, node, w);
	fputs("</text></g>\n", d->out);
	return 0;
}

static void flame_svg_open(FILE *out, const struct flame_draw *d, const char *title)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"flame\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-x0=\"%u\" data-gw=\"%u\" "
		"data-cw=\"%.2f\" data-total=\"%llu\">\n", d->width, d->height, d->width,
		d->height, FLAME_PAD, d->width - 2 * FLAME_PAD, FLAME_CHAR,
		d->tree->root.count);
	fprintf(out, "<style>text{font:%upx 'DejaVu Sans Mono',monospace;fill:#000;"
		"pointer-events:none}rect{stroke:#fff;stroke-width:0.3}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:1}"
		"g.anc rect{opacity:0.6}rect.match{fill:#e040e0}"
		"#title{font:bold 16px sans-serif;text-anchor:middle}</style>\n", FLAME_FONT);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fbfaf6\" "
		"stroke=\"none\"/>\n", d->width, d->height);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"22\">", d->width / 2);
	flame_put_xml(out, title, strlen(title));
	fputs("</text>\n", out);
}

static void flame_html_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
	      out);
	flame_put_xml(out, title, strlen(title));
	fputs("</title>\n<style>\n", out);
	fwrite(flame_css, 1, flame_css_end - flame_css, out);
	fputs("</style>\n</head>\n<body>\n<div id=\"bar\"><button id=\"reset\" type=\"button\" "
	      "disabled>Reset zoom</button> <input id=\"search\" type=\"search\" size=\"40\" "
	      "placeholder=\"Search: a regular expression\"> <span id=\"matched\"></span>"
	      "</div>\n", out);
}

/**
 * flame_write_page - draw the tree as an SVG image or an HTML page
 * @out: where to
 * @tree: the tree, built
 * @page: the title, the width, and whether to write a page
 *
 * Every rectangle is written, also those too narrow to see: zooming in
 * shows them. Names are escaped (flame_put_xml()).
 *
 * Return: 0; -1 with errno EINVAL (an empty tree: no samples) or the error of
 * writing (flame_write_error()).
 */
int flame_write_page(FILE *out, const struct flame_tree *tree, const struct flame_page *page)
{
	struct flame_draw d = { .out = out, .tree = tree };

	if (!tree->root.count) {
		errno = EINVAL;
		return -1;
	}
	d.width = page->width;
	d.height = FLAME_TOP + (tree->max_depth + 1) * FLAME_ROW + FLAME_BOTTOM;
	d.scale = (double)(d.width - 2 * FLAME_PAD) / tree->root.count;

	if (page->html)
		flame_html_head(out, page->title);
	else
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	flame_svg_open(out, &d, page->title);
	flame_tree_walk(tree, flame_draw_node, &d);
	fprintf(out, "<text id=\"details\" x=\"%u\" y=\"%u\">%llu events; click a frame to "
		"zoom in</text>\n", FLAME_PAD, d.height - 10, tree->root.count);
	if (!page->html) {
		/* flame.js holds no "]]>" (the Makefile checks) */
		fputs("<script type=\"text/javascript\"><![CDATA[\n", out);
		fwrite(flame_js, 1, flame_js_end - flame_js, out);
		fputs("]]></script>\n</svg>\n", out);
	} else {
		fputs("</svg>\n<script>\n", out);
		fwrite(flame_js, 1, flame_js_end - flame_js, out);
		fputs("</script>\n</body>\n</html>\n", out);
	}
	if (ferror(out))
		return flame_write_error(out);
	return 0;
}
