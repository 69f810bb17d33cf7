#!/usr/bin/env bash
# The algorithm tables of the documentation against the registry: README.md's "Registered
# algorithms" table (one row per collective, its algorithms comma-separated, remarks in
# parentheses) and the key column of docs/algorithms.md's "Catalogue" table (`<coll>/<alg>`;
# `<coll>/<alg>` with the literal `<coll>` stands for that algorithm of every collective that
# registers it). Fails when a registered algorithm is missing from a table, when a table names
# an algorithm that is not registered, or when a table is not found.
# Registered keys come from algorithms/registry.def (CS_ALGO(<coll>_<alg>)), split after the
# collective names of algorithms/core/coll.def.
#   test_algorithm_tables.sh SOURCE_DIR
set -euo pipefail

src=${1:?usage: test_algorithm_tables.sh SOURCE_DIR}
registry=$src/algorithms/registry.def
colls=$src/algorithms/core/coll.def
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# Registered keys, <coll>/<alg>, one per line.
registered=$(awk '
    FNR == NR {
        if (match($0, /^CS_COLL\([A-Z_]+, [a-z_]+,/)) {
            split(substr($0, RSTART, RLENGTH), f, /[(, ]+/)
            coll[f[3]] = 1
        }
        next
    }
    match($0, /^CS_ALGO\([a-z0-9_]+\)/) {
        id = substr($0, RSTART + 8, RLENGTH - 9)
        best = ""
        for (c in coll) {
            if (index(id, c "_") == 1 && length(c) > length(best)) {
                best = c
            }
        }
        if (best == "") {
            print "registry.def: no collective of coll.def starts " id > "/dev/stderr"
            exit 1
        }
        print best "/" substr(id, length(best) + 2)
    }' "$colls" "$registry")
[[ -n "$registered" ]] || fail "$registry: no CS_ALGO lines"

# table_rows FILE HEADING: the body rows (header and separator left out) of the first table
# after the line "HEADING".
table_rows() {
    awk -v heading="$2" '
        $0 == heading { in_section = 1; next }
        in_section && /^#/ { exit }
        in_section && /^\|/ { seen = 1; if (++row > 2) print; next }
        in_section && seen { exit }' "$1"
}

# README.md: | coll | alg (remark), alg, ... |
readme_keys=$(table_rows "$src/README.md" "## Registered algorithms" | awk -F'|' '{
    coll = $2
    gsub(/[ `]/, "", coll)
    algs = $3
    gsub(/\([^)]*\)/, "", algs)
    gsub(/[ `]/, "", algs)
    n = split(algs, a, ",")
    for (i = 1; i <= n; i++) {
        if (a[i] != "") {
            print coll "/" a[i]
        }
    }
}')

# docs/algorithms.md: | `coll/alg` | reference | ... |, `<coll>/alg` expanded.
catalogue_keys=$(table_rows "$src/docs/algorithms.md" "## Catalogue" | awk -F'|' '{
    key = $2
    gsub(/[ `]/, "", key)
    print key
}')

check_table() {
    local doc=$1 keys=$2 key alg
    if [[ -z "$keys" ]]; then
        fail "$doc: no algorithm table found (heading or table format changed?)"
        return
    fi
    while read -r key; do
        if [[ $key == "<coll>/"* ]]; then
            alg=${key#<coll>/}
            grep -q "/$alg\$" <<<"$registered" ||
                fail "$doc names $key, but no collective registers an algorithm '$alg'"
        elif ! grep -qxF "$key" <<<"$registered"; then
            fail "$doc names $key, which is not registered (algorithms/registry.def)"
        fi
    done <<<"$keys"
    while read -r key; do
        grep -qxF "$key" <<<"$keys" && continue
        grep -qxF "<coll>/${key#*/}" <<<"$keys" && continue
        fail "$doc: registered algorithm $key is missing from its table"
    done <<<"$registered"
}

check_table "README.md (Registered algorithms)" "$readme_keys"
check_table "docs/algorithms.md (Catalogue)" "$catalogue_keys"

if [[ $failures -gt 0 ]]; then
    echo "$failures problem(s): update the documentation tables to match algorithms/registry.def" >&2
    exit 1
fi
echo "ok: $(wc -l <<<"$registered") registered algorithms, both tables match"
