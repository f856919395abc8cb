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
    // About 0.75 MiB each (60 sections and three deployment chapters).
    let chapter = "<<agentx page=\"Mini-Test\">>\n\n".repeat(60);
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
    assert!(
        err.contains("plain.html: the build would write more than the 1 MiB of `max-site-mib`"),
        "{err}"
    );
    assert!(!book.join("book").exists(), "nothing is published");
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
