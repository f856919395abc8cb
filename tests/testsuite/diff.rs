//! `diff`: manifests of two versions of a data file, compared per page.

use std::path::Path;
use std::process::Command;

use mdbook_agentx::{
    Manifest, ManifestEntry, compare_manifests as compare, decode_str, diff_table, diff_verbose,
};

use crate::support;

fn manifest_of(text: &str) -> Manifest {
    let page = decode_str(text, Path::new("mini.json")).unwrap().page;
    Manifest::new(
        page.command_sets()
            .map(|s| ManifestEntry::of(&page.model, s))
            .collect(),
    )
}

/// Version 2 of the fixture, changed by hand in three ways whose effect is
/// counted below: one point's patch value, one point removed, one point added.
fn version_two(v1: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(v1).unwrap();
    // c4's SGLang patch: --max-running-requests 8 → 9 (its 3 tiers change).
    v["cells"][0]["points"][1]["patch"]["sglang"][0]["args"]["--max-running-requests"] =
        serde_json::json!(["9"]);
    // c8/c16 removed: 2 routers × 3 tiers.
    v["cells"][0]["points"].as_array_mut().unwrap().remove(2);
    // c256 added to the disaggregated cell: 2 routers × 2 tiers.
    v["cells"][1]["points"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"concs": [256], "item": 2, "kv": "mooncake"}));
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn counts_per_page() {
    let v1 = support::read(&support::fixture("data/mini.json"));
    let v2 = version_two(&v1);
    let (a, b) = (manifest_of(&v1), manifest_of(&v2));
    let sets = support::raw_counts(&support::fixture("data/mini.json")).command_sets;
    assert_eq!(a.command_sets.len(), sets);
    // Version 2 removes 6 sets and adds 4 (see `version_two`).
    assert_eq!(b.command_sets.len(), sets - 6 + 4);
    let d = compare(&a, &b);
    assert_eq!(d.pages.len(), 1);
    let p = &d.pages[0];
    assert_eq!(
        (p.identical, p.added.len(), p.removed.len(), p.changed.len()),
        (21, 4, 6, 3)
    );
    assert_eq!(
        p.changed,
        [
            "mini-fp8-h200-sglang-agentic-mtp-0-c4-hicache-sglang",
            "mini-fp8-h200-sglang-agentic-mtp-0-c4-mooncake-sglang",
            "mini-fp8-h200-sglang-agentic-mtp-0-c4-none-sglang",
        ]
    );
    assert!(p.added.iter().all(|id| id.contains("-c256-")));
    assert!(p.removed.iter().all(|id| id.contains("-c8-16-")));
    assert_eq!(
        diff_table(&d),
        "| Page | Identical | Added | Removed | Changed |\n|---|---:|---:|---:|---:|\n| Mini-Test | 21 | 4 | 6 | 3 |\n| **Total** | 21 | 4 | 6 | 3 |\n"
    );
    let verbose = diff_verbose(&d, &a, &b);
    assert!(
        verbose.contains("-  --max-running-requests 8 \\\n+  --max-running-requests 9 \\\n"),
        "{verbose}"
    );
    assert!(
        verbose.contains(
            "**Removed** Mini-Test `mini-fp8-h200-sglang-agentic-mtp-0-c8-16-none-dynamo`"
        )
    );
    // Identical inputs: nothing to report.
    assert!(compare(&a, &manifest_of(&v1)).is_empty());
}

#[test]
fn cli_over_built_sites_and_git_refs() {
    let tmp = support::temp("diff-cli");
    let book = tmp.join("book");
    write_mini_book(&book);
    let v1 = support::read(&support::fixture("data/mini.json"));
    std::fs::write(book.join("data/mini.json"), &v1).unwrap();
    let bin = env!("CARGO_BIN_EXE_mdbook-agentx");
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .current_dir(&book)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let git = |args: &[&str]| {
        let st = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&book)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
    };
    run(&["build", "-d", "../old", "--allow-dest-outside"]);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "v1"]);
    std::fs::write(book.join("data/mini.json"), version_two(&v1)).unwrap();
    run(&["build", "-d", "../new", "--allow-dest-outside"]);
    let want = "| Mini-Test | 21 | 4 | 6 | 3 |";
    assert!(run(&["diff", "../old", "../new"]).contains(want));
    assert!(run(&["diff", "../old/launches.json", "../new/launches.json"]).contains(want));
    // A git ref: the book as committed, built in a scratch copy.
    assert!(run(&["diff", "HEAD", "../new"]).contains(want));
    let json: serde_json::Value =
        serde_json::from_str(&run(&["diff", "HEAD", "../new", "--format", "json"])).unwrap();
    assert_eq!(json["pages"][0]["identical"], 21);
    let out = Command::new(bin)
        .args(["diff", "no-such-ref", "../new"])
        .current_dir(&book)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("is neither a file, a directory nor a git ref")
    );
    refs_are_never_options_nor_silently_paths(&book, &run);
}

/// Regression: `diff -- --output=FILE HEAD` reached git as an option and
/// truncated FILE; a path silently won over a ref of the same name.
fn refs_are_never_options_nor_silently_paths(book: &Path, run: &dyn Fn(&[&str]) -> String) {
    let bin = env!("CARGO_BIN_EXE_mdbook-agentx");
    let fail = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .current_dir(book)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let victim = book.join("../victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let err = fail(&["diff", "--", "--output=../victim.txt", "HEAD"]);
    assert!(
        err.contains("is neither a file, a directory nor a git ref"),
        "{err}"
    );
    assert_eq!(support::read(&victim), "keep me");
    // `old` names a directory and, once tagged, a ref too; it holds the
    // manifest under the name builds before launches.json gave it.
    std::fs::create_dir_all(book.join("old")).unwrap();
    std::fs::copy(
        book.join("../old/launches.json"),
        book.join("old/agentx-manifest.json"),
    )
    .unwrap();
    let want = "| Mini-Test | 21 | 4 | 6 | 3 |";
    assert!(run(&["diff", "old", "../new"]).contains(want));
    let tag = Command::new("git")
        .args(["tag", "old"])
        .current_dir(book)
        .output()
        .unwrap();
    assert!(tag.status.success());
    let err = fail(&["diff", "old", "../new"]);
    assert!(
        err.contains("`old` is both a path and a git ref of the book; write `./old` for the path"),
        "{err}"
    );
    assert!(run(&["diff", "./old", "../new"]).contains(want));
    assert!(run(&["diff", "old^{commit}", "../new"]).contains(want));
}

/// A manifest of one command set with `text` and a stored hash of "0".
fn one_set_manifest(text: &str) -> String {
    serde_json::json!({
        "generator": "test",
        "command_sets": [{
            "id": "a", "page": "P", "cell": "c", "concs": [1], "tier": "none",
            "router": "sglang", "status": "derived", "hash": "0", "text": text
        }]
    })
    .to_string()
}

/// A manifest of a newer schema is refused, naming the fix.
#[test]
fn newer_manifest_versions_are_refused() {
    let tmp = support::temp("diff-version");
    std::fs::create_dir_all(&*tmp).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&one_set_manifest("x")).unwrap();
    v["version"] = 2.into();
    std::fs::write(tmp.join("new.json"), v.to_string()).unwrap();
    std::fs::write(tmp.join("old.json"), one_set_manifest("x")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(["diff", "old.json", "new.json"])
        .current_dir(&*tmp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("launches.json version 2 is newer than this mdbook-agentx reads (1); upgrade"),
        "{err}"
    );
}

/// The stored hash is not trusted, and a unified diff of 20,000 lines each
/// side that share little runs in linear memory: the binary runs under a
/// 256 MiB address-space limit (the old table of old × new lines needed
/// 3.1 GB for this).
#[cfg(unix)]
#[test]
fn verbose_diff_of_long_texts_in_bounded_memory_and_hashes_recomputed() {
    let tmp = support::temp("diff-long");
    std::fs::create_dir_all(&*tmp).unwrap();
    // Two pseudo-random texts over four lines: many partial matches, the
    // hard case for a line diff.
    let mut x: u32 = 1;
    let mut text = || -> String {
        (0..20_000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                format!("{}\n", ["a", "b", "c", "d"][(x >> 16) as usize % 4])
            })
            .collect()
    };
    let (a, b) = (text(), text());
    std::fs::write(tmp.join("a.json"), one_set_manifest(&a)).unwrap();
    std::fs::write(tmp.join("b.json"), one_set_manifest(&b)).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 262144 && exec \"$0\" diff --verbose a.json b.json")
        .arg(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .current_dir(&*tmp)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Both hashes say "0"; the texts differ, so the set changed.
    assert!(
        stdout.contains("| P | 0 | 0 | 0 | 1 |"),
        "{}",
        &stdout[..200]
    );
    // The printed hunks turn the old text into the new one.
    assert!(
        apply_hunks(&a, &stdout) == b,
        "the hunks do not give the new text"
    );
}

/// Applies the unified diff hunks (`@@ -start,len +start,len @@`) found in
/// `diff` to `old`.
fn apply_hunks(old: &str, diff: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let (mut out, mut at) = (String::new(), 0);
    let copy = |out: &mut String, l: &str| {
        out.push_str(l);
        out.push('\n');
    };
    for line in diff.lines().skip_while(|l| !l.starts_with("@@")) {
        if let Some(h) = line.strip_prefix("@@ -") {
            let (start, len) = h.split_once(' ').unwrap().0.split_once(',').unwrap();
            let (start, len): (usize, usize) = (start.parse().unwrap(), len.parse().unwrap());
            let first = if len == 0 { start } else { start - 1 };
            old[at..first].iter().for_each(|l| copy(&mut out, l));
            at = first;
        } else if let Some(l) = line.strip_prefix('+') {
            copy(&mut out, l);
        } else if let Some(l) = line.strip_prefix(' ').or(line.strip_prefix('-')) {
            assert_eq!(old[at], l, "hunk line {at} matches the old text");
            if line.starts_with(' ') {
                copy(&mut out, l);
            }
            at += 1;
        }
    }
    old[at..].iter().for_each(|l| copy(&mut out, l));
    out
}

/// The mini fixture book with one directive, its data in `data/`.
fn write_mini_book(book: &Path) {
    std::fs::create_dir_all(book.join("src")).unwrap();
    std::fs::create_dir_all(book.join("data")).unwrap();
    std::fs::write(
        book.join("book.toml"),
        "[book]\ntitle = \"Mini\"\nsrc = \"src\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\n",
    )
    .unwrap();
    for f in ["SUMMARY.md", "plain.md"] {
        let from = support::fixture("books/mini/src").join(f);
        std::fs::copy(from, book.join("src").join(f)).unwrap();
    }
    std::fs::write(
        book.join("src/mini.md"),
        "# Mini\n\n<<agentx page=\"Mini-Test\">>\n",
    )
    .unwrap();
}
