/*
 * One reader for the CSV files vitrail and its clients write (the frame
 * log, a probe's samples), shared by the tests and the benchmarks: the
 * file read whole, rows one after the other, fields by column name. Empty
 * fields count (the frame log leaves some columns empty), so a column's
 * index is the same in every row.
 */
#ifndef VITRAIL_TESTS_CSV_H
#define VITRAIL_TESTS_CSV_H

#include <stdbool.h>

#define CSV_COLUMNS 64

struct csv {
	char *text;
	char *cursor; // next row
	char *names[CSV_COLUMNS];
	int ncolumns;
	char *fields[CSV_COLUMNS]; // the current row
	int nfields;
};

/* A whole file as a string (malloc'd); NULL when unreadable. */
char *csv_read_file(const char *path);

/* Read path and its header; false when unreadable or empty. */
bool csv_open(struct csv *csv, const char *path);
void csv_close(struct csv *csv);
/* The index of a column, -1 when the file has none of that name. */
int csv_column(const struct csv *csv, const char *name);
/* The next row (empty lines skipped); false at the end. */
bool csv_next(struct csv *csv);
/* A field of the current row; NULL for a missing column or field. */
const char *csv_field(const struct csv *csv, int column);
/* A numeric field; NAN when missing, empty or not a number. */
double csv_number(const struct csv *csv, int column);
/* An unsigned integer field (nanoseconds, counts); 0 when missing or
 * empty. */
unsigned long long csv_u64(const struct csv *csv, int column);

#endif
