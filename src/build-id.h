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

/* From an ELF file's NT_GNU_BUILD_ID note (libelf). 0 or -errno/-ENOENT. */
int build_id__from_file(const char *path, struct build_id *bid);
/* From a raw notes blob such as /sys/kernel/notes. */
int build_id__from_notes(const void *notes, size_t size, struct build_id *bid);
/* The running kernel's, from /sys/kernel/notes. */
int build_id__kernel(struct build_id *bid);
/* A loaded module's, from /sys/module/NAME/notes/.note.gnu.build-id. */
int build_id__module(const char *name, struct build_id *bid);
/* Lower-case hex into buf (2*size+1 bytes). */
char *build_id__hex(const struct build_id *bid, char *buf);

#endif
