//! Bounded work (issue 25): inputs made to expand without end are refused
//! with a message naming the bound, where it was passed and the fix, and
//! nothing is published. What each bound costs before and after is in
//! docs/BENCHMARKS.md ("Bounded work"), measured, never asserted here.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support;

fn run(args: &[&str], dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn set_max_site_mib(book: &Path, mib: u64) {
    let toml = book.join("book.toml");
    let text = support::read(&toml).replace(
        "[preprocessor.agentx]\n",
        &format!("[preprocessor.agentx]\nmax-site-mib = {mib}\n"),
    );
    std::fs::write(toml, text).unwrap();
}

/// Directives whose Markdown passes `max-site-mib` stop the expansion at
/// the directive that passes it, before any page is made.
#[test]
fn expansion_past_max_site_mib_stops_at_the_directive() {
    let book = support::mini_book("bounds-markdown");
    set_max_site_mib(&book, 1);
    // Each section of Mini-Test is some KiB of Markdown: 1 MiB passes
    // within a few hundred of them.
    let chapter = "<<agentx page=\"Mini-Test\">>\n\n".repeat(2_000);
    std::fs::write(book.join("src/plain.md"), format!("# Plain\n\n{chapter}")).unwrap();
    let (code, err) = run(&["build", "."], &book);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("src/plain.md:"), "{err}");
    assert!(
        err.contains(
            "the build would write more than the 1 MiB of `max-site-mib` (mdbook-agentx's bound \
             on what a build writes, with the Markdown the directives expand to); raise \
             `max-site-mib` under [preprocessor.agentx]"
        ),
        "{err}"
    );
    assert!(!book.join("book").exists(), "nothing is published");
    // The same book builds when the bound is raised.
    let toml = book.join("book.toml");
    let text = support::read(&toml).replace("max-site-mib = 1\n", "max-site-mib = 256\n");
    std::fs::write(toml, text).unwrap();
    let (code, err) = run(&["build", "."], &book);
    assert_eq!(code, 0, "{err}");
}

/// Chapters each under `max-site-mib` but over it together: the
/// expansion stops at the chapter that passes it.
#[test]
fn chapters_past_max_site_mib_together_stop_at_the_chapter() {
    let book = support::mini_book("bounds-chapters");
    set_max_site_mib(&book, 1);
    // Under 1 MiB of Markdown each, over it together (150 sections, the
    // first with the model's launch data and the others naming it, and
    // three deployment chapters; 100 already pass 1 MiB together, 200 do
    // not alone).
    let chapter = "<<agentx page=\"Mini-Test\">>\n\n".repeat(150);
    for name in ["mini", "plain"] {
        let text = format!("# {name}\n\n{chapter}");
        std::fs::write(book.join(format!("src/{name}.md")), text).unwrap();
    }
    let (code, err) = run(&["build", "."], &book);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("src/plain.md: the build would write more than the 1 MiB of `max-site-mib`"),
        "{err}"
    );
    assert!(!book.join("book").exists(), "nothing is published");
}

/// A site whose files pass `max-site-mib` (here one chapter of plain text,
/// no directive) is refused at the file that passes it.
#[test]
fn files_past_max_site_mib_are_refused_at_the_page() {
    let book = support::mini_book("bounds-site");
    set_max_site_mib(&book, 1);
    let text = "Plain words, no directive.\n\n".repeat(60_000);
    std::fs::write(book.join("src/plain.md"), format!("# Plain\n\n{text}")).unwrap();
    let (code, err) = run(&["build", "."], &book);
    assert_eq!(code, 1, "{err}");
    // The page's Markdown twin (`plain.md`, issue 28) is written just
    // before its HTML, so it is the first file past the bound.
    assert!(
        err.contains("plain.md: the build would write more than the 1 MiB of `max-site-mib`"),
        "{err}"
    );
    assert!(
        !err.contains("src/plain.md"),
        "a site file, not the chapter: {err}"
    );
    assert!(!book.join("book").exists(), "nothing is published");
    // The single file, made in memory, stops at the chapter that passes it.
    let (code, err) = run(&["export", "--single-file", "one.html", "."], &book);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("the single file, at plain.md: the build would write more than the 1 MiB"),
        "{err}"
    );
    assert!(!book.join("one.html").exists());
    let toml = book.join("book.toml");
    let text = support::read(&toml).replace("max-site-mib = 1\n", "max-site-mib = 0\n");
    std::fs::write(toml, text).unwrap();
    let (code, err) = run(&["build", "."], &book);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("max-site-mib must be at least 1"), "{err}");
}

/// Data past a bound is refused by every command that loads it, with the
/// file and the JSON path.
#[test]
fn data_past_a_bound_is_refused_with_its_path() {
    let dir = support::temp("bounds-data");
    std::fs::create_dir_all(&dir).unwrap();
    let mini: Value = serde_json::from_str(&support::read(&support::fixture("data/mini.json")))
        .expect("mini.json");
    type Edit = fn(&mut Value);
    let cases: &[(&str, Edit, &str)] = &[
        (
            "points",
            |d| {
                let first = d["cells"][0]["points"][0].clone();
                d["cells"][0]["points"] = (1..=30_000)
                    .map(|c| {
                        let mut p = first.clone();
                        p["concs"] = json!([c]);
                        p
                    })
                    .collect();
            },
            "points.json: cells[0].points: 30000 points, more than the 256 one deployment may have",
        ),
        (
            "value",
            |d| {
                d["cells"][0]["routers"]["sglang"]["blocks"][0]["args"][0][1] =
                    json!("a".repeat(1 << 20))
            },
            "value.json: cells[0].routers.sglang.blocks[0].args[0][1]: a string of 1048576 bytes, \
             more than the 65536 bytes (64 KiB) one string may have",
        ),
    ];
    for (name, edit, want) in cases {
        let mut data = mini.clone();
        edit(&mut data);
        let file = format!("{name}.json");
        std::fs::write(dir.join(&file), data.to_string()).unwrap();
        let (code, err) = run(&["decode", &file], &dir);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
}

/// A copy of the sync fixture (lane manifest, snapshot folder, previous
/// data) whose master config is replaced by `edit`; (manifest, snapshot,
/// previous) paths.
fn sync_fixture(dir: &Path, edit: impl FnOnce(&Path)) -> [std::path::PathBuf; 3] {
    support::copy_dir(&support::fixture("sync"), dir);
    edit(&dir.join("snapshot/a1b2c3d4/inferencex-e2e/configs/nvidia-master.yaml"));
    let manifest = dir.join("demo-lanes.toml");
    let text = support::read(&manifest).replace(
        "../../../flags/",
        &format!("{}/flags/", support::repo().display()),
    );
    std::fs::write(&manifest, text).unwrap();
    [manifest, dir.join("snapshot"), dir.join("previous")]
}

fn sync_refused(name: &str, edit: impl FnOnce(&Path)) -> String {
    let dir = support::temp(name);
    let [manifest, snapshot, previous] = sync_fixture(&dir, edit);
    let out = dir.join("out");
    let o = crate::sync::sync(&manifest, &snapshot, Some(&previous), &out);
    let err = crate::sync::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!out.exists(), "a refused sync wrote {}", out.display());
    err
}

/// Nine lines of YAML aliases to aliases: refused at the line where the
/// copies pass the bound, naming the file at its commit.
#[test]
fn sync_refuses_a_yaml_alias_bomb() {
    let master = "snapshot/a1b2c3d4/inferencex-e2e/configs/nvidia-master.yaml";
    let lines = support::read(&support::fixture(&format!("sync/{master}")))
        .lines()
        .count();
    let err = sync_refused("bounds-alias-bomb", |master| {
        let mut text = support::read(master);
        text.push_str("bomb-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (from, to) in ('a'..='h').zip('b'..='i') {
            let refs = vec![format!("*{from}"); 9].join(", ");
            text.push_str(&format!("bomb-{to}: &{to} [{refs}]\n"));
        }
        std::fs::write(master, text).unwrap();
    });
    // The bomb's fifth line is where the copies pass the bound.
    let at = format!(
        "inferencex-e2e/configs/nvidia-master.yaml@a1b2c3d4: line {}: ",
        lines + 5
    );
    assert!(err.contains(&at), "{err}");
    assert!(
        err.contains(
            "the document's anchors and aliases copy more than 100000 nodes (mdbook-agentx's \
             bound on YAML aliases"
        ),
        "{err}"
    );
}

/// A master config past the size bound data files have (64 MiB) is
/// refused without being read whole.
#[test]
fn sync_refuses_a_file_past_the_size_bound() {
    let err = sync_refused("bounds-large-yaml", |master| {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(master)
            .unwrap();
        file.set_len((64 << 20) + 1).unwrap();
    });
    assert!(
        err.contains("larger than 64 MiB, the most sync reads of one file"),
        "{err}"
    );
}

/// The same bound on a file of a git directory, checked before `git show`
/// would put all of it in memory.
#[test]
fn sync_refuses_a_git_blob_past_the_size_bound() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("SKIPPED: git is not installed");
        return;
    }
    let dir = support::temp("bounds-large-blob");
    let [manifest, snapshot, previous] = sync_fixture(&dir, |master| {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(master)
            .unwrap();
        file.set_len((64 << 20) + 1).unwrap();
    });
    let git_dir = dir.join("inferencex.git");
    let sha = crate::sync::commit_to_bare_git(&snapshot.join("a1b2c3d4"), &git_dir);
    let text = support::read(&manifest).replace("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", &sha);
    std::fs::write(&manifest, text).unwrap();
    let out = dir.join("out");
    let o = crate::sync::sync(&manifest, &git_dir, Some(&previous), &out);
    let err = crate::sync::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "inferencex-e2e/configs/nvidia-master.yaml at {sha}: larger than 64 MiB"
        )),
        "{err}"
    );
    assert!(!out.exists());
}
