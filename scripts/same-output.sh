#!/usr/bin/env bash
# Usage: scripts/same-output.sh OLD_REV NEW_REV
#
# Builds the mdbook-agentx binary of two revisions and checks that they
# produce the same bytes for the same inputs; prints what differs and exits 1
# when anything does. NEW_REV may be `.`: the working tree as it is.
#
# Compared, for each binary:
#   - `decode --json FILE` of every data file of the sample book (agentx/, or
#     content/agentx before issue 15 moved it out of the source directory)
#     and of the real data in ../shared/reference/sglang-cookbook and the real
#     pages in ../shared/reference/sglang-cookbook-pages (stdout + exit code);
#   - the whole site `build` writes for the sample book (each revision's own
#     checkout), for a book assembled from the real data files and for one of
#     the real pages, including agentx-manifest.json: every file, byte for byte;
#   - `export --single-file` of the sample book, `stats --json` of the three books,
#     `check --format json` of the sample book, and `diff --verbose` between the
#     sample book and a copy with one data file edited.
#
# Why: a refactor must not change what readers get. Each revision is built in
# a git worktree in a temporary directory, with one target directory shared by
# both (target/same-output, so dependencies compile once); binaries of
# committed revisions are kept in target/same-output/bin/<commit>.
# Set AGENTX_REQUIRE_SHARED=1 to fail instead of skipping the real data when
# ../shared is absent.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 OLD_REV NEW_REV   (NEW_REV may be . for the working tree)" >&2
  exit 2
fi
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
target=${SAME_OUTPUT_TARGET_DIR:-$repo/target/same-output}
shared=$repo/../shared/reference/sglang-cookbook
pages=$repo/../shared/reference/sglang-cookbook-pages
work=$(mktemp -d "${TMPDIR:-/tmp}/agentx-same-output.XXXXXX")
worktrees=()
cleanup() {
  for wt in "${worktrees[@]}"; do
    git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1 || true
  done
  git -C "$repo" worktree prune >/dev/null 2>&1 || true
  if [ -z "${SAME_OUTPUT_KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

# checkout SIDE REV: sets $dir to the directory holding REV's files.
checkout() {
  local side=$1 rev=$2
  if [ "$rev" = . ]; then
    dir=$repo
    return
  fi
  dir=$work/src-$side
  git -C "$repo" worktree add --quiet --detach "$dir" "$rev" >&2
  worktrees+=("$dir")
}

# binary SIDE REV DIR: builds REV (checked out in DIR), prints the binary's path.
binary() {
  local side=$1 rev=$2 dir=$3
  if [ "$rev" = . ]; then
    (cd "$repo" && cargo build --quiet --locked --bin mdbook-agentx >&2)
    cp "$repo/target/debug/mdbook-agentx" "$work/bin-$side"
    echo "$work/bin-$side"
    return
  fi
  local commit
  commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
  local cached=$target/bin/$commit
  if [ ! -x "$cached" ]; then
    echo "building $rev ($commit) ..." >&2
    (cd "$dir" && CARGO_TARGET_DIR=$target cargo build --quiet --locked --bin mdbook-agentx >&2)
    mkdir -p "$target/bin"
    cp "$target/debug/mdbook-agentx" "$cached.tmp"
    mv "$cached.tmp" "$cached"
  fi
  echo "$cached"
}

# book_of DIR TITLE FILES...: a book with one chapter per data file (in data/).
book_of() {
  local dir=$1 title=$2
  shift 2
  mkdir -p "$dir/src" "$dir/data"
  printf '[book]\ntitle = "%s"\nsrc = "src"\n\n[preprocessor.agentx]\ndata-dir = "data"\n' \
    "$title" >"$dir/book.toml"
  printf '# Summary\n\n' >"$dir/src/SUMMARY.md"
  for f in "$@"; do
    cp "$f" "$dir/data/"
    model=$(grep -o '"model": *"[^"]*"' "$f" | head -1 | sed 's/.*: *"\(.*\)"/\1/')
    stem=$(basename "$f" | sed 's/\.[a-z]*$//')
    printf '# %s\n\n<<agentx page="%s">>\n' "$model" "$model" >"$dir/src/$stem.md"
    printf -- '- [%s](%s.md)\n' "$model" "$stem" >>"$dir/src/SUMMARY.md"
  done
}

# The real data as a book, and the real pages as another.
real_book=$work/real-book
pages_book=$work/pages-book
have_shared=0
if [ -d "$shared" ] && [ -d "$pages" ]; then
  have_shared=1
  book_of "$real_book" "Real data" "$shared"/*.json
  book_of "$pages_book" "Real pages" "$pages"/*.jsx
elif [ "${AGENTX_REQUIRE_SHARED:-}" = 1 ]; then
  echo "error: $shared or $pages is missing and AGENTX_REQUIRE_SHARED=1" >&2
  exit 1
else
  echo "SKIPPED: $shared or $pages is missing; comparing the sample book only" >&2
fi

# run OUT_FILE CMD...: stdout and the exit code of CMD into OUT_FILE.
run() {
  local out=$1
  shift
  local code=0
  "$@" >"$out" 2>/dev/null || code=$?
  echo "exit code: $code" >>"$out"
}

# outputs SIDE BIN BOOK: everything compared, into $work/out-SIDE.
outputs() {
  local side=$1 bin=$2 book=$3
  local out=$work/out-$side
  # Every build writes outside its book, which binaries since the output
  # containment rule refuse without this flag (older ones lack it): without
  # it both sides would fail alike and compare nothing.
  local outside=()
  if "$bin" build --help 2>/dev/null | grep -q -- --allow-dest-outside; then
    outside=(--allow-dest-outside)
  fi
  mkdir -p "$out/decode"
  local data=agentx
  [ -d "$book/$data" ] || data=content/agentx
  local data_files=("$book"/$data/*)
  if [ $have_shared = 1 ]; then
    data_files+=("$shared"/*.json "$shared"/*.jsx "$pages"/*.jsx)
  fi
  for f in "${data_files[@]}"; do
    run "$out/decode/$(basename "$(dirname "$f")")-$(basename "$f").out" "$bin" decode --json "$f"
  done
  # The sample book builds into a copy, so nothing is written into the checkout.
  local sample=$work/sample-$side
  mkdir -p "$sample"
  for part in book.toml content agentx agentx.css agentx.js flags templates theme agentx-theme; do
    if [ -e "$book/$part" ]; then cp -R "$book/$part" "$sample/"; fi
  done
  run "$out/build-sample.out" "$bin" build "$sample" -d "$out/sample-site" "${outside[@]}"
  run "$out/single-file.out" "$bin" export "$sample" --single-file "$out/single-file.html"
  run "$out/stats-sample.out" "$bin" stats --json "$sample"
  run "$out/check-sample.out" "$bin" check "$sample" --format json
  # diff --verbose: the sample book against a copy with one value edited.
  local edited=$work/edited-$side
  cp -R "$sample" "$edited"
  # One value changed in place, and one flag renamed, which moves it in the
  # sorted flag list: the unified diffs then have changed, removed and added lines.
  sed -i -e '0,/"--max-running-requests": \["/s//"--max-running-requests": ["1/' \
    -e '0,/"--kv-cache-dtype"/s//"--zz-cache-dtype"/' \
    "$edited/$data/muse-spark-open.json"
  run "$out/build-edited.out" "$bin" build "$edited" -d "$work/edited-site-$side" "${outside[@]}"
  run "$out/diff-verbose.out" "$bin" diff --verbose \
    "$out/sample-site/agentx-manifest.json" "$work/edited-site-$side/agentx-manifest.json"
  run "$out/diff-json.out" "$bin" diff --format json \
    "$out/sample-site/agentx-manifest.json" "$work/edited-site-$side/agentx-manifest.json"
  if [ $have_shared = 1 ]; then
    run "$out/build-real.out" "$bin" build "$real_book" -d "$out/real-site" "${outside[@]}"
    run "$out/stats-real.out" "$bin" stats --json "$real_book"
    run "$out/build-pages.out" "$bin" build "$pages_book" -d "$out/pages-site" "${outside[@]}"
    run "$out/stats-pages.out" "$bin" stats --json "$pages_book"
  fi
}

checkout old "$1"
old_dir=$dir
checkout new "$2"
new_dir=$dir
old_bin=$(binary old "$1" "$old_dir")
new_bin=$(binary new "$2" "$new_dir")
outputs old "$old_bin" "$old_dir"
outputs new "$new_bin" "$new_dir"

# Builds that fail on both sides would compare nothing: each must succeed.
for side in old new; do
  for f in "$work/out-$side"/build-*.out; do
    if [ "$(tail -1 "$f")" != "exit code: 0" ]; then
      echo "$side: $(basename "$f" .out) failed; nothing to compare (run it by hand to see why)" >&2
      exit 1
    fi
  done
done

# A site directory is a link to the staging directory the build swapped in
# (`.sample-site-RANDOM` beside it): compared through the link, the hidden
# directories (names differ by side) left out.
files=$(cd "$work/out-old" && find -L . -mindepth 1 -name '.*' -prune -o -type f -print | wc -l)
if diff -r -q -x '.*' "$work/out-old" "$work/out-new" >"$work/differences"; then
  echo "same output: $files files identical ($1 vs $2)"
  exit 0
fi
echo "OUTPUT DIFFERS ($1 vs $2):"
sed "s#$work/##g" "$work/differences"
while read -r line; do
  case $line in
    Files\ *)
      a=$(echo "$line" | awk '{print $2}')
      b=$(echo "$line" | awk '{print $4}')
      echo "--- ${a#"$work"/}"
      diff -u "$a" "$b" | head -40 || true
      ;;
  esac
done <"$work/differences"
exit 1
