#!/usr/bin/env bash
# Usage: scripts/code-lengths.sh [N]
# The longest source files and the N longest functions (default 10) under
# src/, xtask/ and tests/ (*.rs only). A function runs from its `fn` line to
# the first line that closes it at the same indentation, which rustfmt'd code
# always has; the count includes both lines.
set -eu
cd "$(dirname "$0")/.."
n=${1:-10}
dirs=$(for d in src xtask tests; do [ -d "$d" ] && echo "$d"; done)
echo "Longest files (lines):"
find $dirs -name '*.rs' 2>/dev/null | xargs wc -l | grep -v ' total$' | sort -rn | head -n "$n"
echo
echo "Longest functions (lines, file:line, name):"
find $dirs -name '*.rs' 2>/dev/null | sort | xargs awk '
  FNR == 1 { depth = 0 }
  {
    if (match($0, /^[ \t]*(pub(\([a-z]+\))? )?(const )?(async )?(unsafe )?(extern "C" )?fn [A-Za-z0-9_]+/) && $0 !~ /;[ \t]*$/) {
      indent = $0; sub(/[^ \t].*/, "", indent)
      name = $0; sub(/.*fn /, "", name); sub(/[^A-Za-z0-9_].*/, "", name)
      stack[++depth] = indent; start[depth] = FNR; names[depth] = name
      # A one-line function closes on its own line.
      if ($0 ~ /\}[ \t]*$/ && $0 ~ /\{/) { depth--; next }
      next
    }
    if (depth > 0 && $0 == (stack[depth] "}")) {
      printf "%d %s:%d %s\n", FNR - start[depth] + 1, FILENAME, start[depth], names[depth]
      depth--
    }
  }' | sort -rn | head -n "$n"
