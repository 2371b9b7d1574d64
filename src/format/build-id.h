/* SPDX-License-Identifier: GPL-2.0 */
/* GNU build ids from ELF notes: files on disk, the running kernel. */
#ifndef PERFCAP_BUILD_ID_H
#define PERFCAP_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 20

struct build_id {
	uint8_t data[BUILD_ID_MAX];
	size_t size; /* 0: none */
};

/*
 * From an ELF file's NT_GNU_BUILD_ID note (libelf): program headers
 * (PT_NOTE) first, then sections (SHT_NOTE) for files without them.
 * 0, -ENOENT (an ELF file without the note), -ENOEXEC (not ELF) or
 * -errno of the open.
 */
int build_id__from_file(const char *path, struct build_id *bid);
/*
 * From a raw notes blob such as /sys/kernel/notes (4-byte aligned
 * Elf_Nhdr entries): the first "GNU" note of type NT_GNU_BUILD_ID.
 * 0, or -ENOENT when there is none (a truncated blob ends the walk).
 */
int build_id__from_notes(const void *notes, size_t size, struct build_id *bid);
/* The running kernel's, from /sys/kernel/notes. */
int build_id__kernel(struct build_id *bid);
/* A loaded module's, from /sys/module/NAME/notes/.note.gnu.build-id. */
int build_id__module(const char *name, struct build_id *bid);
/*
 * build_id__from_file(), remembered per file so that a library mapped
 * by hundreds of processes is read once. The key is the (dev, ino)
 * that /proc/PID/maps shows for the mapping (dev = makedev(maj, min)).
 * The file opened at path is trusted only if its inode number is ino
 * (a file replaced since it was mapped gives -ESTALE, not a wrong id).
 * Answers about the file itself (its id, "no note", "not ELF") are
 * cached; failures to open path are not, since another path (say
 * through /proc/PID/root) may reach the same file.
 * With ino == 0 the key comes from stat(path). Not thread-safe.
 */
int build_id__cached(const char *path, uint64_t dev, uint64_t ino,
		     struct build_id *bid);
/* Frees what build_id__cached() remembered. */
void build_id__cache_free(void);
/*
 * This process's vdso (the image every 64-bit process of this kernel
 * maps): a copy of its bytes into *image (to free) and its build id.
 * 0, or -ENOENT when there is no vdso or it has no id.
 */
int build_id__vdso(struct build_id *bid, void **image, size_t *size);
/*
 * Whether an ELF file has SystemTap SDT probes (a .note.stapsdt section):
 * 1, 0, -ENOEXEC (not ELF) or -errno of the open.
 */
int build_id__has_sdt_notes(const char *path);
/* Lower-case hex into buf (2*size+1 bytes). */
char *build_id__hex(const struct build_id *bid, char *buf);

#endif
