/* Text for collsel-report: sizes with K/M/G, names for files, HTML and gnuplot quoting, and
 * the colour of each algorithm family.
 *
 * Colours. Every family has one colour in every plot of a report, and the same colour in every
 * report of the same collsel build: the colour belongs to the algorithm's name after the
 * collective ("ring" in allgather/ring and allgatherv/ring), native is always black, and the
 * other names take the palette in the order they first appear in algorithms/registry.def. A
 * name the registry does not know (a database from another collsel) gets a colour from a hash
 * of its name. */
#ifndef CS_REPORT_TEXT_H
#define CS_REPORT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes `bytes` with a binary unit into buf[0..len-1]: 4 -> "4", 1024 -> "1K", 1536 -> "1.5K",
 * 4194304 -> "4M", CS_RULE_UNBOUNDED (core/rule.h) -> "inf". Returns buf. */
const char *cs_text_bytes(uint64_t bytes, char *buf, size_t len);

/* The algorithm's name without its collective: "allreduce/ring" -> "ring" (the whole string
 * when it has no '/'). Points into `algorithm`. */
const char *cs_text_family_name(const char *algorithm);

/* The family colour of `algorithm` ("allreduce/ring" or "ring") as "#rrggbb" (static). */
const char *cs_text_colour(const char *algorithm);

/* The gnuplot point type of `algorithm`'s family (7, a filled circle, for native), so that
 * families differ in shape as well as colour. */
int cs_text_point(const char *algorithm);

/* The same colour as an integer 0xRRGGBB (gnuplot's "lc rgb variable"). */
unsigned long cs_text_colour_value(const char *algorithm);

/* Copies `text` into buf[0..len-1] keeping letters, digits, '-' and '_' and replacing anything
 * else by '_', for file names. Returns buf. */
const char *cs_text_file_part(const char *text, char *buf, size_t len);

/* Writes `text` (NULL: nothing) to f with &, <, >, " and ' escaped for HTML. */
void cs_text_html(FILE *f, const char *text);

/* Writes `text` (NULL: "") to f as a gnuplot single-quoted string: no escapes, no macro or
 * backquote substitution; a quote is doubled and control characters become spaces. */
void cs_text_gp(FILE *f, const char *text);

/* Writes `text` (NULL or "": "-") to f as one field of a gnuplot data file: double-quoted, with
 * double quotes, backslashes and control characters replaced by '_'. */
void cs_text_dat(FILE *f, const char *text);

/* The MPI library's name up to the first comma ("Open MPI v4.1.4, package: ..." ->
 * "Open MPI v4.1.4") into buf[0..len-1]. Returns buf. */
const char *cs_text_mpi_short(const char *mpi_library, char *buf, size_t len);

#endif
