/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function names for addresses, as perf report finds them: an ELF file's
 * symbol table (.symtab, from its debug file under /usr/lib/debug when
 * the file is stripped, else .dynsym; "NAME@plt" for the PLT's entries,
 * as perf names them), or a kallsyms file for the
 * kernel. A symbol without a size ends where the next one starts, as
 * perf's do. C++ names are demangled as perf 6.1 shows them (libiberty,
 * without parameters), the mangled one kept.
 */
#ifndef PERFCAP_PROFILE_SYMTAB_H
#define PERFCAP_PROFILE_SYMTAB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "format/build-id.h"

struct symbol {
	uint64_t start, end;	/* [start, end): ELF vaddrs, or kernel addresses */
	const char *name;	/* demangled when it was a C++ name */
	const char *raw;	/* as the table has it */
};

struct symtab;

/*
 * The symbols of elf (a DSO's file); bid, when known, finds its debug
 * file for a stripped one. Never NULL: an ELF without symbols gives an
 * empty table.
 */
struct symtab *symtab__from_elf(Elf *elf, const struct build_id *bid);
/* The text symbols of a kallsyms file; NULL (errno set) when it cannot be read. */
struct symtab *symtab__from_kallsyms(const char *path);
void symtab__delete(struct symtab *st);

/* The symbol covering addr, or NULL. */
const struct symbol *symtab__find(const struct symtab *st, uint64_t addr);
size_t symtab__nr(const struct symtab *st);

#endif
