// SPDX-License-Identifier: LGPL-2.1
/*
 * The frames of a user_unwind_stack entry, and the files they point into.
 *
 * Per frame, innermost first, the kernel writes an unsigned LEB128 tag: bit 0
 * says that a new mapping starts here, the other bits are the zigzag-coded
 * difference between this frame's offset and the previous frame's offset in
 * the same mapping (0 at a new mapping). A new mapping is followed by an
 * unsigned LEB128 file id: a user_unwind_file entry, or 0 when the frame is
 * in no file (its offset is then the address). Bytes after the last frame
 * are padding.
 *
 * Nothing in a record is trusted: a number cut short or longer than 64 bits,
 * a first frame without a mapping, or fewer frames than the entry claims ends
 * the decoding; the stack keeps the frames before the damage and says so
 * (USTACK_STACK_MALFORMED).
 *
 * The files are kept by id as their entries come; a later entry with the
 * same id (the kernel numbers again after a buffer reset) replaces the
 * earlier one, unless it names the same file. A stack holds the files its
 * frames point into, so replacing a file leaves stacks decoded before it as
 * they were.
 *
 * A stack is its cookie and pid, and frames that stacks of entries alike
 * share (ustack-frameset.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

/**
 * ustack_uleb128 - read an unsigned LEB128 number
 * @data: the bytes
 * @size: how many there are
 * @pos: where the number starts; moved past it
 * @val: the number
 *
 * Return: 0; -1 when the number runs past @size or does not fit 64 bits
 * (more than 10 bytes, or a 10th byte above 1).
 */
int ustack_uleb128(const unsigned char *data, size_t size, size_t *pos, unsigned long long *val)
{
	unsigned long long v = 0;
	unsigned int shift = 0;
	size_t p = *pos;
	unsigned char byte;

	do {
		if (p >= size || shift > 63)
			return -1;
		byte = data[p++];
		if (shift == 63 && (byte & 0x7f) > 1)
			return -1;
		v |= (unsigned long long)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	*pos = p;
	*val = v;
	return 0;
}

/*
 * The counts of stacks and of the files they hold are atomic: a caller may
 * hand kept stacks to other threads, which put them while the stitcher's
 * thread decodes new stacks of the same files. Nothing else of a stack
 * changes after decoding, so the last put needs no more than acquire-release
 * ordering to free it.
 */
static void ustack_tfile_get(struct ustack_tfile *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

/**
 * ustack_tfile_put - drop a reference to a file, freeing it with the last
 * @f: the file; NULL is allowed
 */
void ustack_tfile_put(struct ustack_tfile *f)
{
	if (f && !__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL))
		free(f);
}

static struct ustack_tfile *ustack_files_lookup(struct ustack_files *files,
						unsigned long long id)
{
	if (!id || id > files->size)
		return NULL;
	return files->by_id[id - 1];
}

/**
 * ustack_files_set - a user_unwind_file entry came
 * @files: the file table
 * @id: its id, 1 to USTACK_FILE_ID_MAX
 * @build_id: the file's build-id
 * @build_id_size: its size, up to USTACK_FILE_BUILD_ID_SIZE; 0 when none
 * @path: the path, not necessarily NUL-terminated
 * @len: its length
 *
 * An entry the same as the file the id has (the same path and build-id)
 * changes nothing: stacks decoded before and after share it.
 *
 * Return: 0; -1 with errno EINVAL (a bad id or size) or ENOMEM, the table
 * being left as it was.
 */
int ustack_files_set(struct ustack_files *files, unsigned int id, const unsigned char *build_id,
		     size_t build_id_size, const char *path, size_t len)
{
	struct ustack_tfile **by_id, *f;
	unsigned int size;

	if (!id || id > USTACK_FILE_ID_MAX || build_id_size > USTACK_FILE_BUILD_ID_SIZE) {
		errno = EINVAL;
		return -1;
	}
	if (id > files->size) {
		size = files->size ? files->size : 64;
		while (size < id)
			size *= 2;
		by_id = realloc(files->by_id, size * sizeof(*by_id));
		if (!by_id)
			return -1;
		memset(by_id + files->size, 0, (size - files->size) * sizeof(*by_id));
		files->by_id = by_id;
		files->size = size;
	}

	f = files->by_id[id - 1];
	if (f && f->path_len == len && f->build_id_size == build_id_size &&
	    !memcmp(f->path, path, len) &&
	    (!build_id_size || !memcmp(f->build_id, build_id, build_id_size)))
		return 0;
	f = malloc(sizeof(*f) + len + 1);
	if (!f)
		return -1;
	f->refs = 1;
	f->id = id;
	f->build_id_size = build_id_size;
	memset(f->build_id, 0, sizeof(f->build_id));
	if (build_id_size)
		memcpy(f->build_id, build_id, build_id_size);
	f->path_len = len;
	memcpy(f->path, path, len);
	f->path[len] = '\0';

	ustack_tfile_put(files->by_id[id - 1]);
	files->by_id[id - 1] = f;
	ustack_framesets_forget(files);
	return 0;
}

/**
 * ustack_files_drop - forget a file id
 * @files: the file table
 * @id: the id; unknown ids are ignored
 *
 * For an entry that replaces @id but cannot be read: frames with @id are
 * unknown from then on, rather than pointing to the file it replaced.
 */
void ustack_files_drop(struct ustack_files *files, unsigned int id)
{
	if (!ustack_files_lookup(files, id))
		return;
	ustack_tfile_put(files->by_id[id - 1]);
	files->by_id[id - 1] = NULL;
	ustack_framesets_forget(files);
}

/**
 * ustack_files_clear - forget every file
 * @files: the file table, empty afterwards (sharing framesets or not, as before)
 */
void ustack_files_clear(struct ustack_files *files)
{
	unsigned int i;

	ustack_framesets_forget(files);
	ustack_stacks_release(files);
	free(files->sets);
	files->sets = NULL;
	for (i = 0; i < files->size; i++)
		ustack_tfile_put(files->by_id[i]);
	free(files->by_id);
	files->by_id = NULL;
	files->size = 0;
}

/* One frame: 0, or -1 when the data is damaged. */
static int ustack_frame_decode(const unsigned char *data, size_t size, size_t *pos, bool first,
			       unsigned long long *id, unsigned long long *offset)
{
	unsigned long long tag, zz;

	if (ustack_uleb128(data, size, pos, &tag))
		return -1;
	if (tag & 1) {
		if (ustack_uleb128(data, size, pos, id) || *id > UINT32_MAX)
			return -1;
		*offset = 0;
	} else if (first) {
		/* no mapping to take the offset from */
		return -1;
	}
	zz = tag >> 1;
	/* zigzag: 0, -1, 1, -2, ... are 0, 1, 2, 3, ...; offsets wrap like the kernel's */
	*offset += (zz >> 1) ^ -(zz & 1);
	return 0;
}

/* The frames of an entry decoded; with @share, its bytes copied as the frameset's key. */
static struct ustack_frameset *ustack_frameset_decode(struct ustack_files *files, unsigned int nr,
						      const unsigned char *data, size_t size,
						      bool share, unsigned long long hash)
{
	unsigned long long id = 0, offset = 0;
	struct ustack_frameset *set;
	struct ustack_tfile *f;
	unsigned int i, room;
	unsigned char *key;
	size_t pos = 0;

	/* every frame takes a byte at least */
	room = nr < size ? nr : size;
	/* not zeroed: every frame decoded is set whole */
	set = malloc(sizeof(*set) + room * (sizeof(set->frames[0]) + sizeof(set->files[0])) +
		     (share ? size : 0));
	if (!set)
		return NULL;
	memset(set, 0, sizeof(*set));
	set->refs = 1;
	set->claimed = nr;
	set->hash = hash;
	set->files = (struct ustack_tfile **)(set->frames + room);
	if (share) {
		key = (unsigned char *)(set->files + room);
		memcpy(key, data, size);
		set->bytes = key;
		set->size = size;
	}
	for (i = 0; i < nr; i++) {
		if (i >= room ||
		    ustack_frame_decode(data, size, &pos, i == 0, &id, &offset)) {
			set->malformed = true;
			break;
		}
		set->frames[i].file_id = id;
		/* the innermost frame is where the task was; the others return there */
		set->frames[i].flags = i ? USTACK_FRAME_RETURN : 0;
		set->frames[i].offset = offset;
		set->frames[i].path = NULL;
		set->frames[i].build_id = NULL;
		set->frames[i].build_id_size = 0;
		set->files[i] = NULL;
		f = ustack_files_lookup(files, id);
		if (f) {
			ustack_tfile_get(f);
			set->files[i] = f;
			set->frames[i].path = f->path;
			if (f->build_id_size) {
				set->frames[i].build_id = f->build_id;
				set->frames[i].build_id_size = f->build_id_size;
			}
		}
	}
	set->nr = i;
	return set;
}

/**
 * ustack_stack_decode - decode the frames of a user_unwind_stack entry
 * @files: the files named so far
 * @cookie: the entry's cookie
 * @pid: its common_pid
 * @nr: the frames it says it has
 * @flags: its flags (the kernel's USTACK_STACK_* bits)
 * @data: the frame data
 * @size: the bytes of @data, padding included
 *
 * With a table that shares (a stitcher's), an entry with the same frame
 * bytes as one decoded since the files last changed gets the same frames.
 *
 * Return: the stack, with one reference, to be put with ustack_stack_put();
 * NULL with errno ENOMEM.
 */
struct ustack_stack *ustack_stack_decode(struct ustack_files *files, unsigned long long cookie,
					 int pid, unsigned int nr, unsigned int flags,
					 const unsigned char *data, size_t size)
{
	bool share = files->share && size <= USTACK_FRAMESET_MAX_BYTES;
	struct ustack_frameset *set = NULL;
	struct ustack_stack_ref *ref;
	unsigned long long hash = 0;

	if (share) {
		hash = ustack_frameset_hash(nr, data, size);
		set = ustack_frameset_find(files, hash, nr, data, size);
	}
	if (!set) {
		set = ustack_frameset_decode(files, nr, data, size, share, hash);
		if (!set)
			return NULL;
		/* a damaged entry is rare: not worth a slot */
		if (share && !set->malformed)
			ustack_frameset_keep(files, set);
	}
	ref = ustack_stack_alloc(files);
	if (!ref) {
		ustack_frameset_put(set);
		return NULL;
	}
	ref->refs = 1;
	ref->stack.cookie = cookie;
	ref->stack.pid = pid;
	ref->stack.flags = flags & (USTACK_STACK_TRUNCATED | USTACK_STACK_NO_STACK |
				    USTACK_STACK_FP | USTACK_STACK_SFRAME);
	if (set->malformed)
		ref->stack.flags |= USTACK_STACK_MALFORMED;
	ref->stack.nr = set->nr;
	ref->stack.frames = set->frames;
	return &ref->stack;
}

/**
 * ustack_stack_get - keep a stack past the callback it was handed to
 * @stack: a stack the stitcher handed back (struct ustack_info)
 *
 * The stack, its frames and their paths and build-ids stay valid until
 * ustack_stack_put(), whatever the stitcher does meanwhile (even after
 * ustack_stitcher_free()): a caller can tell two kept stacks' files apart by
 * their path pointers.
 *
 * The reference count is atomic: a kept stack may be got and put from any
 * thread, also while the stitcher goes on in its own (the stack itself is
 * never changed after it was handed back).
 *
 * Return: @stack, with one more reference.
 */
const struct ustack_stack *ustack_stack_get(const struct ustack_stack *stack)
{
	__atomic_add_fetch(&container_of(stack, struct ustack_stack_ref, stack)->refs, 1,
			   __ATOMIC_RELAXED);
	return stack;
}

/**
 * ustack_stack_put - drop a reference to a stack, freeing it with the last
 * @stack: from ustack_stack_get() (or the stitcher's own); NULL is allowed
 */
void ustack_stack_put(const struct ustack_stack *stack)
{
	struct ustack_stack_ref *ref;

	if (!stack)
		return;
	ref = container_of(stack, struct ustack_stack_ref, stack);
	if (__atomic_sub_fetch(&ref->refs, 1, __ATOMIC_ACQ_REL))
		return;
	/* the frames are the frameset's */
	ustack_frameset_put(container_of((struct ustack_frame *)stack->frames,
					 struct ustack_frameset, frames[0]));
	ustack_stack_free(ref);
}
