/* Logging. The library prints nothing unless asked: the level comes from COLLSEL_VERBOSE
 * (0 = silent, the default; 1 = warnings; 2 = information; 3 = debug) or cs_log_set_level().
 * Messages go to stderr prefixed with "collsel: ". */
#ifndef CS_LOG_H
#define CS_LOG_H

enum cs_log_level { CS_LOG_WARN = 1, CS_LOG_INFO = 2, CS_LOG_DEBUG = 3 };

/* Parses a COLLSEL_VERBOSE value ("0".."3") into *out: 1, or 0 (*out untouched) for any
 * other text. */
int cs_log_parse_level(const char *text, int *out);

/* Current level; reads COLLSEL_VERBOSE on first use. A bad value is reported once and ignored. */
int cs_log_level(void);

/* Overrides the level (programs such as collsel-bench use this for --quiet/--verbose). */
void cs_log_set_level(int level);

/* Prints one line at `level` when the current level is at least `level`. */
void cs_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints one line whatever the level, on MPI_COMM_WORLD's rank 0 only (or when MPI is not
 * running): for a bad environment value, which every rank would otherwise repeat. */
void cs_log_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 1 on MPI_COMM_WORLD's rank 0, and when MPI is not initialised or already finalised. */
int cs_log_world_root(void);

#endif
