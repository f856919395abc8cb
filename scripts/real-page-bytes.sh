#!/usr/bin/env bash
# The "Bytes each page loads" figures of docs/BENCHMARKS.md (issue 26): one
# mdbook-agentx binary builds a book of the four real cookbook pages
# (../shared/reference/sglang-cookbook-pages, a chapter per page holding its
# directive, set up with the binary's own `install`, as browser_real and
# `xtask realdata` assemble it), three ways: the standalone site, the
# single-file export and real mdBook (the binary as its preprocessor). Prints
# the sizes (raw and `gzip -9`) as Markdown. Sizes do not depend on load;
# the build times printed are indicative.
#
#   scripts/real-page-bytes.sh BIN WORK [PAGES_DIR]
#
# WORK is replaced. Run it with the binary of each commit to compare.
set -euo pipefail

bin=$(realpath "$1")
work=$2
pages=${3:-$(dirname "$0")/../../shared/reference/sglang-cookbook-pages}
[ -d "$pages" ] || { echo "no real pages at $pages" >&2; exit 1; }
pages=$(realpath "$pages")
rm -rf "$work"
mkdir -p "$work/book/data" "$work/book/src"
book=$(realpath "$work/book")

gz() { gzip -9 -n < "$1" | wc -c; }
raw() { wc -c < "$1"; }
row() { printf '| %s | %s | %s |\n' "$1" "$(raw "$2")" "$(gz "$2")"; }

summary=$'# Summary\n\n[Introduction](intro.md)\n\n# Models\n\n'
for f in "$pages"/*.jsx; do
  stem=$(basename "$f" .jsx)
  model=$("$bin" stats "$f" 2>/dev/null | awk -F'|' 'NR == 3 {gsub(/^ +| +$/, "", $2); print $2}')
  cp "$f" "$book/data/"
  printf '# %s\n\n<<agentx page="%s">>\n' "$model" "$model" > "$book/src/$stem.md"
  summary+="- [$model]($stem.md)"$'\n'
done
printf '%s' "$summary" > "$book/src/SUMMARY.md"
printf '# Real AgentX pages\n' > "$book/src/intro.md"
printf '[book]\ntitle = "Real AgentX pages"\nsrc = "src"\n\n[preprocessor.agentx]\ndata-dir = "data"\non-error = "fail"\n' \
  > "$book/book.toml"
"$bin" install "$book" > /dev/null 2>&1

echo "binary: $bin ($("$bin" --version))"
echo
echo "## Standalone site (\`build\`)"
t0=$(date +%s.%N)
"$bin" build "$book" > /dev/null 2>&1
echo "built in $(echo "$(date +%s.%N) - $t0" | bc) s"
site=$book/book
echo
echo "| File | Raw B | gzip B |"
echo "|---|---:|---:|"
for f in index.html deepseek-v4.html deepseek-v4_1.html glm-5.2.html qwen3.8-flash-next.html; do
  [ -f "$site/$f" ] && row "\`$f\`" "$site/$f"
done
# Every page of the site: the largest raw and the largest gzipped.
find -L "$site" -name '*.html' | while read -r f; do
  printf '%s %s %s\n' "$(raw "$f")" "$(gz "$f")" "${f#"$site"/}"
done > "$work/pages.txt"
n=$(wc -l < "$work/pages.txt")
over=$(awk '$2 > 25000' "$work/pages.txt" | wc -l)
read -r r g p < <(sort -k1,1nr "$work/pages.txt" | head -1)
echo "| largest page raw (\`$p\`) | $r | $g |"
read -r r g p < <(sort -k2,2nr "$work/pages.txt" | head -1)
echo "| largest page gzip (\`$p\`) | $r | $g |"
for f in "$site"/theme/agentx.js "$site"/theme/book.js "$site"/*.agentx-data.js "$site"/search-index.js; do
  [ -f "$f" ] && row "\`${f#"$site"/}\`" "$f"
done
echo
echo "HTML pages: $n; over 25,000 B gzip: $over; median gzip: $(sort -n -k2,2 "$work/pages.txt" | awk '{a[NR]=$2} END {print a[int((NR+1)/2)]}') B"
echo "site total: $(du -sbL "$site/" | cut -f1) B"

echo
echo "## Single-file export"
t0=$(date +%s.%N)
"$bin" export "$book" --single-file "$book/single.html" > /dev/null 2>&1
echo "exported in $(echo "$(date +%s.%N) - $t0" | bc) s"
echo "| single.html | $(raw "$book/single.html") | $(gz "$book/single.html") |"

echo
echo "## mdBook $(mdbook --version | awk '{print $2}') (\`mdbook build\`, the binary as preprocessor)"
t0=$(date +%s.%N)
(cd "$book" && MDBOOK_PREPROCESSOR__AGENTX__COMMAND="$bin" mdbook build -d "$book/mdout" > "$work/mdbook.log" 2>&1)
echo "built in $(echo "$(date +%s.%N) - $t0" | bc) s; warnings: $(grep -c WARN "$work/mdbook.log" || true)"
grep WARN "$work/mdbook.log" | head -3 || true
echo
echo "| File | Raw B | gzip B |"
echo "|---|---:|---:|"
for f in "$book"/mdout/searchindex*.js "$book"/mdout/print.html "$book"/mdout/deepseek-v4.html "$book"/mdout/glm-5.2.html; do
  [ -f "$f" ] && row "\`${f#"$book"/mdout/}\`" "$f"
done
[ -f "$book/mdout/print.html" ] || echo "| \`print.html\` | not written | |"
find -L "$book/mdout" -name '*.html' ! -name print.html | while read -r f; do
  printf '%s %s %s\n' "$(raw "$f")" "$(gz "$f")" "${f#"$book"/mdout/}"
done > "$work/mdpages.txt"
read -r r g p < <(sort -k2,2nr "$work/mdpages.txt" | head -1)
echo "| largest page gzip (\`$p\`) | $r | $g |"
echo "mdBook site total: $(du -sb "$book/mdout" | cut -f1) B"
