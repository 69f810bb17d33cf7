/* Checks a directory written by collsel-report.
 *
 *   check_report DIR FORMAT [NAME:WIDTHxHEIGHT ...]
 *
 * FORMAT is png, svg or both. Checks that
 *   - index.html exists, is a collsel report, and every src= and href= in it names a file of
 *     DIR (relative, no "..", no URL) or an id of the page (#anchor);
 *   - every plot NAME given has NAME.gp, NAME.dat and, per FORMAT, NAME.png (a complete PNG:
 *     signature, IHDR first, IEND last, of exactly WIDTH x HEIGHT pixels) and NAME.svg (an
 *     SVG document, complete);
 *   - every other file of DIR is index.html or belongs to one of those plots, and no image of
 *     a format not asked for exists; with no NAME given, every .gp in DIR is taken as a plot
 *     and its PNG is checked for a width of 960.
 * Prints what is wrong and exits 1, or exits 0. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAXPLOTS 256

static int failures;

static void fail(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "check_report: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    failures++;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap + 1);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
            }
            buf = bigger;
        }
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void check_png(const char *path, long width, long height) {
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    size_t len = 0;
    unsigned char *p = (unsigned char *)slurp(path, &len);
    if (p == NULL) {
        fail("%s: missing%s", path, "");
        return;
    }
    if (len < 8 + 25 + 12 || memcmp(p, sig, 8) != 0 || be32(p + 8) != 13 ||
        memcmp(p + 12, "IHDR", 4) != 0) {
        fail("%s: not a PNG (no signature and IHDR)%s", path, "");
    } else if (memcmp(p + len - 12, iend, 12) != 0) {
        fail("%s: incomplete PNG (does not end with IEND)%s", path, "");
    } else {
        long w = (long)be32(p + 16), h = (long)be32(p + 20);
        if (w != width || (height > 0 && h != height)) {
            char got[64], want[64];
            snprintf(got, sizeof(got), "%ldx%ld", w, h);
            snprintf(want, sizeof(want), "%ldx%ld", width, height);
            fprintf(stderr, "check_report: %s: %s pixels, expected %s\n", path, got, want);
            failures++;
        }
    }
    free(p);
}

static void check_svg(const char *path) {
    size_t len = 0;
    char *s = slurp(path, &len);
    if (s == NULL) {
        fail("%s: missing%s", path, "");
        return;
    }
    if (strstr(s, "<svg") == NULL) {
        fail("%s: not an SVG document%s", path, "");
    } else {
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ')) {
            s[--len] = '\0';
        }
        if (len < 6 || strcmp(s + len - 6, "</svg>") != 0) {
            fail("%s: incomplete SVG (no closing </svg>)%s", path, "");
        }
    }
    free(s);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Checks every src="..." and href="..." of the page. */
static void check_links(const char *dir, const char *html) {
    static const char *const attrs[] = {" src=\"", " href=\""};
    int links = 0;
    for (size_t a = 0; a < 2; a++) {
        for (const char *p = strstr(html, attrs[a]); p != NULL; p = strstr(p + 1, attrs[a])) {
            const char *v = p + strlen(attrs[a]);
            const char *end = strchr(v, '"');
            char target[1024];
            if (end == NULL || (size_t)(end - v) >= sizeof(target)) {
                fail("index.html: unterminated or long attribute near '%.40s'%s", v, "");
                continue;
            }
            snprintf(target, sizeof(target), "%.*s", (int)(end - v), v);
            links++;
            if (target[0] == '#') {
                char id[1100];
                snprintf(id, sizeof(id), " id=\"%s\"", target + 1);
                if (strstr(html, id) == NULL) {
                    fail("index.html: link %s to no id of the page%s", target, "");
                }
            } else if (strstr(target, "://") != NULL || target[0] == '/' ||
                       strstr(target, "..") != NULL || strchr(target, '/') != NULL) {
                fail("index.html: %s is not a file of the report directory%s", target, "");
            } else {
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", dir, target);
                if (!exists(path)) {
                    fail("index.html: references %s, which does not exist%s", target, "");
                }
            }
        }
    }
    if (links == 0) {
        fail("index.html: no links or images at all%s%s", "", "");
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: check_report DIR png|svg|both [NAME:WxH ...]\n");
        return 2;
    }
    const char *dir = argv[1], *format = argv[2];
    bool png = strcmp(format, "svg") != 0, svg = strcmp(format, "png") != 0;
    char names[MAXPLOTS][200];
    long widths[MAXPLOTS], heights[MAXPLOTS];
    int n = 0;
    for (int i = 3; i < argc && n < MAXPLOTS; i++, n++) {
        const char *colon = strrchr(argv[i], ':');
        if (colon == NULL || sscanf(colon + 1, "%ldx%ld", &widths[n], &heights[n]) != 2) {
            fprintf(stderr, "check_report: bad plot '%s' (NAME:WxH)\n", argv[i]);
            return 2;
        }
        snprintf(names[n], sizeof(names[n]), "%.*s", (int)(colon - argv[i]), argv[i]);
    }
    bool listed = n > 0;
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "check_report: %s: no such directory\n", dir);
        return 1;
    }
    struct dirent *e;
    if (!listed) {
        while ((e = readdir(d)) != NULL && n < MAXPLOTS) {
            size_t len = strlen(e->d_name);
            if (len > 3 && strcmp(e->d_name + len - 3, ".gp") == 0) {
                snprintf(names[n], sizeof(names[n]), "%.*s", (int)(len - 3), e->d_name);
                widths[n] = 960;
                heights[n] = 0;
                n++;
            }
        }
        rewinddir(d);
    }
    while ((e = readdir(d)) != NULL) {
        const char *f = e->d_name;
        if (strcmp(f, ".") == 0 || strcmp(f, "..") == 0 || strcmp(f, "index.html") == 0) {
            continue;
        }
        bool known = false;
        for (int i = 0; i < n && !known; i++) {
            size_t len = strlen(names[i]);
            const char *ext = f + len;
            known = strncmp(f, names[i], len) == 0 &&
                    (strcmp(ext, ".gp") == 0 || strcmp(ext, ".dat") == 0 ||
                     (png && strcmp(ext, ".png") == 0) || (svg && strcmp(ext, ".svg") == 0));
        }
        if (!known) {
            fail("%s: unexpected file %s", dir, f);
        }
    }
    closedir(d);

    char path[4096];
    for (int i = 0; i < n; i++) {
        static const char *const always[] = {".gp", ".dat"};
        for (int j = 0; j < 2; j++) {
            snprintf(path, sizeof(path), "%s/%s%s", dir, names[i], always[j]);
            if (!exists(path)) {
                fail("%s: missing or empty%s", path, "");
            }
        }
        if (png) {
            snprintf(path, sizeof(path), "%s/%s.png", dir, names[i]);
            check_png(path, widths[i], heights[i]);
        }
        if (svg) {
            snprintf(path, sizeof(path), "%s/%s.svg", dir, names[i]);
            check_svg(path);
        }
    }

    size_t len = 0;
    snprintf(path, sizeof(path), "%s/index.html", dir);
    char *html = slurp(path, &len);
    if (html == NULL) {
        fail("%s: missing%s", path, "");
    } else {
        if (strstr(html, "<meta name=\"generator\" content=\"collsel-report") == NULL ||
            strstr(html, "</html>") == NULL) {
            fail("%s: not a complete collsel report page%s", path, "");
        }
        check_links(dir, html);
        /* Every plot is shown on the page. */
        for (int i = 0; i < n; i++) {
            char img[256];
            snprintf(img, sizeof(img), "src=\"%.200s.%s\"", names[i], png ? "png" : "svg");
            if (strstr(html, img) == NULL) {
                fail("index.html: does not show %s%s", names[i], "");
            }
        }
        free(html);
    }
    if (failures > 0) {
        fprintf(stderr, "check_report: %d problem(s) in %s\n", failures, dir);
        return 1;
    }
    printf("check_report: %s: %d plots, index.html and its links are fine\n", dir, n);
    return 0;
}
