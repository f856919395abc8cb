#!/usr/bin/env bash
# The "Bounded work" table of docs/BENCHMARKS.md (issue 25): runs one
# mdbook-agentx binary on each input `cargo xtask bounded-inputs IN` wrote,
# under /usr/bin/time -v, and prints one Markdown row per input: exit status,
# wall time, CPU time (user + system: less changed by other work on the
# machine than wall time), peak RSS, the site's size, and the last line of
# stderr (a refusal names its limit there).
#
#   cargo xtask bounded-inputs /tmp/bounded
#   scripts/bounded-work.sh target/release/mdbook-agentx /tmp/bounded [INPUT…]
#
# Books are built with `build`; `protocol-directives-N` runs the chapter of
# `directives-N` through the mdBook protocol (the preprocessor alone, as
# `mdbook build` runs it); `alias-bomb` and `yaml-keys-N` run `sync`.
#
# Every run is capped so an unbounded binary cannot take the machine:
# BOUNDED_MEMORY_MIB of address space (default 6144, `ulimit -v`) and
# BOUNDED_TIMEOUT seconds (default 600). A run that hits either shows it in
# the status column (a killed or aborted process, or 124 for the timeout).
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 BINARY INPUTS_DIR [INPUT…]" >&2
    exit 2
fi
bin=$(realpath "$1")
inputs=$(realpath "$2")
shift 2
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
    names=(headings-50000 directives-10000 directives-50000 protocol-directives-10000
        protocol-directives-50000 deployments-1000 deployments-3000 points-30000 value-50mb
        alias-bomb yaml-keys-100000)
fi
memory_mib=${BOUNDED_MEMORY_MIB:-6144}
timeout_s=${BOUNDED_TIMEOUT:-600}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bounded-work.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# The command line measuring one input, into "$scratch/out".
command_of() {
    local name=$1 dir="$inputs/$1"
    case $name in
    # The same chapter through the mdBook protocol: the preprocessor alone.
    protocol-*) echo "$bin < '$inputs/${name#protocol-}/input.json' > /dev/null" ;;
    alias-bomb | yaml-keys-*)
        echo "$bin sync --manifest '$dir/demo-lanes.toml' --inferencex '$dir/snapshot'" \
            "--previous '$dir/previous' --out '$scratch/out' --report /dev/null" ;;
    *) echo "$bin build --allow-dest-outside -d '$scratch/out' '$dir'" ;;
    esac
}

echo "| Input | Exit status | Wall s | CPU s | Peak RSS MiB | Site MiB | Last line of stderr |"
echo "|---|---:|---:|---:|---:|---:|---|"
for name in "${names[@]}"; do
    rm -rf "$scratch/out" "$scratch/.out"* "$scratch/time" "$scratch/stderr"
    cmd=$(command_of "$name")
    status=0
    (
        ulimit -v $((memory_mib * 1024))
        exec /usr/bin/time -v -o "$scratch/time" timeout "$timeout_s" bash -c "$cmd"
    ) 2> "$scratch/stderr" || status=$?
    field() { sed -n "s/^\s*$1: //p" "$scratch/time" | tail -1; }
    wall=$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)')
    seconds=$(awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<< "$wall")
    cpu=$(bc <<< "$(field 'User time (seconds)') + $(field 'System time (seconds)')")
    rss_kib=$(field 'Maximum resident set size (kbytes)')
    site=0
    if [[ -e "$scratch/out" ]]; then
        site=$(du -sbL "$scratch/out" | cut -f1)
    fi
    last=$(grep -v '^\s*$' "$scratch/stderr" | tail -1 | cut -c1-160 | tr '|' '/')
    printf '| %s | %s | %s | %.2f | %.0f | %.1f | %s |\n' "$name" "$status" "$seconds" "$cpu" \
        "$(bc <<< "${rss_kib:-0} / 1024")" "$(bc -l <<< "$site / 1048576")" "$last"
done
