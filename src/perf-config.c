// SPDX-License-Identifier: GPL-2.0
/*
 * perf's config files (perf-config.h), for one value at a time. A
 * library for INI files would not read git's syntax (quotes, escapes,
 * "[section "sub"]"), and perfcap needs one key; so a few lines of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf-config.h"
#include "util.h"

/* A value: quotes removed (with \" and \\ inside them), trailing comment cut. */
static void take_value(const char *v, char *buf, size_t size)
{
	size_t n = 0;
	bool quoted = false;
	char *t;

	for (; *v; v++) {
		if (*v == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*v == '#' || *v == ';'))
			break;
		if (quoted && *v == '\\' && (v[1] == '"' || v[1] == '\\'))
			v++;
		if (n + 1 < size)
			buf[n++] = *v;
	}
	buf[n] = 0;
	/* strim cuts the end in place and returns past the spaces in front. */
	t = strim(buf);
	memmove(buf, t, strlen(t) + 1);
}

int perf_config__parse(const char *text, const char *section, const char *name,
		       char *buf, size_t size)
{
	char *copy = xstrdup(text), *line, *save = NULL;
	bool in_section = false;
	int err = -ENOENT;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = strim(line), *eq;

		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			size_t len;

			if (!end)
				continue;
			*end = 0;
			s = strim(s + 1);
			/* [section "sub"] is a subsection: not the section itself. */
			len = strcspn(s, " \t\"");
			in_section = len == strlen(section) && !strncasecmp(s, section, len) &&
				     !s[len];
			continue;
		}
		if (!in_section || !(eq = strchr(s, '=')))
			continue;
		*eq = 0;
		if (strcasecmp(strim(s), name))
			continue;
		take_value(eq + 1, buf, size);
		err = 0;
	}
	free(copy);
	return err;
}

static int from_file(const char *path, const char *section, const char *name,
		     char *buf, size_t size)
{
	char *text = NULL;
	int err;

	if (read_file(path, &text) < 0)
		return -ENOENT;
	err = perf_config__parse(text, section, name, buf, size);
	free(text);
	return err;
}

int perf_config__get(const char *section, const char *name, char *buf, size_t size)
{
	const char *only = getenv("PERF_CONFIG"), *home = getenv("HOME");
	char path[4096];
	int err = -ENOENT;

	if (only)
		return from_file(only, section, name, buf, size);
	if (!getenv("PERF_CONFIG_NOSYSTEM") && !from_file("/etc/perfconfig", section, name, buf, size))
		err = 0;
	if (!getenv("PERF_CONFIG_NOGLOBAL") && home &&
	    snprintf(path, sizeof(path), "%s/.perfconfig", home) < (int)sizeof(path) &&
	    !from_file(path, section, name, buf, size))
		err = 0;
	return err;
}
