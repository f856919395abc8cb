#!/usr/bin/env bash
# Usage: scripts/sync-snapshot-843c6254.sh INFERENCEX_GIT_DIR OUT_DIR
#
# Syncs every SGLang agentic lane of InferenceX main 843c6254, as recorded in
# docs/sync-843c6254.md. INFERENCEX_GIT_DIR is a clone or bare mirror
# of SemiAnalysisAI/InferenceX holding that commit; ../shared/reference/
# sglang-cookbook-pages is the --previous page set.
#
# 1. All 27 lanes of scripts/sync-snapshot-843c6254.toml in one run. Every
#    refusal goes to stderr and OUT_DIR/all/refusals.txt; when none is
#    refused, the pages and report.md are written to OUT_DIR/all.
# 2. When some are refused: the lanes that were not, in a second run, written
#    to OUT_DIR/translated (manifest translated.toml, report.md, the pages), so
#    what the synced lanes make can be read.
# Exit code: 0 when every lane synced in run 1, 1 otherwise, 2 on a wrong call.
set -u
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  echo "usage: $0 INFERENCEX_GIT_DIR OUT_DIR" >&2
  exit 2
fi
src=$1
out=$2
manifest=scripts/sync-snapshot-843c6254.toml
main=843c6254ff69b567f772f6a5fd97675af3d04431
if ! git --git-dir="$src" cat-file -e "$main^{commit}" 2>/dev/null; then
  echo "$src: not a git directory holding InferenceX $main" >&2
  exit 2
fi
mkdir -p "$out/all" "$out/translated" || exit 2
cargo build --quiet --locked || exit 2
sync() { # manifest, output directory
  target/debug/mdbook-agentx sync --manifest "$1" --inferencex "$src" \
    --previous ../shared/reference/sglang-cookbook-pages \
    --out "$2" --report "$2/report.md" 2> >(tee "$2/refusals.txt" >&2)
}
echo "== run 1: all lanes of $manifest" >&2
if sync "$manifest" "$out/all"; then
  exit 0
fi
wait
# Lanes are blocks separated by blank lines; drop the refused ones, and make
# the registry paths (relative to the manifest) absolute.
refused=$(grep -o 'lane `[^`]*`: ' "$out/all/refusals.txt" | sed 's/^lane `\(.*\)`: $/\1/' | sort -u)
awk -v keys="$refused" -v dir="$PWD/scripts/" 'BEGIN { RS = ""; ORS = "\n\n"
  n = split(keys, k, "\n"); for (i = 1; i <= n; i++) bad["config-key = \"" k[i] "\""] = 1 }
  { keep = 1; for (b in bad) if (index($0, b)) keep = 0
    gsub(/registry = "\.\.\//, "registry = \"" dir "../"); if (keep) print }' \
  "$manifest" >"$out/translated/translated.toml"
echo "== run 2: the $(grep -c '^\[\[lane\]\]' "$out/translated/translated.toml") lanes run 1 did not refuse" >&2
sync "$out/translated/translated.toml" "$out/translated"
wait
exit 1
