/* Text helpers of collsel-report (see text.h). */
#include "text.h"

#include "core/rule.h"
#include "registry.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Colour-blind-safe first (Okabe-Ito), then further distinct darker colours; none is black
 * (native's) or light enough to vanish on white. */
static const char *const palette[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
    "#8C564B", "#7B3294", "#B59B00", "#17A2B8", "#E41A1C", "#6B8E23",
};
#define NPALETTE      (sizeof(palette) / sizeof(palette[0]))
#define NATIVE_COLOUR "#000000"

const char *cs_text_bytes(uint64_t bytes, char *buf, size_t len) {
    static const char units[] = "KMGTPE";
    if (bytes == CS_RULE_UNBOUNDED) {
        snprintf(buf, len, "inf");
        return buf;
    }
    if (bytes < 1024) {
        snprintf(buf, len, "%" PRIu64, bytes);
        return buf;
    }
    double v = (double)bytes;
    int u = -1;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.3g%c", v, units[u]);
    return buf;
}

const char *cs_text_family_name(const char *algorithm) {
    const char *slash = strchr(algorithm, '/');
    return slash != NULL ? slash + 1 : algorithm;
}

/* The family's index for colours and point types: 0 for native, then 1, 2, ... in registry
 * order of first appearance; a name the registry does not know gets one from a hash. */
static size_t family_index(const char *algorithm) {
    const char *name = cs_text_family_name(algorithm);
    if (strcmp(name, "native") == 0) {
        return 0;
    }
    size_t index = 1;
    for (int i = 0; i < cs_registry_count; i++) {
        const char *mine = cs_text_family_name(cs_registry[i]->name);
        bool seen = strcmp(mine, "native") == 0;
        for (int j = 0; j < i && !seen; j++) {
            seen = strcmp(cs_text_family_name(cs_registry[j]->name), mine) == 0;
        }
        if (seen) {
            continue;
        }
        if (strcmp(mine, name) == 0) {
            return index;
        }
        index++;
    }
    /* Not registered: a slot the registered names leave free, when there is one. */
    size_t known = index - 1;
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (const char *c = name; *c != '\0'; c++) {
        hash = (hash ^ (unsigned char)*c) * 16777619u;
    }
    return known < NPALETTE ? 1 + known + hash % (NPALETTE - known) : 1 + hash % NPALETTE;
}

const char *cs_text_colour(const char *algorithm) {
    size_t i = family_index(algorithm);
    return i == 0 ? NATIVE_COLOUR : palette[(i - 1) % NPALETTE];
}

int cs_text_point(const char *algorithm) {
    /* filled square, triangle up, triangle down, diamond, pentagon */
    static const int shapes[] = {5, 9, 11, 13, 15};
    size_t i = family_index(algorithm);
    return i == 0 ? 7 : shapes[(i - 1) % (sizeof(shapes) / sizeof(shapes[0]))];
}

unsigned long cs_text_colour_value(const char *algorithm) {
    return strtoul(cs_text_colour(algorithm) + 1, NULL, 16);
}

const char *cs_text_file_part(const char *text, char *buf, size_t len) {
    size_t n = 0;
    for (const char *c = text; *c != '\0' && n + 1 < len; c++) {
        bool keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '-' || *c == '_';
        buf[n++] = keep ? *c : '_';
    }
    if (len > 0) {
        buf[n] = '\0';
    }
    return buf;
}

void cs_text_html(FILE *f, const char *text) {
    for (const char *c = text != NULL ? text : ""; *c != '\0'; c++) {
        switch (*c) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*c, f);
        }
    }
}

void cs_text_gp(FILE *f, const char *text) {
    fputc('\'', f);
    for (const char *c = text != NULL ? text : ""; *c != '\0'; c++) {
        if (*c == '\'') {
            fputs("''", f);
        } else if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            fputc(' ', f);
        } else {
            fputc(*c, f);
        }
    }
    fputc('\'', f);
}

void cs_text_dat(FILE *f, const char *text) {
    if (text == NULL || text[0] == '\0') {
        fputs("\"-\"", f);
        return;
    }
    fputc('"', f);
    for (const char *c = text; *c != '\0'; c++) {
        bool bad = *c == '"' || *c == '\\' || (unsigned char)*c < 0x20 || *c == 0x7f;
        fputc(bad ? '_' : *c, f);
    }
    fputc('"', f);
}

const char *cs_text_mpi_short(const char *mpi_library, char *buf, size_t len) {
    size_t n = strcspn(mpi_library, ",");
    snprintf(buf, len, "%.*s", (int)n, mpi_library);
    return buf;
}
