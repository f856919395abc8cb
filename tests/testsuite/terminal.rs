//! Text from data, manifests, recipes and chapters printed to a terminal:
//! control characters (`ESC[2K` erases the line above, CR returns to the
//! line's start, U+009B is CSI to some terminals) are shown as escapes by
//! every command, never written raw.

use std::path::Path;
use std::process::{Command, Output};

use mdbook_agentx::{Manifest, ManifestEntry, decode_str};

use crate::support;

/// `ESC[2K` (erase the line), CR, and the C1 CSI.
const HIDING: &str = "\u{1b}[2K\r\u{9b}2K";

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(args)
        .output()
        .unwrap()
}

/// Neither stream holds a byte a terminal would act on (ESC, CR, C1), and
/// `want` (the visible escape) is in one of them.
fn assert_shown_escaped(what: &str, o: &Output, want: &str) {
    for (name, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        let raw = text
            .char_indices()
            .find(|(_, c)| c.is_control() && *c != '\n' && *c != '\t');
        assert!(raw.is_none(), "{what}: raw {raw:?} in {name}: {text:?}");
    }
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(all.contains(want), "{what}: {want:?} not in {all:?}");
}

/// An error message that quotes data (the text after mdBook's `{{#`).
#[test]
fn errors_show_data_escaped() {
    let dir = support::temp("terminal-decode");
    std::fs::create_dir(&*dir).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&support::read(&support::fixture("data/mini.json"))).unwrap();
    v["cells"][0]["label"] = format!("{{{{#x {HIDING}").into();
    let file = dir.join("bad.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let o = run(&["decode".as_ref(), "--json".as_ref(), file.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    assert_shown_escaped("decode", &o, "\\x1b[2K\\r\\u{9b}2K");
    let o = run(&["stats".as_ref(), file.as_os_str()]);
    assert_shown_escaped("stats", &o, "\\x1b[2K");
}

fn manifest(text: &str) -> Manifest {
    let page = decode_str(text, Path::new("mini.json")).unwrap().page;
    let entries = page
        .command_sets()
        .map(|s| ManifestEntry::of(&page.model, s));
    Manifest::new(entries.collect())
}

/// Manifests are read from built sites and git refs of a pull request:
/// `diff` shows their text escaped, as a table, verbose and JSON.
#[test]
fn diff_shows_manifest_text_escaped() {
    let dir = support::temp("terminal-diff");
    std::fs::create_dir(&*dir).unwrap();
    let old = manifest(&support::read(&support::fixture("data/mini.json")));
    let mut new = old.clone();
    new.command_sets[0]
        .text
        .push_str(&format!("curl x | sh{HIDING}\n"));
    new.command_sets[0].hash = "changed".into();
    let mut other = new.command_sets[1].clone();
    other.page = format!("Mini{HIDING}");
    new.command_sets.push(other);
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, serde_json::to_string(&old).unwrap()).unwrap();
    std::fs::write(&b, serde_json::to_string(&new).unwrap()).unwrap();
    for extra in [&["--verbose"][..], &[], &["--format", "json"]] {
        let mut args: Vec<&std::ffi::OsStr> = vec!["diff".as_ref(), a.as_os_str(), b.as_os_str()];
        args.extend(
            extra
                .iter()
                .map(|s: &&str| -> &std::ffi::OsStr { s.as_ref() }),
        );
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let want = match extra.first() {
            Some(&"--format") => "\\u001b[2K\\r\\u009b2K",
            // The changed text, in its diff block (split at the CR).
            Some(_) => "curl x | sh\\x1b[2K\n\\u{9b}2K",
            // The page name, Markdown text in a table cell.
            None => "Mini\\x1b\\[2K \\u{9b}2K",
        };
        assert_shown_escaped(&format!("diff {extra:?}"), &o, want);
    }
}

/// A lane manifest's note, in `sync`'s report on stdout.
#[test]
fn sync_report_shows_manifest_text_escaped() {
    let dir = support::temp("terminal-sync");
    std::fs::create_dir(&*dir).unwrap();
    let lanes = support::read(&crate::sync::fixture("demo-lanes.toml"))
        .replace(
            "../../../flags/",
            &format!("{}/flags/", support::repo().display()),
        )
        .replace(
            "pr = 12\n",
            "pr = 12\nnote = \"see \\u001b[2K\\r\\u009b2K\"\n",
        );
    std::fs::write(dir.join("lanes.toml"), lanes).unwrap();
    let o = crate::sync::sync(
        &dir.join("lanes.toml"),
        &crate::sync::fixture("snapshot"),
        Some(&crate::sync::fixture("previous")),
        &dir.join("out"),
    );
    assert!(o.status.success(), "{}", crate::sync::stderr(&o));
    // The note is Markdown text: `[` escaped, the CR a space.
    assert_shown_escaped("sync", &o, "see \\x1b\\[2K \\u{9b}2K");
}
