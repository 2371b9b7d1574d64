// SPDX-License-Identifier: GPL-2.0
/*
 * GNU build ids (NT_GNU_BUILD_ID notes).
 *
 * Files are read with libelf in ELF_C_READ mode: it preads the headers
 * and the note chunks it is asked for, never the whole file, and a file
 * truncated under us gives a read error rather than SIGBUS as a mapping
 * would. In system-wide mode the same libc is mapped by every process,
 * so build_id__cached() remembers each answer per (dev, ino).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/build-id.h"
#include "util.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static const char gnu_name[] = "GNU"; /* namesz 4, NUL included */

static void build_id__set(struct build_id *bid, const void *desc, size_t size)
{
	/*
	 * Ids longer than 20 bytes are cut the way perf cuts them, so both
	 * sides of a later comparison agree.
	 */
	if (size > BUILD_ID_MAX) {
		pr_debug("build id of %zu bytes cut to %d\n", size, BUILD_ID_MAX);
		size = BUILD_ID_MAX;
	}
	memset(bid->data, 0, sizeof(bid->data));
	memcpy(bid->data, desc, size);
	bid->size = size;
}

static int is_gnu_build_id(uint32_t namesz, const char *name, uint32_t type,
			   uint32_t descsz)
{
	return type == NT_GNU_BUILD_ID && namesz == sizeof(gnu_name) &&
	       !memcmp(name, gnu_name, sizeof(gnu_name)) && descsz > 0;
}

int build_id__from_notes(const void *notes, size_t size, struct build_id *bid)
{
	const uint8_t *p = notes;
	uint64_t off = 0;

	bid->size = 0;
	/* Elf32_Nhdr and Elf64_Nhdr are the same three u32 words. */
	while (off + 12 <= size) {
		uint32_t namesz, descsz, type;
		uint64_t name_off, desc_off, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		desc_off = name_off + ALIGN_UP((uint64_t)namesz, 4);
		next = desc_off + ALIGN_UP((uint64_t)descsz, 4);
		if (desc_off + descsz > size)
			break; /* truncated: nothing after it can be trusted */
		if (is_gnu_build_id(namesz, (const char *)p + name_off, type, descsz)) {
			build_id__set(bid, p + desc_off, descsz);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

/* Walk one note area that libelf has translated. 0 when found. */
static int notes_data__find(Elf_Data *data, struct build_id *bid)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return -ENOENT;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *d = data->d_buf;

		if (is_gnu_build_id(nh.n_namesz, d + name_off, nh.n_type,
				    nh.n_descsz)) {
			build_id__set(bid, d + desc_off, nh.n_descsz);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

static int elf_find_build_id(Elf *elf, struct build_id *bid)
{
	size_t i, phnum;
	Elf_Scn *scn = NULL;

	/*
	 * Loaded objects have the note in a PT_NOTE segment; relocatable
	 * objects (.ko) and some debug files have only the section.
	 */
	if (elf_getphdrnum(elf, &phnum) == 0) {
		for (i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			Elf_Data *data;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
				continue;
			data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
						    ph.p_align == 8 ? ELF_T_NHDR8 :
								      ELF_T_NHDR);
			if (notes_data__find(data, bid) == 0)
				return 0;
		}
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data = NULL;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		/* elf_getdata picks NHDR8 itself for 8-aligned sections. */
		while ((data = elf_getdata(scn, data)) != NULL)
			if (notes_data__find(data, bid) == 0)
				return 0;
	}
	return -ENOENT;
}

static int elf_ready(void)
{
	static int ready;

	if (!ready) {
		if (elf_version(EV_CURRENT) == EV_NONE) {
			pr_err("libelf: %s\n", elf_errmsg(-1));
			return -EINVAL;
		}
		ready = 1;
	}
	return 0;
}

static int build_id__from_fd(int fd, struct build_id *bid)
{
	Elf *elf;
	int err;

	bid->size = 0;
	if (elf_ready())
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	else
		err = elf_find_build_id(elf, bid);
	elf_end(elf);
	return err;
}

int build_id__from_file(const char *path, struct build_id *bid)
{
	int fd, err;

	bid->size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = build_id__from_fd(fd, bid);
	close(fd);
	return err;
}

static int build_id__from_notes_file(const char *path, struct build_id *bid)
{
	char *buf;
	ssize_t n = read_file(path, &buf);
	int err;

	bid->size = 0;
	if (n < 0)
		return n;
	err = build_id__from_notes(buf, n, bid);
	free(buf);
	return err;
}

int build_id__kernel(struct build_id *bid)
{
	return build_id__from_notes_file("/sys/kernel/notes", bid);
}

int build_id__module(const char *name, struct build_id *bid)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id",
		     name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return build_id__from_notes_file(path, bid);
}

int build_id__has_sdt_notes(const char *path)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, ret = 0;
	Elf *elf;

	if (elf_ready())
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".note.stapsdt")) {
			ret = 1;
			break;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int build_id__vdso(struct build_id *bid, void **image, size_t *size)
{
	unsigned long long start = 0, end = 0;
	char *maps = NULL, *line, *save = NULL, *copy;
	Elf *elf;
	int err;

	bid->size = 0;
	*image = NULL;
	*size = 0;
	if (read_file("/proc/self/maps", &maps) < 0)
		return -ENOENT;
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	free(maps);
	if (end <= start || elf_ready())
		return -ENOENT;
	/* The kernel's pages of this process: readable, never changed. */
	copy = xzalloc(end - start);
	memcpy(copy, (const void *)(uintptr_t)start, end - start);
	elf = elf_memory(copy, end - start);
	err = elf && elf_kind(elf) == ELF_K_ELF ? elf_find_build_id(elf, bid) : -ENOENT;
	if (elf)
		elf_end(elf);
	if (err || !bid->size) {
		free(copy);
		return -ENOENT;
	}
	*image = copy;
	*size = end - start;
	return 0;
}

char *build_id__hex(const struct build_id *bid, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < bid->size; i++) {
		buf[2 * i] = hex[bid->data[i] >> 4];
		buf[2 * i + 1] = hex[bid->data[i] & 15];
	}
	buf[2 * bid->size] = 0;
	return buf;
}

/*
 * The cache: chained hash of (dev, ino) -> answer. It only grows while
 * a recording synthesizes, so there is no removal; it doubles at load 1.
 */
struct bid_entry {
	struct bid_entry *next;
	uint64_t dev, ino;
	int err; /* 0, -ENOENT (no note) or -ENOEXEC (not ELF) */
	struct build_id bid;
};

static struct {
	struct bid_entry **buckets;
	size_t nr_buckets; /* power of two */
	size_t nr;
} cache;

static size_t bid_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 32 | dev >> 32)) * 0x9e3779b97f4a7c15ULL;

	return h >> 20;
}

static struct bid_entry *cache__find(uint64_t dev, uint64_t ino)
{
	struct bid_entry *e;

	if (!cache.nr_buckets)
		return NULL;
	e = cache.buckets[bid_hash(dev, ino) & (cache.nr_buckets - 1)];
	for (; e; e = e->next)
		if (e->dev == dev && e->ino == ino)
			return e;
	return NULL;
}

static void cache__grow(void)
{
	size_t n = cache.nr_buckets ? cache.nr_buckets * 2 : 256, i;
	struct bid_entry **b = xzalloc(n * sizeof(*b));

	for (i = 0; i < cache.nr_buckets; i++) {
		struct bid_entry *e = cache.buckets[i], *next;

		for (; e; e = next) {
			size_t h = bid_hash(e->dev, e->ino) & (n - 1);

			next = e->next;
			e->next = b[h];
			b[h] = e;
		}
	}
	free(cache.buckets);
	cache.buckets = b;
	cache.nr_buckets = n;
}

static void cache__add(uint64_t dev, uint64_t ino, int err,
		       const struct build_id *bid)
{
	struct bid_entry *e = xzalloc(sizeof(*e));
	size_t h;

	if (cache.nr >= cache.nr_buckets)
		cache__grow();
	e->dev = dev;
	e->ino = ino;
	e->err = err;
	e->bid = *bid;
	h = bid_hash(dev, ino) & (cache.nr_buckets - 1);
	e->next = cache.buckets[h];
	cache.buckets[h] = e;
	cache.nr++;
}

void build_id__cache_free(void)
{
	size_t i;

	for (i = 0; i < cache.nr_buckets; i++) {
		struct bid_entry *e = cache.buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(cache.buckets);
	memset(&cache, 0, sizeof(cache));
}

int build_id__cached(const char *path, uint64_t dev, uint64_t ino,
		     struct build_id *bid)
{
	struct bid_entry *e;
	struct stat st;
	int fd, err;

	bid->size = 0;
	if (!ino) {
		if (stat(path, &st))
			return -errno;
		dev = st.st_dev;
		ino = st.st_ino;
	}
	e = cache__find(dev, ino);
	if (e) {
		*bid = e->bid;
		return e->err;
	}
	/*
	 * stat before open: a mapped device node or FIFO must not be
	 * opened (side effects, blocking). Only the inode number is
	 * compared: st_dev differs from the maps' device on btrfs
	 * subvolumes.
	 */
	if (stat(path, &st))
		return -errno;
	if (st.st_ino != ino)
		return -ESTALE;
	if (!S_ISREG(st.st_mode)) {
		err = -ENOEXEC;
		goto out_cache;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* The path may have been replaced between stat and open. */
	if (fstat(fd, &st) || st.st_ino != ino) {
		close(fd);
		return -ESTALE;
	}
	err = build_id__from_fd(fd, bid);
	close(fd);
	if (err && err != -ENOENT && err != -ENOEXEC)
		return err;
out_cache:
	cache__add(dev, ino, err, bid);
	return err;
}
