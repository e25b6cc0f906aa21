// SPDX-License-Identifier: GPL-2.0
/*
 * The folded lines as a tree of frames: a node per distinct path from the
 * root, with the count of every line through it. Siblings are in name
 * order, as flame graphs draw them (the x axis is not time), and each node
 * gets its left edge and depth for drawing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

/*
 * Deeper lines are cut here: the walks recurse, and a hostile file could
 * hold a line of a million frames. Real stacks stop far below (the kernel
 * records a few hundred frames at most).
 */
#define FLAME_DEPTH_MAX		1024

/*
 * The child of @parent named @name, made when it is not there yet. The lines
 * come in frame order (flame_frames_cmp()), so a child that is there is the
 * one made last: no search, however many children a frame has.
 */
static struct flame_node *flame_node_child(struct flame_node *parent, const char *name,
					   size_t len)
{
	struct flame_node *node, **children;
	unsigned int n = parent->nr_children;

	if (n) {
		node = parent->children[n - 1];
		if (node->name_len == len && !memcmp(node->name, name, len))
			return node;
	}
	node = calloc(1, sizeof(*node));
	if (!node)
		return NULL;
	if (!(n & (n - 1))) {
		children = realloc(parent->children, (n ? 2 * n : 1) * sizeof(*children));
		if (!children) {
			free(node);
			return NULL;
		}
		parent->children = children;
	}
	node->name = name;
	node->name_len = len;
	node->depth = parent->depth + 1;
	parent->children[parent->nr_children++] = node;
	return node;
}

/* One line: a node per frame, each counted. */
static int flame_tree_add(struct flame_tree *tree, const struct flame_line *line)
{
	struct flame_node *node = &tree->root;
	const char *name = line->text, *end;

	tree->root.count += line->count;
	while (node->depth < FLAME_DEPTH_MAX) {
		end = strchr(name, ';');
		node = flame_node_child(node, name, end ? (size_t)(end - name) : strlen(name));
		if (!node)
			return -1;
		node->count += line->count;
		if (node->depth > tree->max_depth)
			tree->max_depth = node->depth;
		if (!end)
			break;
		name = end + 1;
	}
	return 0;
}

/*
 * Lines in frame order: byte order with the ";" between frames before every
 * byte, so that the lines under a frame come together and its children come
 * in name order ("a;b;c" < "a;b2": the frame "b" before "b2").
 */
static int flame_frames_cmp(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)(*(const struct flame_line * const *)a)->text;
	const unsigned char *y = (const unsigned char *)(*(const struct flame_line * const *)b)->text;
	unsigned int cx, cy;

	for (;; x++, y++) {
		cx = *x == ';' ? 1 : *x ? *x + 1u : 0;
		cy = *y == ';' ? 1 : *y ? *y + 1u : 0;
		if (cx != cy || !cx)
			return (int)cx - (int)cy;
	}
}

/* Each node's left edge: its siblings before it, in name order. */
static size_t flame_node_place(struct flame_node *node)
{
	unsigned long long start = node->start;
	size_t nodes = node->nr_children;
	unsigned int i;

	for (i = 0; i < node->nr_children; i++) {
		node->children[i]->start = start;
		start += node->children[i]->count;
		nodes += flame_node_place(node->children[i]);
	}
	return nodes;
}

/**
 * flame_tree_build - the tree of a table of folded lines
 * @tree: the tree to fill
 * @fc: the table; it must outlive @tree (the names point into its lines)
 *
 * Return: 0; -1 with errno ENOMEM (@tree is then freed).
 */
int flame_tree_build(struct flame_tree *tree, const struct flame_counts *fc)
{
	struct flame_line **lines;
	size_t i;

	memset(tree, 0, sizeof(*tree));
	tree->root.name = "all";
	tree->root.name_len = 3;
	lines = flame_counts_sorted(fc);
	if (!lines)
		return -1;
	qsort(lines, fc->nr, sizeof(*lines), flame_frames_cmp);
	for (i = 0; i < fc->nr; i++) {
		if (flame_tree_add(tree, lines[i])) {
			free(lines);
			flame_tree_free(tree);
			errno = ENOMEM;
			return -1;
		}
	}
	free(lines);
	tree->nr_nodes = flame_node_place(&tree->root);
	return 0;
}

static void flame_node_free(struct flame_node *node)
{
	unsigned int i;

	for (i = 0; i < node->nr_children; i++) {
		flame_node_free(node->children[i]);
		free(node->children[i]);
	}
	free(node->children);
}

/**
 * flame_tree_free - free the nodes of a tree
 * @tree: the tree; zeroed
 */
void flame_tree_free(struct flame_tree *tree)
{
	flame_node_free(&tree->root);
	memset(tree, 0, sizeof(*tree));
}

static int flame_node_walk(const struct flame_node *node, flame_node_func func, void *context)
{
	unsigned int i;
	int ret = func(node, context);

	for (i = 0; !ret && i < node->nr_children; i++)
		ret = flame_node_walk(node->children[i], func, context);
	return ret;
}

/**
 * flame_tree_walk - call a function for every node, parents first
 * @tree: the tree
 * @func: called for the root, then each node before its children, siblings
 *	in name order; a non-zero return stops the walk
 * @context: passed to @func
 *
 * Return: 0, or what @func returned to stop.
 */
int flame_tree_walk(const struct flame_tree *tree, flame_node_func func, void *context)
{
	return flame_node_walk(&tree->root, func, context);
}
