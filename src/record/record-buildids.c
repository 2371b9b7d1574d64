// SPDX-License-Identifier: GPL-2.0
/*
 * Build ids at the end of a file (record.h), without a pass over it: the
 * readers noted the samples and maps as they copied them (dso-hits.h),
 * the synthesized maps were noted as they were written. Here those notes
 * become the DSOs the samples hit, each DSO gets its build id (from its
 * MMAP2 record, which the kernel fills for perfcap, or from its file, whose
 * inode must still be the mapped one), and each goes into the build-id
 * cache as perf 6.1's record puts it there (format/buildid-cache.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "format/buildid-cache.h"
#include "record/record.h"

void record__build_ids_setup(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	uint64_t st = rec->evlist.evsels[0]->attr.sample_type;
	/* --buildid-all: every DSO counts, as perf's needs no samples for it. */
	bool track = !o->buildid_all;
	/* A pipe gets no BUILD_ID section at the end (nor does perf's). */
	bool on = !o->no_buildid && rec->pipe_fd < 0;

	dso_hits__init(&rec->synth_hits, st, track);
	rec->synth_hits.on = on;
	for (int i = 0; i < rec->readers.nr; i++) {
		rec->readers.t[i].hits.track_samples = track;
		rec->readers.t[i].hits.on = on;
	}
}

/* A module's name in /sys/module from its path: foo-bar.ko[.xz] -> foo_bar. */
static void module_name(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	if (base[0] == '[')
		base++;
	for (i = 0; i + 1 < size && base[i] && base[i] != '.' && base[i] != ']'; i++)
		buf[i] = base[i] == '-' ? '_' : base[i];
	buf[i] = 0;
}

/*
 * A file DSO's id: the one its MMAP2 record carried, else the file's as
 * long as it is the inode that was mapped (else none: a wrong id is worse).
 * The file is tried at its path, then through the process's root while it
 * still exists.
 */
static int file_build_id(const struct hit_dso *d, struct build_id *bid)
{
	char path[PATH_MAX + 32];
	int err;

	if (d->bid.size) {
		*bid = d->bid;
		return 0;
	}
	err = build_id__cached(d->name, makedev(d->maj, d->min), d->ino, bid);
	if (err && d->pid > 0 &&
	    snprintf(path, sizeof(path), "/proc/%d/root%s", d->pid, d->name) < (int)sizeof(path))
		err = build_id__cached(path, makedev(d->maj, d->min), d->ino, bid);
	if (!err && !bid->size)
		err = -ENOENT;
	return err;
}

static bool same_id(const struct build_id *a, const struct build_id *b)
{
	return a->size && a->size == b->size && !memcmp(a->data, b->data, a->size);
}

/*
 * The file to cache for a DSO whose id came from its MMAP2 record: the
 * path may now name another file (replaced, or a container's path seen
 * from the host), and the cache must never hold a file under an id that
 * is not its own. The path, else the same path through the process's
 * root; NULL when neither has the id.
 */
static const char *file_with_id(const struct hit_dso *d, const struct build_id *want,
				char *buf, size_t size)
{
	struct build_id got;

	if (!build_id__cached(d->name, 0, 0, &got) && same_id(&got, want))
		return d->name;
	if (d->pid > 0 && snprintf(buf, size, "/proc/%d/root%s", d->pid, d->name) < (int)size &&
	    !build_id__cached(buf, 0, 0, &got) && same_id(&got, want))
		return buf;
	return NULL;
}

struct vdso_image {
	struct build_id bid;
	void *image;
	size_t size;
	bool tried;
};

static void cache_one(const char *dir, const struct feature_dso *f, const struct hit_dso *d,
		      struct vdso_image *vdso)
{
	char buf[PATH_MAX + 32];
	const char *from;
	int err;

	if (d->is_kernel_image)
		err = buildid_cache__add_kallsyms(dir, &f->bid);
	else if (!strcmp(f->filename, "[vdso]"))
		err = buildid_cache__add_vdso(dir, &f->bid, vdso->image, vdso->size);
	else if (f->filename[0] == '/' && (from = file_with_id(d, &f->bid, buf, sizeof(buf))))
		err = buildid_cache__add_file(dir, &f->bid, f->filename, from);
	else
		err = -ENOENT;	/* no file with this id (or a module without a file) */
	if (err)
		pr_debug("build-id cache: %s not added: %s\n", f->filename, strerror(-err));
}

void record__build_ids(struct record *rec, struct feature_env *env)
{
	const struct record_opts *o = &rec->opts;
	int n = rec->readers.nr + 1;
	struct dso_hits **h = xzalloc(n * sizeof(*h));
	struct feature_dso *out;
	struct hit_dso *d;
	struct vdso_image vdso = { 0 };
	char dir[PATH_MAX];
	bool cache;
	uint64_t t0 = record__now_ns(), t1;
	size_t nr, k = 0;

	env->dsos_only = true;
	if (o->no_buildid || !rec->synth_hits.on) {
		free(h);
		return;
	}
	h[0] = &rec->synth_hits;
	for (int i = 0; i < rec->readers.nr; i++)
		h[i + 1] = &rec->readers.t[i].hits;
	nr = dso_hits__resolve(h, n, o->buildid_all, &d);
	cache = !o->no_buildid_cache && !buildid_cache__dir(dir, sizeof(dir));
	if (cache && mkdir(dir, 0755) && errno != EEXIST) {
		pr_warn("build-id cache %s: %s; the recording's DSOs are not cached\n", dir,
			strerror(errno));
		cache = false;
	}
	out = xzalloc((nr + 1) * sizeof(*out));
	for (size_t i = 0; i < nr; i++) {
		struct feature_dso *f = &out[k];
		char mod[256];
		int err;

		f->cpumode = d[i].kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		if (d[i].is_kernel_image) {
			err = build_id__kernel(&f->bid);
		} else if (d[i].kernel) {
			module_name(d[i].name, mod, sizeof(mod));
			err = build_id__module(mod, &f->bid);
		} else if (!strcmp(d[i].name, "[vdso]")) {
			if (!vdso.tried)
				build_id__vdso(&vdso.bid, &vdso.image, &vdso.size);
			vdso.tried = true;
			f->bid = vdso.bid;
			err = vdso.bid.size ? 0 : -ENOENT;
		} else {
			err = file_build_id(&d[i], &f->bid);
		}
		if (err || !f->bid.size)
			continue;	/* no id: left out, as perf leaves it */
		/* A file seen with and without an id in its maps is one DSO. */
		if (k && !strcmp(out[k - 1].filename, d[i].name) &&
		    out[k - 1].bid.size == f->bid.size &&
		    !memcmp(out[k - 1].bid.data, f->bid.data, f->bid.size))
			continue;
		f->filename = xstrdup(d[i].name);
		if (cache)
			cache_one(dir, f, &d[i], &vdso);
		k++;
	}
	t1 = record__now_ns();
	pr_debug("build ids: %zu DSOs hit, %zu with an id, %s in %.1f ms\n", nr, k,
		 cache ? "cached" : "not cached", (t1 - t0) / 1e6);
	env->dsos = out;
	env->nr_dsos = (int)k;
	free(d);
	free(vdso.image);
	free(h);
	/* The next --switch-output file starts with its own maps and samples. */
	for (int i = 0; i < n; i++)
		dso_hits__reset(i ? &rec->readers.t[i - 1].hits : &rec->synth_hits);
}

void record__build_ids_free(struct feature_env *env)
{
	for (int i = 0; i < env->nr_dsos; i++)
		free((void *)env->dsos[i].filename);
	free((void *)env->dsos);
	env->dsos = NULL;
	env->nr_dsos = 0;
}
