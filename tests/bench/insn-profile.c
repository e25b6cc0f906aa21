// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin for make bench (tests/bench/profile.sh)
 * that counts the guest instructions each translation block executes.
 * Each time the block at the trigger address runs, the counts so far go to
 * OUT.N (N = 0, 1, ...), a line per block that ran: "vaddr insns runs".
 * The guest brackets what it measures with calls into the trigger (a
 * kernel function nothing else calls); the difference of two snapshots,
 * over the kernel's symbols, is where the instructions in between went.
 *
 *   qemu-system-x86_64 ... -plugin insn-profile.so,arg=TRIGGER_HEX,arg=OUT
 *
 * Debian 12 ships QEMU 7.2 without its plugin header: the few functions of
 * its plugin API (version 1) used here are declared below. Run QEMU with
 * one TCG thread (-accel tcg,thread=single): the counts are not atomic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef void (*ip_tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*ip_vcpu_udata_cb)(unsigned int vcpu, void *udata);

/* enum qemu_plugin_op and enum qemu_plugin_cb_flags of API version 1 */
#define IP_INLINE_ADD_U64	0
#define IP_CB_NO_REGS		0

#define IP_EXPORT __attribute__((visibility("default")))

IP_EXPORT int qemu_plugin_version = 1;

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, ip_tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, ip_vcpu_udata_cb cb,
					  int flags, void *udata);

/* One translation of a block: a block translated again gets another. */
struct ip_block {
	uint64_t	vaddr;
	uint64_t	insns;
	uint64_t	runs;
};

struct ip_chunk {
	struct ip_chunk	*next;
	unsigned int	nr;
	struct ip_block	blocks[4096];
};

static struct ip_chunk *ip_chunks;
static uint64_t ip_trigger;
static char *ip_out;
static int ip_snapshot;
static int ip_lost;

static void ip_dump(unsigned int vcpu, void *udata)
{
	struct ip_chunk *c;
	char name[4096];
	unsigned int i;
	FILE *f;

	snprintf(name, sizeof(name), "%s.%d", ip_out, ip_snapshot++);
	f = fopen(name, "w");
	if (!f)
		return;
	if (ip_lost)
		fprintf(f, "# %d blocks not counted (no memory)\n", ip_lost);
	for (c = ip_chunks; c; c = c->next) {
		for (i = 0; i < c->nr; i++) {
			struct ip_block *b = &c->blocks[i];

			if (b->runs)
				fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					b->vaddr, b->insns, b->runs);
		}
	}
	fclose(f);
}

static struct ip_block *ip_block_new(void)
{
	struct ip_chunk *c = ip_chunks;

	if (!c || c->nr == sizeof(c->blocks) / sizeof(c->blocks[0])) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->next = ip_chunks;
		ip_chunks = c;
	}
	return &c->blocks[c->nr++];
}

static void ip_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct ip_block *b = ip_block_new();

	if (!b) {
		ip_lost++;
		return;
	}
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, IP_INLINE_ADD_U64, &b->runs, 1);
	if (b->vaddr == ip_trigger)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, ip_dump, IP_CB_NO_REGS, NULL);
}

/* QEMU 7.2 hands "arg=X" over as "X=on" (the boolean of an option "X"). */
static char *ip_arg(const char *arg)
{
	size_t len = strlen(arg);

	if (len > 3 && !strcmp(arg + len - 3, "=on"))
		len -= 3;
	return strndup(arg, len);
}

IP_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	char *trigger, *end;

	if (argc != 2) {
		fprintf(stderr, "insn-profile: arg=TRIGGER_HEX,arg=OUT\n");
		return -1;
	}
	trigger = ip_arg(argv[0]);
	ip_out = ip_arg(argv[1]);
	if (!trigger || !ip_out)
		return -1;
	ip_trigger = strtoull(trigger, &end, 16);
	if (end == trigger || *end) {
		fprintf(stderr, "insn-profile: bad trigger address '%s'\n", trigger);
		free(trigger);
		return -1;
	}
	free(trigger);
	qemu_plugin_register_vcpu_tb_trans_cb(id, ip_translate);
	return 0;
}
