/* check_mpich_json FILE: checks that FILE has the structure MPICH's collective selection
 * (csel) parser expects of a JSON tuning file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), as
 * collsel-report --export mpich-json writes it:
 *
 *   { "collective=<name>": { "comm_type=intra": {
 *       "comm_size<=N": { "avg_msg_size<=M": { "algorithm=MPIR_<Coll>_intra_<alg>": {} },
 *                         ..., "avg_msg_size=any": { ... } },
 *       ..., "comm_size=any": { ... } } }, ... }
 *
 * Valid JSON (objects and strings only), known collective names, bounds ascending within a
 * level and each level ending in "=any", one algorithm per leaf whose name's collective matches
 * (MPIR_Allreduce_... under collective=allreduce). Prints what is wrong and exits 1; 0 when the
 * file is good, with "N collectives, M algorithm leaves" on stdout. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;
static int leaves;

static void fail(const char *what) {
    fprintf(stderr, "check_mpich_json: %s near '%.30s'\n", what, p);
    exit(1);
}

static void skip(void) {
    while (isspace((unsigned char)*p)) {
        p++;
    }
}

static void expect(char c) {
    skip();
    if (*p != c) {
        char msg[32];
        snprintf(msg, sizeof(msg), "expected '%c'", c);
        fail(msg);
    }
    p++;
}

/* A JSON string without escapes into buf. */
static void string(char *buf, size_t len) {
    size_t n = 0;
    expect('"');
    while (*p != '"') {
        if (*p == '\0' || *p == '\\' || n + 1 >= len) {
            fail("unterminated, escaped or overlong string");
        }
        buf[n++] = *p++;
    }
    buf[n] = '\0';
    p++;
}

/* Reads "<prefix><=N" or "<prefix>=any": returns N, or -1 for any. */
static long bound(const char *key, const char *prefix) {
    size_t n = strlen(prefix);
    char *end;
    long v;
    if (strncmp(key, prefix, n) != 0) {
        fail("unexpected key");
    }
    if (strcmp(key + n, "=any") == 0) {
        return -1;
    }
    if (strncmp(key + n, "<=", 2) != 0) {
        fail("a bound must be <=N or =any");
    }
    v = strtol(key + n + 2, &end, 10);
    if (end == key + n + 2 || *end != '\0' || v < 0) {
        fail("bad bound");
    }
    return v;
}

static void leaf(const char *coll) {
    char key[256], want[96];
    expect('{');
    string(key, sizeof(key));
    snprintf(want, sizeof(want), "algorithm=MPIR_%c%s_intra_", toupper((unsigned char)coll[0]),
             coll + 1);
    if (strncmp(key, want, strlen(want)) != 0 || strlen(key) == strlen(want)) {
        fail("leaf is not algorithm=MPIR_<Coll>_intra_<alg> of its collective");
    }
    expect(':');
    expect('{');
    expect('}');
    expect('}');
    leaves++;
}

/* An object of "<prefix><=N" / "<prefix>=any" keys, ascending, ending in =any; each value
 * parsed by next(coll). */
static void level(const char *prefix, const char *coll, void (*next)(const char *)) {
    char key[256];
    long last = -2;
    expect('{');
    for (;;) {
        long b;
        string(key, sizeof(key));
        b = bound(key, prefix);
        if (last == -1 || (b >= 0 && b <= last)) {
            fail("bounds not ascending, or a key after =any");
        }
        last = b;
        expect(':');
        next(coll);
        skip();
        if (*p == ',') {
            p++;
            continue;
        }
        break;
    }
    expect('}');
    if (last != -1) {
        fail("a level must end with =any");
    }
}

static void sizes(const char *coll) {
    level("avg_msg_size", coll, leaf);
}

int main(int argc, char **argv) {
    static const char *const colls[] = {
        "allgather", "allgatherv", "allreduce",      "alltoall",
        "alltoallv", "barrier",    "bcast",          "exscan",
        "gather",    "gatherv",    "reduce_scatter", "reduce_scatter_block",
        "reduce",    "scan",       "scatter",        "scatterv",
        NULL};
    static char text[1 << 20];
    char key[256], coll[64];
    int ncoll = 0;
    FILE *f;
    size_t n;
    if (argc != 2 || (f = fopen(argv[1], "r")) == NULL) {
        fprintf(stderr, "usage: check_mpich_json FILE\n");
        return 2;
    }
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    p = text;
    expect('{');
    for (;;) {
        int known = 0;
        string(key, sizeof(key));
        if (strncmp(key, "collective=", 11) != 0 || strlen(key + 11) >= sizeof(coll)) {
            fail("top-level keys must be collective=<name>");
        }
        strcpy(coll, key + 11);
        for (int i = 0; colls[i] != NULL; i++) {
            known |= strcmp(colls[i], coll) == 0;
        }
        if (!known) {
            fail("unknown collective");
        }
        expect(':');
        expect('{');
        string(key, sizeof(key));
        if (strcmp(key, "comm_type=intra") != 0) {
            fail("expected comm_type=intra");
        }
        expect(':');
        level("comm_size", coll, sizes);
        expect('}');
        ncoll++;
        skip();
        if (*p == ',') {
            p++;
            continue;
        }
        break;
    }
    expect('}');
    skip();
    if (*p != '\0') {
        fail("text after the top-level object");
    }
    printf("%d collectives, %d algorithm leaves\n", ncoll, leaves);
    return 0;
}
