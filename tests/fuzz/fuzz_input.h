/* Reading a fuzzer's input as a stream of typed values (the fuzz targets of tests/fuzz). Past
 * the end every value reads as zero, so any input decodes. */
#ifndef CS_FUZZ_INPUT_H
#define CS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz_t;

static inline int fz_left(const fz_t *f) {
    return f->n > 0;
}

static inline uint8_t fz_u8(fz_t *f) {
    uint8_t v = 0;
    if (f->n > 0) {
        v = f->p[0];
        f->p++;
        f->n--;
    }
    return v;
}

static inline uint64_t fz_u64(fz_t *f) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = v << 8 | fz_u8(f);
    }
    return v;
}

static inline uint32_t fz_u32(fz_t *f) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        v = v << 8 | fz_u8(f);
    }
    return v;
}

static inline double fz_double(fz_t *f) {
    uint64_t bits = fz_u64(f);
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

/* A string of up to `max` bytes (its length is one byte) into out[0..cap-1], NUL-terminated;
 * it may hold any byte but NUL. Returns its length. */
static inline size_t fz_str(fz_t *f, char *out, size_t cap, size_t max) {
    size_t len = fz_u8(f) % (max + 1), i = 0;
    if (cap == 0) {
        return 0;
    }
    for (; i < len && i + 1 < cap && f->n > 0; i++) {
        char c = (char)fz_u8(f);
        out[i] = c != '\0' ? c : '?';
    }
    out[i] = '\0';
    return i;
}

#endif
