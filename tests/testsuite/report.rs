//! `report --base`: a scratch git repository of the sample book, one data
//! file changed on a branch (one lane retuned, one lane added), and the
//! report checked against counts worked out here from the two versions of
//! the data: the per-page table from the data files' JSON, the added,
//! removed and changed sets from the decoded command sets' Copy all texts,
//! and the distinct and new argument lists per image and entry point from
//! the decoded commands, split into words by this file's own reader.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use mdbook_agentx::{DecodedPage, decode_file, decode_str};
use serde_json::{Value, json};

use crate::support;

/// The data file changed on the branch.
const CHANGED: &str = "agentx/qwen3.8-flash-next.json";

fn bin(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

pub(crate) fn git(dir: &Path, args: &[&str]) {
    support::succeed(
        Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir),
    );
}

/// The sample book with its registries, committed on `main` of a fresh
/// repository.
pub(crate) fn sample_repo(name: &str) -> support::Scratch {
    let book = support::sample_book_copy(name);
    support::copy_dir(&support::repo().join("flags"), &book.join("flags"));
    git(&book, &["init", "-q"]);
    git(&book, &["add", "."]);
    git(&book, &["commit", "-qm", "base"]);
    book
}

/// The changed data: the B200 lane retuned (`--mem-fraction-static` of its
/// SGLang worker 0.82 → 0.85), and a lane added: a copy of it under a new
/// config key, with `--mem-fraction-static 0.9`.
pub(crate) fn retune_and_add(text: &str) -> String {
    let mut data: Value = serde_json::from_str(text).unwrap();
    let cells = data["cells"].as_array_mut().unwrap();
    let b200 = cells
        .iter()
        .position(|c| c["hw"] == "b200")
        .expect("a B200 cell");
    let set_fraction = |cell: &mut Value, to: &str| {
        let args = cell["routers"]["sglang"]["blocks"][0]["args"]
            .as_array_mut()
            .unwrap();
        let arg = args
            .iter_mut()
            .find(|a| a[0] == "--mem-fraction-static")
            .expect("the flag is there");
        arg[1] = json!(to);
    };
    let mut added = cells[b200].clone();
    set_fraction(&mut cells[b200], "0.85");
    let key = "qwen3.8next-fp4-b200-sglang-agentic-lowmem";
    added["configKey"] = json!(key);
    added["id"] = json!(format!("{key}#0"));
    set_fraction(&mut added, "0.9");
    cells.push(added);
    serde_json::to_string_pretty(&data).unwrap() + "\n"
}

/// Each set's Copy all text by (page, anchor).
fn copy_alls(pages: &[DecodedPage]) -> BTreeMap<(String, String), String> {
    pages
        .iter()
        .flat_map(|p| {
            p.command_sets()
                .map(|s| ((p.model.clone(), s.anchor.clone()), s.copy_all_text()))
        })
        .collect()
}

/// The words of shell text, read here independently of the crate's own
/// reader: `\`-newline joins lines, quotes group, commands end at a line
/// end or an unquoted `;`/`&&`.
fn commands(text: &str) -> Vec<Vec<String>> {
    let text = text.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in text.lines() {
        let (mut words, mut word, mut any) = (Vec::new(), String::new(), false);
        let mut chars = line.chars().peekable();
        let end = |words: &mut Vec<String>, word: &mut String, any: &mut bool| {
            if *any {
                words.push(std::mem::take(word));
                *any = false;
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '\'' => {
                    any = true;
                    word.extend(chars.by_ref().take_while(|&c| c != '\''));
                }
                '"' => {
                    any = true;
                    while let Some(c) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' => word.extend(chars.next()),
                            c => word.push(c),
                        }
                    }
                }
                '\\' => {
                    any = true;
                    word.extend(chars.next());
                }
                c if c.is_whitespace() => end(&mut words, &mut word, &mut any),
                ';' | '&' => {
                    end(&mut words, &mut word, &mut any);
                    out.push(std::mem::take(&mut words));
                }
                c => {
                    any = true;
                    word.push(c);
                }
            }
        }
        end(&mut words, &mut word, &mut any);
        out.push(words);
    }
    out.retain(|w| !w.is_empty());
    out
}

const ENTRY_POINTS: [&str; 4] = [
    "sglang.launch_server",
    "dynamo.sglang",
    "sglang_router.launch_router",
    "dynamo.frontend",
];

/// Per (image, entry point): every command line's arguments (repeats kept).
fn argument_lists(pages: &[DecodedPage]) -> BTreeMap<(String, String), Vec<Vec<String>>> {
    let mut out: BTreeMap<(String, String), Vec<Vec<String>>> = BTreeMap::new();
    for set in pages.iter().flat_map(|p| p.command_sets()) {
        for process in &set.processes {
            for words in commands(&process.command) {
                // Leading NAME=value words set the environment.
                let start = words
                    .iter()
                    .position(|w| !w.contains('=') || w.starts_with('-'))
                    .unwrap_or(words.len());
                let w = &words[start..];
                let (ep, args) = match w {
                    [py, m, ep, args @ ..] if py.starts_with("python") && m == "-m" => {
                        (ep.clone(), args)
                    }
                    [program, args @ ..] => (program.rsplit('/').next().unwrap().into(), args),
                    [] => continue,
                };
                if ENTRY_POINTS.contains(&ep.as_str()) {
                    let key = (set.image.image.clone(), ep);
                    out.entry(key).or_default().push(args.to_vec());
                }
            }
        }
    }
    out
}

/// Every page of the sample data as it is in `book`, the changed file's
/// text given.
fn decoded_pages(book: &Path, changed: &str) -> Vec<DecodedPage> {
    std::fs::read_dir(book.join("agentx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| match p.ends_with(CHANGED) {
            true => decode_str(changed, &p).unwrap().page,
            false => decode_file(&p).unwrap().page,
        })
        .collect()
}

#[test]
fn report_against_a_base_branch_matches_counts_from_the_data() {
    let book = sample_repo("report");
    let before = support::read(&book.join(CHANGED));
    let after = retune_and_add(&before);
    git(&book, &["checkout", "-qb", "retune"]);
    std::fs::write(book.join(CHANGED), &after).unwrap();
    git(&book, &["commit", "-qam", "retune one lane, add one"]);

    let out = bin(&book, &["report", "--base", "main", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["base"]["spec"], "main");

    check_pages(&report, &book);
    check_changes(&report, &book, &before, &after);
    check_argument_lists(&report, &book, &before, &after);
    // The Markdown says the same, in its sections.
    let md = bin(&book, &["report", "--base", "main"]);
    assert_eq!(md.status.code(), Some(0));
    let md = String::from_utf8(md.stdout).unwrap();
    let q = report["diff"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["page"] == "Qwen3.8-Flash-Next")
        .unwrap();
    let row = format!(
        "| Qwen3.8-Flash-Next | {} | 8 | 0 | {} |",
        q["identical"],
        q["changed"].as_array().unwrap().len()
    );
    assert!(md.contains(&row), "{row}\n{md}");
    assert!(
        md.contains("| Qwen3.8-Flash-Next | 4 | 4 | 13 | gb300, b200, h200 | 42 |"),
        "{md}"
    );
    assert!(md.contains(&format!(
        "- Qwen3.8-Flash-Next `{}`",
        q["added"][0].as_str().unwrap()
    )));
    assert!(md.contains("**Every check passed.**"));
}

/// The per-page table against the data files' JSON, as `stats` counts them.
fn check_pages(report: &Value, book: &Path) {
    for page in report["pages"].as_array().unwrap() {
        let name = page["page"].as_str().unwrap();
        let file = std::fs::read_dir(book.join("agentx"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| support::read(p).contains(&format!("\"model\": \"{name}\"")))
            .unwrap();
        let raw = support::raw_counts(&file);
        let got = (
            &page["lanes"],
            &page["deployments"],
            &page["points"],
            &page["command_sets"],
        );
        assert_eq!(
            got,
            (
                &json!(raw.lanes),
                &json!(raw.deployments),
                &json!(raw.points),
                &json!(raw.command_sets)
            ),
            "{name}"
        );
    }
    let qwen = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["page"] == "Qwen3.8-Flash-Next")
        .unwrap();
    // By hand: 3 lanes + 1; cells 3 + 1; the added cell's 4 points, 2 routers, 1 tier.
    assert_eq!(
        (
            &qwen["lanes"],
            &qwen["deployments"],
            &qwen["points"],
            &qwen["command_sets"]
        ),
        (&json!(4), &json!(4), &json!(13), &json!(42))
    );
    assert_eq!(qwen["hardware"], json!(["gb300", "b200", "h200"]));
}

/// Added, removed, changed: the two versions' sets by anchor and text.
fn check_changes(report: &Value, book: &Path, before: &str, after: &str) {
    let old = copy_alls(&decoded_pages(book, before));
    let new = copy_alls(&decoded_pages(book, after));
    for page in report["diff"]["pages"].as_array().unwrap() {
        let name = page["page"].as_str().unwrap();
        let keys = |m: &BTreeMap<(String, String), String>| -> BTreeSet<String> {
            m.keys()
                .filter(|(p, _)| p == name)
                .map(|(_, a)| a.clone())
                .collect()
        };
        let (o, n) = (keys(&old), keys(&new));
        let added: Vec<&String> = n.difference(&o).collect();
        let removed: Vec<&String> = o.difference(&n).collect();
        let both: Vec<&String> = o.intersection(&n).collect();
        let text = |m: &BTreeMap<(String, String), String>, a: &String| {
            m[&(name.to_string(), a.clone())].clone()
        };
        let changed: Vec<&&String> = both
            .iter()
            .filter(|a| text(&old, a) != text(&new, a))
            .collect();
        assert_eq!(page["added"], json!(added), "{name}");
        assert_eq!(page["removed"], json!(removed), "{name}");
        assert_eq!(page["changed"], json!(changed), "{name}");
        assert_eq!(
            page["identical"],
            json!(both.len() - changed.len()),
            "{name}"
        );
        if name == "Qwen3.8-Flash-Next" {
            // The retune changes every set of the B200 lane that runs its
            // SGLang worker block; the new lane adds 8.
            assert_eq!(added.len(), 8);
            assert!(!changed.is_empty() && removed.is_empty());
        } else {
            assert!(
                added.is_empty() && removed.is_empty() && changed.is_empty(),
                "{name}"
            );
        }
    }
}

/// Argument lists per image and entry point: lines, distinct, new.
fn check_argument_lists(report: &Value, book: &Path, before: &str, after: &str) {
    let head = argument_lists(&decoded_pages(book, after));
    let base = argument_lists(&decoded_pages(book, before));
    let images = report["check"]["images"].as_array().unwrap();
    assert_eq!(images.len(), head.len(), "every image and entry point");
    let mut new_total = 0;
    for t in images {
        let key = (
            t["image"].as_str().unwrap().to_string(),
            t["entrypoint"].as_str().unwrap().to_string(),
        );
        let lists = &head[&key];
        let distinct: BTreeSet<&Vec<String>> = lists.iter().collect();
        let old: BTreeSet<&Vec<String>> = base
            .get(&key)
            .map(|l| l.iter().collect())
            .unwrap_or_default();
        let new = distinct.difference(&old).count();
        assert_eq!(
            (&t["lines"], &t["distinct"]),
            (&json!(lists.len()), &json!(distinct.len())),
            "{key:?}"
        );
        let reported = report["new_lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["image"] == key.0 && n["entrypoint"] == key.1)
            .unwrap();
        assert_eq!(reported["new"], json!(new), "{key:?}");
        new_total += new;
    }
    // The retuned and the added worker lines are new (0.85 and 0.9), under
    // both routers' worker entry points.
    assert!(new_total >= 4, "{new_total}");
}

/// `report` exits 1 when a check fails, and says which; a ref that names
/// no commit is an error naming it and the fix.
#[test]
fn report_fails_on_a_failing_check_and_names_a_bad_base() {
    let book = sample_repo("report-fail");
    let text = support::read(&book.join(CHANGED)).replacen(
        "\"--mem-fraction-static\"",
        "\"--mem-fraction-statik\"",
        1,
    );
    std::fs::write(book.join(CHANGED), text).unwrap();
    let out = bin(&book, &["report", "--base", "main"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("**Checks failed: argument errors: "), "{md}");
    // `-\\-` reads `--` (escape::text keeps `--` from smart punctuation).
    assert!(
        md.contains("-\\-mem-fraction-statik: unknown option"),
        "{md}"
    );

    let out = bin(&book, &["report", "--base", "origin/main"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`origin/main` is not a commit of the git repository holding")
            && err.contains("git fetch origin main"),
        "{err}"
    );
    let plain = support::temp("report-no-git");
    support::copy_dir(&book.join("content"), &plain.join("content"));
    std::fs::write(plain.join("book.toml"), "[book]\nsrc = \"content\"\n").unwrap();
    let out = bin(&plain, &["report", "--base", "main"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not in a git repository"), "{err}");
}
