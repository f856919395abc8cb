//! mdBook's own include syntax formed by data text: `{{#include …}}` split
//! over two env values, two arguments, a value and the line after it, a
//! config file's lines. mdBook's `links` preprocessor runs after ours over
//! the whole page and reads the file into the site; every form is refused
//! (at load, with the JSON path; in `sync`, with the recipe's file and line),
//! and real `mdbook build` never publishes the canary file.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support;

/// What the canary file holds: must appear in no output.
const CANARY: &str = "CANARY-5d1e-the-build-machine-file";

/// (name, JSON pointer of the edit, value, the JSON path a refusal names).
type Variant = (&'static str, Vec<(&'static str, Value)>, &'static str);

/// The ways data text joins into a link (`{target}` is the canary's path).
fn variants(target: &str) -> Vec<Variant> {
    let open = format!("{{{{#include {target} ");
    vec![
        (
            "two-env-values",
            vec![("/envs/0/AAA", json!(open)), ("/envs/0/AAB", json!("}}"))],
            "envs[0].AAA",
        ),
        (
            "flag-and-values",
            vec![("/kvMooncake/args/0", json!(["--x", open, "}}"]))],
            "kvMooncake.args[0][1]",
        ),
        (
            "neighbouring-args",
            vec![
                ("/kvMooncake/args/0", json!(["--a", open])),
                ("/kvMooncake/args/1", json!(["--b", "}}"])),
            ],
            "kvMooncake.args[0][1]",
        ),
        (
            "file-lines",
            vec![(
                "/files/nats.conf#00000001/content",
                json!(format!("max_payload: 1\n{{{{\n#include\n{target}\n}}}}\n")),
            )],
            "files.nats.conf#00000001.content",
        ),
        (
            "escape-split-over-lines",
            vec![(
                "/files/nats.conf#00000001/content",
                json!(format!("\\{{{{#include {target}\n}}}}\n")),
            )],
            "files.nats.conf#00000001.content",
        ),
        (
            "disclosure-note",
            vec![("/cells/0/disclosures/0", json!(format!("{open}}}}}")))],
            "cells[0].disclosures[0]",
        ),
    ]
}

/// The mini book with one chapter per variant, each showing its own data
/// file, and the canary file in the book.
fn book(name: &str, on_error: &str) -> (support::Scratch, Vec<Variant>) {
    let book = support::mini_book(name);
    let canary = book.join("canary.txt");
    std::fs::write(&canary, CANARY).unwrap();
    let base: Value =
        serde_json::from_str(&support::read(&support::fixture("data/mini.json"))).unwrap();
    let variants = variants(&canary.display().to_string());
    let mut summary = String::from("# Summary\n\n- [Mini](mini.md)\n");
    for (i, (vname, edits, _)) in variants.iter().enumerate() {
        let mut v = base.clone();
        v["model"] = json!(format!("Joined {i}"));
        for (ptr, value) in edits {
            let (parent, key) = ptr.rsplit_once('/').unwrap();
            let slot = v.pointer_mut(parent).unwrap();
            match slot {
                Value::Array(a) => a[key.parse::<usize>().unwrap()] = value.clone(),
                Value::Object(o) => {
                    o.insert(key.to_string(), value.clone());
                }
                _ => panic!("{ptr}"),
            }
        }
        std::fs::write(book.join(format!("data/{vname}.json")), v.to_string()).unwrap();
        let chapter = format!("# {vname}\n\n<<agentx data=\"data/{vname}.json\">>\n");
        std::fs::write(book.join(format!("src/{vname}.md")), chapter).unwrap();
        summary.push_str(&format!("- [{vname}]({vname}.md)\n"));
    }
    std::fs::write(book.join("src/SUMMARY.md"), summary).unwrap();
    let toml = format!(
        "[book]\ntitle = \"Joined\"\nsrc = \"src\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\non-error = \"{on_error}\"\n"
    );
    std::fs::write(book.join("book.toml"), toml).unwrap();
    (book, variants)
}

/// No file under `dir` holds the canary's text.
fn assert_no_canary(what: &str, dir: &Path) {
    let files = support::files_under(dir);
    assert!(!files.is_empty(), "{what}: nothing written");
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(CANARY),
            "{what}: {} holds the canary file's text",
            path.display()
        );
    }
}

/// Each variant is refused when its data file loads, naming the JSON path
/// of the string that opens the link.
#[test]
fn joined_mdbook_links_are_refused_at_load() {
    let (book, variants) = book("joined-load", "fail");
    for (vname, _, path) in &variants {
        let file = book.join(format!("data/{vname}.json"));
        let err = format!("{:#}", mdbook_agentx::decode_file(&file).unwrap_err());
        assert!(
            err.contains(&format!("{path}: `")) && err.contains("opens mdBook's include syntax"),
            "{vname}: {err}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .arg("build")
        .arg(&*book)
        .arg("-d")
        .arg(book.join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("opens mdBook's include syntax"), "{stderr}");
}

/// With `on-error = "warn"` the chapters build with the problem shown, and
/// neither real `mdbook build` nor the portable Markdown holds the canary
/// file or a link that would read it.
#[test]
fn joined_mdbook_links_never_publish_a_file() {
    let (book, _) = book("joined-mdbook", "warn");
    let md = book.join("out-md");
    let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(["markdown", "-d"])
        .arg(&md)
        .arg(&*book)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (path, bytes) in support::files_under(&md) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("{{#include") && !text.contains(CANARY),
            "{}: {text}",
            path.display()
        );
    }
    if support::mdbook_available() {
        let site = book.join("out-mdbook");
        support::mdbook_build(&book, &site);
        assert_no_canary("mdbook build", &site);
    }
}

/// A recipe whose two env values join into a link: `sync` refuses it with
/// the recipe's file and line and writes nothing. (Were anything written, a
/// real `mdbook build` of it must still not publish the canary.)
#[test]
fn sync_refuses_a_recipe_that_joins_an_mdbook_link() {
    let canary = support::temp("joined-sync-canary");
    std::fs::write(&canary, CANARY).unwrap();
    // Two kept env names, printed next to each other (sorted).
    let (dir, o) = crate::text_inputs::sync_edited_recipe("joined-sync", |text| {
        text.replacen(
            "        NCCL_CUMEM_ENABLE: \"1\"\n",
            &format!(
                "        NCCL_CUMEM_ENABLE: \"{{{{#include {} \"\n        NCCL_MNNVL_ENABLE: \"}}}}\"\n",
                canary.display()
            ),
            1,
        )
    });
    let out = dir.join("out");
    let stderr = crate::sync::stderr(&o);
    if out.exists() && support::mdbook_available() {
        let book = support::mini_book("joined-sync-book");
        support::copy_dir(&out, &book.join("data"));
        let page = "<<agentx page=\"Demo-30B\">>\n";
        std::fs::write(book.join("src/mini.md"), format!("# Demo\n\n{page}")).unwrap();
        support::mdbook_build(&book, &book.join("site"));
        assert_no_canary("mdbook build of the synced data", &book.join("site"));
    }
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(!out.exists(), "a refused sync wrote {}", out.display());
    assert!(
        stderr.contains(
            "b200-fp8/disagg.yaml@a1b2c3d4: line 34: `{{#` opens mdBook's include syntax"
        ),
        "{stderr}"
    );
}
