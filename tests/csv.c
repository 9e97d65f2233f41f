/* See csv.h. */
#include "csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *csv_read_file(const char *path) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf != NULL && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (len + 1 == cap) {
			cap *= 2;
			char *bigger = realloc(buf, cap);
			if (bigger == NULL) {
				free(buf);
			}
			buf = bigger;
		}
	}
	fclose(f);
	if (buf != NULL) {
		buf[len] = '\0';
	}
	return buf;
}

/* Split a line at its commas in place, empty fields included. */
static int split(char *line, char **fields) {
	int n = 0;
	char *p = line;
	while (n < CSV_COLUMNS) {
		fields[n++] = p;
		char *comma = strchr(p, ',');
		if (comma == NULL) {
			break;
		}
		*comma = '\0';
		p = comma + 1;
	}
	return n;
}

static char *next_line(char **cursor) {
	char *line = *cursor;
	if (line == NULL || *line == '\0') {
		return NULL;
	}
	char *nl = strchr(line, '\n');
	if (nl != NULL) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = line + strlen(line);
	}
	return line;
}

bool csv_open(struct csv *csv, const char *path) {
	*csv = (struct csv){ 0 };
	csv->text = csv_read_file(path);
	if (csv->text == NULL) {
		return false;
	}
	csv->cursor = csv->text;
	char *header = next_line(&csv->cursor);
	if (header == NULL) {
		free(csv->text);
		csv->text = NULL;
		return false;
	}
	csv->ncolumns = split(header, csv->names);
	return true;
}

void csv_close(struct csv *csv) {
	free(csv->text);
	csv->text = NULL;
}

int csv_column(const struct csv *csv, const char *name) {
	for (int i = 0; i < csv->ncolumns; i++) {
		if (strcmp(csv->names[i], name) == 0) {
			return i;
		}
	}
	return -1;
}

bool csv_next(struct csv *csv) {
	char *line;
	while ((line = next_line(&csv->cursor)) != NULL) {
		if (*line != '\0') {
			csv->nfields = split(line, csv->fields);
			return true;
		}
	}
	return false;
}

const char *csv_field(const struct csv *csv, int column) {
	return column >= 0 && column < csv->nfields ? csv->fields[column] : NULL;
}

double csv_number(const struct csv *csv, int column) {
	const char *s = csv_field(csv, column);
	if (s == NULL || *s == '\0') {
		return NAN;
	}
	char *end;
	double v = strtod(s, &end);
	return end == s ? NAN : v;
}

unsigned long long csv_u64(const struct csv *csv, int column) {
	const char *s = csv_field(csv, column);
	return s != NULL ? strtoull(s, NULL, 10) : 0;
}
