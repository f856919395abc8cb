#!/usr/bin/env bash
# Usage: scripts/module-graph.sh
# For each top-level module of the library, the other top-level modules it
# uses (`crate::<module>` paths), and whether the graph has a cycle. Test-only
# code is left out: `test_support` and the `tests*.rs` files.
set -eu
cd "$(dirname "$0")/../src"
edges=$(mktemp)
for m in $(ls | grep -v -e '^lib.rs$' -e '^main.rs$' -e '^cmd$' -e '^test_support.rs$' | sed 's/\.rs$//' | sort -u); do
  files=$( [ -d "$m" ] && find "$m" -name '*.rs' ! -name 'tests*.rs' || echo "$m.rs" )
  uses=$(cat $files | grep -o 'crate::[a-z_]*' | sed 's/crate:://' | grep -v -e "^$m\$" -e '^test_support$' | sort -u | tr '\n' ' ')
  printf '%-12s uses: %s\n' "$m" "${uses:-(nothing)}"
  for u in $uses; do echo "$m $u" >>"$edges"; done
done
if tsort "$edges" >/dev/null 2>"$edges.err"; then
  echo "no cycle"
else
  echo "CYCLE:"; cat "$edges.err"; rm -f "$edges" "$edges.err"; exit 1
fi
rm -f "$edges" "$edges.err"
