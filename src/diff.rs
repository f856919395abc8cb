//! `diff` between two builds: each side is a manifest file, a built site or
//! a git ref of the book (expanded in a scratch copy); the comparison itself
//! is [`crate::manifest::compare`]. Here: loading the sides, and the Markdown
//! table and unified diffs for a pull-request description.
//!
//! May use: `manifest`, `site` (the manifest of a book at a git ref), `util`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::manifest::{
    LAUNCHES_VERSION, LEGACY_MANIFEST, MANIFEST, Manifest, ManifestDiff, texts_by_key,
};
use crate::util::escape;
use crate::util::notice::Notice;

/// The largest manifest `diff` reads. Why 1 GiB: a book 100× the sample
/// writes a manifest of about 200 MiB; a FIFO or `/dev/zero` must still end.
const MAX_MANIFEST: u64 = 1 << 30;

/// Reads a manifest from a manifest file, or a built site directory holding
/// one (`launches.json`, or `agentx-manifest.json` of an older build). The
/// stored hashes are not trusted: comparisons use the text.
pub(crate) fn read_manifest(path: &Path) -> Result<Manifest> {
    let file = if path.is_dir() {
        let legacy = path.join(LEGACY_MANIFEST);
        match path.join(MANIFEST) {
            current if !current.exists() && legacy.exists() => legacy,
            current => current,
        }
    } else {
        path.to_path_buf()
    };
    let text = crate::util::fs::read_regular_to_string(&file, MAX_MANIFEST).with_context(|| {
        format!(
            "cannot read {}; give a manifest ({MANIFEST}), a built site directory, or a git \
             ref of the book",
            file.display()
        )
    })?;
    let mut manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not an mdbook-agentx manifest", file.display()))?;
    if manifest.version > LAUNCHES_VERSION {
        bail!(
            "{}: {MANIFEST} version {} is newer than this mdbook-agentx reads ({LAUNCHES_VERSION}); \
             upgrade mdbook-agentx",
            file.display(),
            manifest.version
        );
    }
    for e in &mut manifest.command_sets {
        e.hash = crate::manifest::text_hash(&e.text);
    }
    Ok(manifest)
}

/// The commit `spec` names in the repository holding `book`, if it names
/// one (and `book` is in a repository). `spec` reaches git after
/// `--end-of-options`, so a name like `--output=FILE` is never an option.
fn commit_of(book: &Path, spec: &str) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(book)
        .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{spec}^{{commit}}"))
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let sha = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !sha.is_empty() && sha.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(sha)
}

/// Builds the manifest of the book as it is at a commit, in a scratch copy.
/// `shown` names the commit in messages.
fn manifest_at_commit(book: &Path, commit: &str, shown: &str) -> Result<(Manifest, Vec<Notice>)> {
    with_book_at_commit(book, commit, &mut |at| {
        crate::site::book_manifest(at, &mut |_| {})
            .with_context(|| format!("building the book at {shown}"))
    })
}

/// Runs `f` on the book at `book` as it is at `commit`, unpacked into a
/// scratch directory that is removed afterwards, whatever happens. `f`
/// gets the book's directory in the scratch copy (the same path below the
/// repository's top as `book`).
pub(crate) fn with_book_at_commit<T>(
    book: &Path,
    commit: &str,
    f: &mut dyn FnMut(&Path) -> Result<T>,
) -> Result<T> {
    let book =
        std::fs::canonicalize(book).with_context(|| format!("cannot open {}", book.display()))?;
    let top = git(&book, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(top.trim());
    let sub = book
        .strip_prefix(&top)
        .unwrap_or(Path::new(""))
        .to_path_buf();
    // Removed when dropped, whatever happens below.
    let scratch = tempfile::Builder::new()
        .prefix("agentx-diff-")
        .tempdir()
        .context("cannot create a scratch directory")?;
    unpack_commit(&top, commit, scratch.path())?;
    f(&scratch.path().join(&sub))
}

/// The commit `spec` names in the repository holding `book`: an error
/// naming the ref and the fix when it names none.
pub(crate) fn resolve_commit(book: &Path, spec: &str) -> Result<String> {
    if let Some(commit) = commit_of(book, spec) {
        return Ok(commit);
    }
    if git(book, &["rev-parse", "--show-toplevel"]).is_err() {
        bail!(
            "{} is not in a git repository, so `{spec}` names no commit of it; run this in a \
             clone of the book's repository",
            book.display()
        );
    }
    bail!(
        "`{spec}` is not a commit of the git repository holding {}; fetch it first (`git fetch \
         origin main` makes `origin/main`; in GitHub Actions, actions/checkout with \
         `fetch-depth: 0`), or name another ref or commit",
        book.display()
    )
}

/// The files of `commit` of the repository at `top`, unpacked into `into`:
/// git's archive streams into tar, never held in memory whole.
fn unpack_commit(top: &Path, commit: &str, into: &Path) -> Result<()> {
    use std::process::{Command, Stdio};
    let mut archive = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["archive", "--format=tar", "--end-of-options", commit])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running git archive")?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(archive.stdout.take().expect("piped"))
        .output()
        .context("running tar")?;
    let archived = archive.wait_with_output().context("running git archive")?;
    if !archived.status.success() {
        bail!(
            "git archive {commit}: {}",
            String::from_utf8_lossy(&archived.stderr).trim()
        );
    }
    if !tar.status.success() {
        bail!(
            "tar could not unpack git archive {commit}: {}",
            String::from_utf8_lossy(&tar.stderr).trim()
        );
    }
    Ok(())
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A side of a diff: a manifest file, a built directory, or a git ref of
/// `book`. A name that is both a path and a ref is an error saying so: a
/// silent choice would compare something the user did not mean. Building a
/// ref may have warnings to give; they come with the manifest.
pub fn load_side(spec: &str, book: &Path) -> Result<(Manifest, Vec<Notice>)> {
    let p = Path::new(spec);
    let is_path = std::fs::symlink_metadata(p).is_ok();
    match (is_path, commit_of(book, spec)) {
        (true, Some(_)) => bail!(
            "`{spec}` is both a path and a git ref of the book; write `./{spec}` for the path \
             (a manifest or a built site) or `{spec}^{{commit}}` for the ref"
        ),
        (true, None) => Ok((read_manifest(p)?, Vec::new())),
        (false, Some(commit)) => manifest_at_commit(book, &commit, spec),
        (false, None) => bail!(
            "`{spec}` is neither a file, a directory nor a git ref of the book in {}",
            book.display()
        ),
    }
}

/// The Markdown table of a comparison, with a total row.
pub fn table(d: &ManifestDiff) -> String {
    let mut t = String::from(
        "| Page | Identical | Added | Removed | Changed |\n|---|---:|---:|---:|---:|\n",
    );
    let (mut i, mut a, mut r, mut c) = (0, 0, 0, 0);
    for p in &d.pages {
        t.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            escape::table_cell(&escape::text(&p.page)),
            p.identical,
            p.added.len(),
            p.removed.len(),
            p.changed.len()
        ));
        i += p.identical;
        a += p.added.len();
        r += p.removed.len();
        c += p.changed.len();
    }
    t.push_str(&format!("| **Total** | {i} | {a} | {r} | {c} |\n"));
    t
}

/// The table, then each added, removed and changed command set; changed
/// ones with a unified diff of their text.
pub fn verbose(d: &ManifestDiff, old: &Manifest, new: &Manifest) -> String {
    // Indexed once: a lookup per changed set must not scan the manifest.
    let (old, new) = (texts_by_key(old), texts_by_key(new));
    let text = |m: &BTreeMap<(&str, &str), &str>, page: &str, id: &str| -> String {
        m.get(&(page, id)).copied().unwrap_or_default().to_string()
    };
    let mut out = table(d);
    // Page names, ids and texts come from manifests: Markdown through the
    // escaping module (a text with a backtick run gets a longer fence).
    for p in &d.pages {
        let page = escape::text(&p.page);
        for id in &p.added {
            out.push_str(&format!("\n**Added** {page} {}\n", escape::code(id)));
        }
        for id in &p.removed {
            out.push_str(&format!("\n**Removed** {page} {}\n", escape::code(id)));
        }
        for id in &p.changed {
            out.push_str(&format!("\n**Changed** {page} {}\n\n", escape::code(id)));
            let diff = unified_diff(&text(&old, &p.page, id), &text(&new, &p.page, id), 3);
            let block = escape::fenced("diff", diff.trim_end_matches('\n'));
            out.push_str(block.trim_end_matches('\n'));
            out.push('\n');
        }
    }
    out
}

/// A unified diff of two texts by lines (Myers, linear in practice), with
/// `context` lines around changes. Hunk headers always give the line count
/// (`@@ -10,1 +10,2 @@`), as this tool has always printed them.
pub(crate) fn unified_diff(a: &str, b: &str, context: usize) -> String {
    use similar::DiffTag;
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b);
    let mut out = String::new();
    for hunk in similar::group_diff_ops(ops, context) {
        let (_, first_old, first_new) = hunk[0].as_tag_tuple();
        let (mut body, mut a_len, mut b_len) = (String::new(), 0, 0);
        for op in &hunk {
            let (tag, old, new) = op.as_tag_tuple();
            let mut lines = |mark: char, range: std::ops::Range<usize>, side: &[&str]| {
                for line in &side[range] {
                    body.push(mark);
                    body.push_str(line);
                    body.push('\n');
                }
            };
            // Deletions before insertions, as unified diffs show them.
            match tag {
                DiffTag::Equal => lines(' ', old.clone(), &a),
                DiffTag::Delete | DiffTag::Replace | DiffTag::Insert => {
                    lines('-', old.clone(), &a);
                    lines('+', new.clone(), &b);
                }
            }
            a_len += old.len();
            b_len += new.len();
        }
        out.push_str(&format!(
            "@@ -{},{a_len} +{},{b_len} @@\n{body}",
            first_old.start + usize::from(a_len > 0),
            first_new.start + usize::from(b_len > 0),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_diff_hunks() {
        let a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let b = "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n";
        assert_eq!(
            unified_diff(a, b, 1),
            "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n@@ -10,1 +10,2 @@\n j\n+k\n"
        );
        assert_eq!(unified_diff("x\n", "x\n", 3), "");
        assert_eq!(unified_diff("", "new\n", 3), "@@ -0,0 +1,1 @@\n+new\n");
        // A moved line: removed where it was, added where it goes.
        assert_eq!(
            unified_diff("a\nb\nc\nd\n", "b\nc\nd\na\n", 1),
            "@@ -1,2 +1,1 @@\n-a\n b\n@@ -4,1 +3,2 @@\n d\n+a\n"
        );
        // Far from quadratic: 20,000 lines each side with one change.
        let big: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let changed = big.replacen("line 10000\n", "line ten thousand\n", 1);
        assert_eq!(
            unified_diff(&big, &changed, 0),
            "@@ -10001,1 +10001,1 @@\n-line 10000\n+line ten thousand\n"
        );
    }
}
