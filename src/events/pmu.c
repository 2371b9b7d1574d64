// SPDX-License-Identifier: GPL-2.0
/*
 * PMUs from sysfs: type, format fields and event aliases, as perf 6.1
 * reads them for "cpu/event=0x3c,umask=0/" and "msr/tsc/".
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/pmu.h"
#include "util.h"

#define DEFAULT_SYSFS "/sys"
#define DEVICES "bus/event_source/devices"

static char *sysfs_root;

void pmu__set_sysfs_root(const char *root)
{
	free(sysfs_root);
	sysfs_root = root ? xstrdup(root) : NULL;
}

const char *pmu__sysfs_root(void)
{
	return sysfs_root ? sysfs_root : DEFAULT_SYSFS;
}

/* A PMU name is a directory name: nothing that leaves devices/. */
static bool valid_pmu_name(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || !isprint((unsigned char)*s))
			return false;
	return true;
}

int pmu_format__parse(struct pmu_format *f, const char *text)
{
	const char *s = text, *colon = strchr(text, ':');
	uint64_t bits = 0;

	if (!colon)
		return -EINVAL;
	if (colon - s == 6 && !strncmp(s, "config", 6))
		f->word = 0;
	else if (colon - s == 7 && !strncmp(s, "config1", 7))
		f->word = 1;
	else if (colon - s == 7 && !strncmp(s, "config2", 7))
		f->word = 2;
	else
		return -EINVAL;
	s = colon + 1;
	for (;;) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++)
			bits |= 1ULL << b;
		s = end;
		if (*s == ',') {
			s++;
			continue;
		}
		while (isspace((unsigned char)*s))
			s++;
		if (*s)
			return -EINVAL;
		break;
	}
	f->bits = bits;
	return 0;
}

int pmu_format__apply(const struct pmu_format *f, uint64_t value, uint64_t config[3],
		      uint64_t *max)
{
	int width = __builtin_popcountll(f->bits), vbit = 0;
	uint64_t word = config[f->word];

	if (width < 64 && value >> width) {
		if (max)
			*max = (1ULL << width) - 1;
		return -ERANGE;
	}
	for (int b = 0; b < 64; b++) {
		if (!(f->bits & (1ULL << b)))
			continue;
		if (value & (1ULL << vbit))
			word |= 1ULL << b;
		else
			word &= ~(1ULL << b);
		vbit++;
	}
	config[f->word] = word;
	return 0;
}

static int load_formats(struct pmu *pmu, const char *dir, char *err, int errlen)
{
	char *path;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (asprintf(&path, "%s/format", dir) < 0)
		return -ENOMEM;
	d = opendir(path);
	if (!d) {
		free(path);
		return 0;	/* software, tracepoint: no formats */
	}
	while ((de = readdir(d))) {
		char *file, *text = NULL;
		struct pmu_format f = { 0 };

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&file, "%s/%s", path, de->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (read_file(file, &text) < 0 || pmu_format__parse(&f, strim(text))) {
			snprintf(err, errlen, "cannot parse the PMU format %s", file);
			free(file);
			free(text);
			ret = -EINVAL;
			break;
		}
		free(file);
		free(text);
		f.name = xstrdup(de->d_name);
		pmu->formats = xrealloc(pmu->formats, (pmu->nr_formats + 1) * sizeof(f));
		pmu->formats[pmu->nr_formats++] = f;
	}
	closedir(d);
	free(path);
	return ret;
}

/* events/NAME holds the terms; NAME.scale, NAME.unit ... describe it and are skipped. */
static int load_aliases(struct pmu *pmu, const char *dir)
{
	char *path;
	DIR *d;
	struct dirent *de;

	if (asprintf(&path, "%s/events", dir) < 0)
		return -ENOMEM;
	d = opendir(path);
	if (!d) {
		free(path);
		return 0;
	}
	while ((de = readdir(d))) {
		char *file, *text = NULL;

		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;
		if (asprintf(&file, "%s/%s", path, de->d_name) < 0)
			break;
		if (read_file(file, &text) >= 0) {
			struct pmu_alias a = { xstrdup(de->d_name), xstrdup(strim(text)) };

			pmu->aliases = xrealloc(pmu->aliases, (pmu->nr_aliases + 1) * sizeof(a));
			pmu->aliases[pmu->nr_aliases++] = a;
		}
		free(file);
		free(text);
	}
	closedir(d);
	free(path);
	return 0;
}

int pmu__load(struct pmu *pmu, const char *name, char *err, int errlen)
{
	char *dir = NULL, *type_path = NULL;
	long long type;
	int ret;

	memset(pmu, 0, sizeof(*pmu));
	if (!valid_pmu_name(name))
		return -ENOENT;
	if (asprintf(&dir, "%s/" DEVICES "/%s", pmu__sysfs_root(), name) < 0 ||
	    asprintf(&type_path, "%s/type", dir) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	ret = read_int(type_path, &type);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		ret = -ENOENT;
		goto out;
	}
	if (ret < 0 || type < 0 || type > UINT32_MAX) {
		ret = ret < 0 ? ret : -EINVAL;
		snprintf(err, errlen, "cannot read the type of PMU '%s' (%s): %s", name,
			 type_path, strerror(-ret));
		goto out;
	}
	pmu->name = xstrdup(name);
	pmu->type = (uint32_t)type;
	ret = load_formats(pmu, dir, err, errlen);
	if (!ret)
		ret = load_aliases(pmu, dir);
	if (ret)
		pmu__exit(pmu);
out:
	free(dir);
	free(type_path);
	return ret;
}

void pmu__exit(struct pmu *pmu)
{
	if (!pmu)
		return;
	for (int i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	for (int i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].terms);
	}
	free(pmu->formats);
	free(pmu->aliases);
	free(pmu->name);
	memset(pmu, 0, sizeof(*pmu));
}

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *name)
{
	for (int i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

/* perf matches aliases without regard to case ("cpu/CPU-CYCLES/" works). */
const struct pmu_alias *pmu__alias(const struct pmu *pmu, const char *name)
{
	for (int i = 0; i < pmu->nr_aliases; i++)
		if (!strcasecmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pmu__for_each_alias_named(const char *name,
			      int (*fn)(const char *pmu, const char *terms, void *arg),
			      void *arg)
{
	char *path, **names = NULL;
	int nr = 0, ret = 0;
	DIR *d;
	struct dirent *de;

	if (asprintf(&path, "%s/" DEVICES, pmu__sysfs_root()) < 0)
		return -ENOMEM;
	d = opendir(path);
	free(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	/* A stable order, so that the same name always means the same PMU. */
	qsort(names, nr, sizeof(*names), cmp_str);
	for (int i = 0; i < nr && !ret; i++) {
		struct pmu pmu;
		const struct pmu_alias *a;
		char dummy[8];

		if (pmu__load(&pmu, names[i], dummy, sizeof(dummy)))
			continue;
		a = pmu__alias(&pmu, name);
		if (a)
			ret = fn(pmu.name, a->terms, arg);
		pmu__exit(&pmu);
	}
	for (int i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return ret;
}
