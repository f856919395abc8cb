#!/usr/bin/env bash
# Usage: scripts/module-graph.sh [SRC_DIR]     (default: the repository's src/)
#        scripts/module-graph.sh --self-test  (runs it on small fixture trees)
#
# For each top-level module of the library, the other top-level modules it
# uses (`crate::<module>` paths); whether the graph has a cycle; and whether
# every "May use:" header tells the truth. A header lies when its module
# uses a module the header does not name: a top-level module's header covers
# all its files, a submodule's own header (e.g. render/html.rs) covers that
# submodule. Names in parentheses are prose, not permissions; `util::escape`
# allows that submodule of `util` only. Test-only code is left out:
# `test_support` and the `tests*.rs` files. Exits 1 on a cycle, a module
# without a header, or a header that lies.
set -eu

# The self-test: fixture trees, each a lib.rs and three modules, with what
# the script must say of each.
self_test() {
  local script=$1
  self_test_dir=$(mktemp -d)
  trap 'rm -rf "$self_test_dir"' EXIT
  local tmp=$self_test_dir
  # fixture NAME: src/ with `low` (no uses), `mid` (uses low; html.rs, a
  # submodule, uses low::escape only) and `high` (uses mid).
  fixture() {
    local d=$tmp/$1/src
    mkdir -p "$d/mid"
    echo '//! The crate.' >"$d/lib.rs"
    printf '//! Low.\n//!\n//! May use: nothing of this crate.\n' >"$d/low.rs"
    printf '//! Mid.\n//!\n//! May use: `low` (its `escape`).\nmod html;\nuse crate::low::text;\n' >"$d/mid/mod.rs"
    printf '//! Html.\n//!\n//! May use: `low::escape`.\nuse crate::low::escape;\n' >"$d/mid/html.rs"
    printf '//! High.\n//!\n//! May use: `mid`.\nuse crate::mid::Thing;\n' >"$d/high.rs"
    echo "$d"
  }
  # expect NAME WANT_EXIT TEXT: the script's verdict on fixture NAME.
  expect() {
    local out code=0
    out=$(bash "$script" "$tmp/$1/src" 2>&1) || code=$?
    if [ "$code" != "$2" ] || ! grep -qF -- "$3" <<<"$out"; then
      echo "self-test $1: expected exit $2 and \"$3\", got exit $code:"; echo "$out"; exit 1
    fi
    echo "self-test $1: ok (exit $code)"
  }
  fixture truthful >/dev/null
  expect truthful 0 'every "May use:" header names what its module uses'
  # `high` uses `low`, which its header does not name.
  d=$(fixture lying-header)
  echo 'use crate::low::text;' >>"$d/high.rs"
  expect lying-header 1 'high.rs: uses `low::text`, which its "May use:" header does not name'
  # A name in parentheses is prose: it allows nothing.
  d=$(fixture prose)
  printf '//! High.\n//!\n//! May use: `mid` (not `low`).\nuse crate::mid::Thing;\nuse crate::low::X;\n' >"$d/high.rs"
  expect prose 1 'high.rs: uses `low`, which its "May use:" header does not name'
  # A submodule's header is checked too: html.rs allows `low::escape` only.
  d=$(fixture lying-submodule)
  echo 'use crate::low::text;' >>"$d/mid/html.rs"
  expect lying-submodule 1 'mid/html.rs: uses `low::text`'
  d=$(fixture no-header)
  echo '//! High, without a header.' >"$d/high.rs"
  expect no-header 1 'high.rs: no "May use:" header'
  d=$(fixture cycle)
  printf '//! Low.\n//!\n//! May use: `high`.\nuse crate::high::Up;\n' >"$d/low.rs"
  expect cycle 1 'CYCLE:'
}

if [ "${1:-}" = --self-test ]; then
  self_test "$0"
  exit 0
fi
src=${1:-"$(dirname "$0")/../src"}
cd "$src"

# The top-level modules: every entry of src/ but the crate roots and cmd/.
modules=$(ls | grep -v -e '^lib.rs$' -e '^main.rs$' -e '^cmd$' -e '^test_support.rs$' | sed 's/\.rs$//' | sort -u)

# The non-test source files of module (or submodule directory) NAME.
files_of() {
  if [ -d "$1" ]; then find "$1" -name '*.rs' ! -name 'tests*.rs' | sort; else echo "$1.rs"; fi
}

# The `crate::a` and `crate::a::b` paths the files use, as `a` or `a::b`.
uses_in() {
  cat "$@" | grep -o 'crate::[a-z_][a-z_0-9]*\(::[a-z_][a-z_0-9]*\)\?' | sed 's/^crate:://' | sort -u || true
}

# What a file's "May use:" header names: backticked names outside parentheses.
header_allows() {
  awk '/^\/\/! *May use:/ { p = 1 }
       p { if ($0 !~ /^\/\/!/ || $0 ~ /^\/\/! *$/) exit; sub(/^\/\/! ?/, ""); printf "%s ", $0 }' "$1" |
    sed 's/([^)]*)//g' | grep -o '`[a-z_][a-z_0-9:]*`' | tr -d '`' | sort -u || true
}

edges=$(mktemp)
lies=$(mktemp)
trap 'rm -f "$edges" "$edges.err" "$lies"' EXIT

# check_header FILE OWN SCOPE...: every use in SCOPE is allowed by FILE's header.
check_header() {
  local header=$1 own=$2
  shift 2
  local allowed
  allowed=$(header_allows "$header")
  for u in $(uses_in "$@"); do
    local top=${u%%::*}
    [ "$top" = "$own" ] || [ "$top" = test_support ] && continue
    if ! printf '%s\n' "$allowed" | grep -qx -e "$top" -e "$u"; then
      echo "$header: uses \`$u\`, which its \"May use:\" header does not name" >>"$lies"
    fi
  done
}

for m in $modules; do
  files=$(files_of "$m")
  uses=$(uses_in $files | sed 's/::.*//' | grep -v -e "^$m\$" -e '^test_support$' | sort -u | tr '\n' ' ')
  printf '%-12s uses: %s\n' "$m" "${uses:-(nothing)}"
  for u in $uses; do echo "$m $u" >>"$edges"; done
  root=$m.rs
  [ -d "$m" ] && root=$m/mod.rs
  if ! grep -q '^//! *May use:' "$root"; then
    echo "$root: no \"May use:\" header" >>"$lies"
    continue
  fi
  check_header "$root" "$m" $files
  # Submodules with a header of their own: a directory's mod.rs covers it.
  for h in $( [ -d "$m" ] && grep -rl '^//! *May use:' "$m" --include='*.rs' | grep -v -x "$root" | sort); do
    case $h in
      */mod.rs) check_header "$h" "$m" $(files_of "$(dirname "$h")") ;;
      *) check_header "$h" "$m" "$h" ;;
    esac
  done
done

status=0
if tsort "$edges" >/dev/null 2>"$edges.err"; then
  echo "no cycle"
else
  echo "CYCLE:"; cat "$edges.err"; status=1
fi
if [ -s "$lies" ]; then
  echo "HEADERS THAT LIE:"; cat "$lies"; status=1
else
  echo "every \"May use:\" header names what its module uses"
fi
exit $status
