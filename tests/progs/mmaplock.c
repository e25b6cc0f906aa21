// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-mmaplock: a process that holds its own mmap_lock for as long as
 * it likes, as any user can (review 2026-11-28, N2), for
 * tests/guest/deferred-mmaplock.sh.
 *
 *   ustack-mmaplock MNT CPU
 *
 * It mounts a FUSE file system of its own at MNT (a file "f" of one page)
 * whose daemon, a thread of this program, never answers a read. Then:
 *  1. the main thread, on CPU, makes 3 getppid calls (the traced walks of
 *     this mm look at its mappings once);
 *  2. it maps f: the mapping changed, so no per-CPU cache of the tracer
 *     knows this mm's mappings any more;
 *  3. thread A reads f's page through /proc/self/mem: the read faults the
 *     page in with mmap_lock held for reading, and waits for the daemon;
 *  4. thread B maps anonymous memory: it waits for mmap_lock as a writer,
 *     so that no reader gets it from now on ("locked" is printed once B
 *     sleeps);
 *  5. thread C, on CPU, makes 5 getppid calls ("C done" when they
 *     returned): each return to user space gets the tracer's callback,
 *     which must not wait for mmap_lock;
 *  6. on a line on stdin (or its end) the daemon answers the read and
 *     everything goes on; "released" and "done" are printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ML_BUF	(FUSE_MIN_READ_BUFFER + 65536)

static int ml_fuse = -1;
static int ml_cpu;
static char *ml_page;
static pthread_mutex_t ml_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ml_cond = PTHREAD_COND_INITIALIZER;
static uint64_t ml_read_unique;	/* the read left unanswered, 0: none yet */
static pid_t ml_b_tid;
/* which of the threads A, B, C may start (bits 0, 1, 2) */
static unsigned int ml_go;

/*
 * Once the lock is held, nothing here may map memory: a thread's stack,
 * a malloc() arena or stdio's buffer would wait for mmap_lock too. The
 * threads are made before, and print with write().
 */
static void ml_say(const char *fmt, long v)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), fmt, v);

	if (write(1, buf, n) < 0)
		exit(1);
}

static void ml_wait_go(unsigned int bit)
{
	pthread_mutex_lock(&ml_lock);
	while (!(ml_go & bit))
		pthread_cond_wait(&ml_cond, &ml_lock);
	pthread_mutex_unlock(&ml_lock);
}

static void ml_set_go(unsigned int bit)
{
	pthread_mutex_lock(&ml_lock);
	ml_go |= bit;
	pthread_cond_broadcast(&ml_cond);
	pthread_mutex_unlock(&ml_lock);
}

static void ml_die(const char *what)
{
	fprintf(stderr, "ustack-mmaplock: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void ml_pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(ml_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ml_die("sched_setaffinity");
}

/* Answer request @unique with @len bytes of @data, or with -@error. */
static void ml_reply(uint64_t unique, int error, const void *data, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 4096];
	struct fuse_out_header *out = (void *)buf;

	if (len > sizeof(buf) - sizeof(*out))
		len = 0;
	out->len = sizeof(*out) + (error ? 0 : len);
	out->error = -error;
	out->unique = unique;
	if (!error && len)
		memcpy(buf + sizeof(*out), data, len);
	if (write(ml_fuse, buf, out->len) < 0 && errno != ENOENT)
		ml_die("write /dev/fuse");
}

static void ml_attr(uint64_t nodeid, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = nodeid;
	a->blksize = 4096;
	if (nodeid == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->nlink = 1;
		a->size = 4096;
		a->blocks = 8;
	}
}

static void ml_request(const struct fuse_in_header *in, const void *arg)
{
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} o;
	const struct fuse_init_in *init = arg;

	memset(&o, 0, sizeof(o));
	switch (in->opcode) {
	case FUSE_INIT:
		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = FUSE_KERNEL_MINOR_VERSION;
		o.init.max_readahead = init->max_readahead;
		o.init.max_write = 4096;
		ml_reply(in->unique, 0, &o.init, sizeof(o.init));
		break;
	case FUSE_LOOKUP:
		if (strcmp(arg, "f")) {
			ml_reply(in->unique, ENOENT, NULL, 0);
			break;
		}
		o.entry.nodeid = 2;
		o.entry.generation = 1;
		o.entry.entry_valid = 3600;
		o.entry.attr_valid = 3600;
		ml_attr(2, &o.entry.attr);
		ml_reply(in->unique, 0, &o.entry, sizeof(o.entry));
		break;
	case FUSE_GETATTR:
		o.attr.attr_valid = 3600;
		ml_attr(in->nodeid, &o.attr.attr);
		ml_reply(in->unique, 0, &o.attr, sizeof(o.attr));
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		o.open.fh = 1;
		ml_reply(in->unique, 0, &o.open, sizeof(o.open));
		break;
	case FUSE_READ:
		/* never answered until released: the reader waits */
		pthread_mutex_lock(&ml_lock);
		ml_read_unique = in->unique;
		pthread_cond_broadcast(&ml_cond);
		pthread_mutex_unlock(&ml_lock);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		ml_reply(in->unique, 0, NULL, 0);
		break;
	default:
		ml_reply(in->unique, ENOSYS, NULL, 0);
		break;
	}
}

static void *ml_daemon(void *unused)
{
	char *buf = malloc(ML_BUF);
	ssize_t n;

	if (!buf)
		ml_die("malloc");
	for (;;) {
		n = read(ml_fuse, buf, ML_BUF);
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			break;	/* unmounted */
		ml_request((void *)buf, buf + sizeof(struct fuse_in_header));
	}
	free(buf);
	return NULL;
}

/* A: reads the page through /proc/self/mem, holding mmap_lock for reading */
static void *ml_reader(void *unused)
{
	char word[16];
	int fd = open("/proc/self/mem", O_RDONLY);

	if (fd < 0)
		ml_die("/proc/self/mem");
	ml_wait_go(1);
	if (pread(fd, word, sizeof(word), (off_t)(uintptr_t)ml_page) < 0)
		fprintf(stderr, "ustack-mmaplock: pread: %s\n", strerror(errno));
	close(fd);
	return NULL;
}

/* B: waits for mmap_lock as a writer */
static void *ml_writer(void *unused)
{
	ml_b_tid = syscall(SYS_gettid);
	ml_wait_go(2);
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		ml_die("mmap (B)");
	return NULL;
}

/* C: traced system calls while nobody can take mmap_lock */
static void *ml_caller(void *unused)
{
	int i;

	ml_pin();
	ml_wait_go(4);
	ml_say("C tid %ld\n", syscall(SYS_gettid));
	for (i = 0; i < 5; i++)
		syscall(SYS_getppid);
	ml_say("C done%.0ld\n", 0);
	return NULL;
}

/* Is thread @tid asleep in the kernel (state D)? */
static int ml_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'D';
}

int main(int argc, char **argv)
{
	pthread_t daemon, a, b, c;
	char opts[128], path[4096], line[16];
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: ustack-mmaplock MNT CPU\n");
		return 2;
	}
	ml_cpu = atoi(argv[2]);
	ml_pin();
	for (i = 0; i < 3; i++)
		syscall(SYS_getppid);

	ml_fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (ml_fuse < 0) {
		printf("no /dev/fuse: %s\n", strerror(errno));
		return 77;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", ml_fuse);
	if (mount("ustack-mmaplock", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts))
		ml_die("mount");
	if (pthread_create(&daemon, NULL, ml_daemon, NULL))
		ml_die("pthread_create");
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		ml_die(path);
	ml_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ml_page == MAP_FAILED)
		ml_die("mmap f");
	close(fd);

	if (pthread_create(&a, NULL, ml_reader, NULL) ||
	    pthread_create(&b, NULL, ml_writer, NULL) ||
	    pthread_create(&c, NULL, ml_caller, NULL))
		ml_die("pthread_create");
	ml_set_go(1);
	pthread_mutex_lock(&ml_lock);
	while (!ml_read_unique)
		pthread_cond_wait(&ml_cond, &ml_lock);
	pthread_mutex_unlock(&ml_lock);
	ml_set_go(2);
	for (i = 0; i < 200 && !(ml_b_tid && ml_sleeping(ml_b_tid)); i++)
		usleep(10000);
	ml_say(i < 200 ? "locked\n%.0ld" : "locked (B is not seen asleep)\n%.0ld", 0);
	ml_set_go(4);

	/* released on a line, or at the end of stdin */
	if (read(0, line, sizeof(line)) < 0)
		line[0] = 0;
	{
		static char zeros[4096];

		ml_reply(ml_read_unique, 0, zeros, sizeof(zeros));
	}
	ml_say("released\n%.0ld", 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	munmap(ml_page, 4096);
	umount2(argv[1], MNT_DETACH);
	printf("done\n");
	return 0;
}
