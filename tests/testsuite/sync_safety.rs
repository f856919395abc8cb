//! A maintainer's mistakes with `mdbook-agentx sync`, each refused or
//! reported with a message that says what happened and how to proceed
//! (docs/sync.md, "What sync refuses"). Over the invented fixture in
//! `tests/fixtures/sync/`.

use std::path::Path;

use crate::sync::{fixture, scratch_dir, stderr, sync};

/// `mdbook-agentx sync <flag>` over the fixture snapshot.
fn sync_with(
    flag: &str,
    manifest: &Path,
    previous: Option<&Path>,
    out: &Path,
) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"));
    cmd.args(["sync", flag, "--manifest"])
        .arg(manifest)
        .arg("--inferencex")
        .arg(fixture("snapshot"))
        .arg("--out")
        .arg(out);
    if let Some(p) = previous {
        cmd.arg("--previous").arg(p);
    }
    cmd.output().unwrap()
}

/// The fixture manifest with `extra` appended to its `[source]` table's file.
fn manifest_with(dir: &Path, extra: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(fixture("demo-lanes.toml")).unwrap();
    let text = text.replace(
        "registry = \"../../../flags/",
        &format!(
            "registry = \"{}/",
            crate::support::repo().join("flags").display()
        ),
    );
    let path = dir.join("lanes.toml");
    std::fs::write(&path, format!("{text}{extra}")).unwrap();
    path
}

/// Without `--previous` and without the donor lane in the run, the Mooncake
/// tier has no settings: every cell that would offer it is refused, and
/// nothing is written (it used to disappear silently, and the page then said
/// there were no verified Mooncake settings).
#[test]
fn a_mooncake_tier_without_a_donor_is_refused() {
    let dir = scratch_dir("no-donor");
    // The bash lane is carried over, which needs --previous: leave it out.
    let text = std::fs::read_to_string(manifest_with(&dir, "")).unwrap();
    let cut = text
        .find("[[lane]]\npage = \"Demo-30B\"\nconfig-key = \"demo-fp8-h200")
        .unwrap();
    let end = text[cut..].find("\n\n").map_or(text.len(), |e| cut + e);
    std::fs::write(
        dir.join("lanes.toml"),
        format!("{}{}", &text[..cut], &text[end..]),
    )
    .unwrap();
    let out = dir.join("out");
    let o = sync(&dir.join("lanes.toml"), &fixture("snapshot"), None, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "cell `demo-fp8-b200-sglang-agentic-mtp#0` offers the Mooncake tier (its image has the \
             external linker), but no lane of this run measured Mooncake and no page of --previous \
             carries the donor block (kvMooncake); sync the donor lane with it, pass --previous \
             with the current pages, or set [defaults] kv-mooncake = \"none\""
        ),
        "{err}"
    );
    assert!(!out.exists(), "a refused sync wrote {}", out.display());
    // Turned off on purpose, the tier is unavailable with that reason.
    let off = format!(
        "{}\n",
        std::fs::read_to_string(dir.join("lanes.toml")).unwrap()
    )
    .replacen(
        "[source]",
        "[defaults]\nkv-mooncake = \"none\"\n\n[source]",
        1,
    );
    std::fs::write(dir.join("off.toml"), off).unwrap();
    let o = sync(&dir.join("off.toml"), &fixture("snapshot"), None, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("agentx-demo-30b.json")).unwrap();
    assert!(
        text.contains("\"mooncake\": \"no verified Mooncake settings on this page (the manifest turns the Mooncake tier off)\""),
        "{text}"
    );
}

/// The fixture manifest without its carried-over bash lane, with `page`
/// renamed, written to `dir/lanes.toml`.
fn renamed_manifest(dir: &Path, page: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(manifest_with(dir, "")).unwrap();
    let cut = text
        .find("[[lane]]\npage = \"Demo-30B\"\nconfig-key = \"demo-fp8-h200")
        .unwrap();
    let end = text[cut..].find("\n\n").map_or(text.len(), |e| cut + e);
    let text = format!("{}{}", &text[..cut], &text[end..])
        .replace("page = \"Demo-30B\"", &format!("page = \"{page}\""));
    std::fs::write(dir.join("lanes.toml"), text).unwrap();
    dir.join("lanes.toml")
}

/// A typo in `page =` makes a new page of lanes `--previous` holds under the
/// real name: refused (it used to write a second page beside the first, or
/// replace it, and report the sets as added), unless asked for.
#[test]
fn a_page_renamed_by_a_typo_is_refused() {
    let dir = scratch_dir("renamed");
    let manifest = renamed_manifest(&dir, "Demo-30b");
    let out = dir.join("out");
    let o = sync(
        &manifest,
        &fixture("snapshot"),
        Some(&fixture("previous")),
        &out,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let file = fixture("previous/agentx-demo.json");
    let want = format!(
        "error: page `Demo-30b` is not in --previous, but {} holds page `Demo-30B`, a name a typo \
         away: a renamed page, or a typo in the manifest's `page =`? Fix the page name, or pass \
         --allow-rename to write `Demo-30b` as a new page",
        file.display()
    );
    assert!(err.contains(&want), "{want}\n{err}");
    assert!(!out.exists(), "a refused sync wrote {}", out.display());
    // A name nothing like it, over a page that holds the same lanes.
    let first = dir.join("first");
    let o = sync(
        &renamed_manifest(&dir, "Demo-30B"),
        &fixture("snapshot"),
        Some(&fixture("previous")),
        &first,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sync(
        &renamed_manifest(&dir, "Another Name"),
        &fixture("snapshot"),
        Some(&first),
        &out,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let want = format!(
        "error: page `Another Name` is not in --previous, but {} holds its lanes \
         `demo-fp8-b200-dynamo-sglang-agentic-disagg`, `demo-fp8-b200-sglang-agentic-mtp` under \
         the page name `Demo-30B`",
        first.join("agentx-demo.json").display()
    );
    assert!(stderr(&o).contains(&want), "{want}\n{}", stderr(&o));
    let manifest = renamed_manifest(&dir, "Demo-30b");
    // Asked for, the page is written under its new name.
    let o = sync_with(
        "--allow-rename",
        &manifest,
        Some(&fixture("previous")),
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("agentx-demo-30b.json").is_file());
}

/// A page kept as a `.jsx` module is written as one, with the upstream
/// header's form; `--format jsx` makes new pages modules too.
#[test]
fn jsx_pages_stay_jsx_modules() {
    let dir = scratch_dir("jsx");
    let prev = dir.join("prev");
    std::fs::create_dir(&prev).unwrap();
    let json = std::fs::read_to_string(fixture("previous/agentx-demo.json")).unwrap();
    std::fs::write(
        prev.join("demo.jsx"),
        format!(
            "// an older module\nexport const agentx = {};\n",
            json.trim_end()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = sync(
        &manifest_with(&dir, ""),
        &fixture("snapshot"),
        Some(&prev),
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("demo.jsx")).unwrap();
    assert!(
        text.starts_with(
            "// GENERATED by mdbook-agentx sync \u{2014} do not edit by hand.\n\
             // Launch commands mirrored from SemiAnalysis InferenceX AgentX submissions\n\
             // (SemiAnalysisAI/InferenceX main@a1b2c3d4e5f6 plus open PRs #12), with SA-specific \
             settings removed.\nexport const agentx = {\n"
        ),
        "{}",
        &text[..400]
    );
    assert!(text.ends_with("};\n"));
    let names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["demo.jsx"]);
    // A new page, asked for as a module.
    let manifest = renamed_manifest(&dir, "Other-Page");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace(
            "config-key = \"demo-fp8-b200-dynamo-sglang-agentic-disagg\"",
            "config-key = \"demo-fp8-b200-dynamo-sglang-agentic-twins\"",
        )
        .replace(
            "config-key = \"demo-fp8-b200-sglang-agentic-mtp\"",
            "config-key = \"demo-fp8-b200-sglang-agentic-twins\"\nrows = [0]",
        );
    std::fs::write(
        &manifest,
        text.replacen(
            "[source]",
            "[defaults]\nkv-mooncake = \"none\"\n\n[source]",
            1,
        ),
    )
    .unwrap();
    let o = sync_with("--format=jsx", &manifest, None, &dir.join("new"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("new/agentx-other-page.jsx").is_file());
}

/// The fixture manifest (written in `dir`) synced into `first` with the
/// fixture's previous data, then its page edited by `edit` as a maintainer
/// would by hand; the manifest's path.
fn synced_then_edited(
    dir: &Path,
    first: &Path,
    edit: impl Fn(&str) -> String,
) -> std::path::PathBuf {
    let manifest = manifest_with(dir, "");
    let o = sync(
        &manifest,
        &fixture("snapshot"),
        Some(&fixture("previous")),
        first,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let file = first.join("agentx-demo.json");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text);
    std::fs::write(&file, edited).unwrap();
    manifest
}

/// The report of a sync over the fixture snapshot against `previous`.
fn synced_report(manifest: &Path, previous: &Path, out: &Path) -> String {
    let o = sync(manifest, &fixture("snapshot"), Some(previous), out);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The report says what a page loses: cells of lanes left out of the
/// manifest, and hand-added fields a regenerated cell does not keep (it used
/// to say only "0 changed").
#[test]
fn the_report_lists_removed_cells_and_lost_fields() {
    let dir = scratch_dir("losses");
    let first = dir.join("first");
    // A maintainer's hand edits of the page.
    let manifest = synced_then_edited(&dir, &first, |text| {
        text.replacen(
            "\"setup\": [],",
            "\"setup\": [{\"command\": \"nvidia-smi -pm 1\", \"reason\": \"persistence mode\"}],",
            1,
        )
        .replacen(
            "\"label\": \"Agg TP2\"",
            "\"label\": \"Agg TP2 (low latency)\"",
            1,
        )
    });
    // The next sync leaves the disagg lane out.
    let text = std::fs::read_to_string(&manifest).unwrap();
    let cut = text
        .find("[[lane]]\npage = \"Demo-30B\"\nconfig-key = \"demo-fp8-b200-dynamo")
        .unwrap();
    let end = cut + text[cut..].find("\n\n").unwrap();
    std::fs::write(&manifest, format!("{}{}", &text[..cut], &text[end + 2..])).unwrap();
    let report = synced_report(&manifest, &first, &dir.join("second"));
    for want in [
        "## What the pages lose against the previous data",
        "- 1 cells removed: their lanes are not in the manifest \
         (`demo-fp8-b200-dynamo-sglang-agentic-disagg`); carry them over (`carry-over = true`) to keep them",
        "- cell `demo-fp8-b200-sglang-agentic-mtp#0` loses its setup `nvidia-smi -pm 1 (persistence mode)` \
         (now: (not in the regenerated cell))",
        "- cell `demo-fp8-b200-sglang-agentic-mtp#0` loses its label `Agg TP2 (low latency)` (now: Agg TP2)",
    ] {
        assert!(report.contains(want), "{want}\n{report}");
    }
}

/// What a page loses and where its Mooncake donor block came from quote the
/// previous page's text and path in the report, which is Markdown for a pull
/// request: a hand-edited label and a `--previous` folder whose names hold
/// backticks and HTML stay whole in their code spans, and nothing of them
/// becomes HTML (they were written raw between backticks).
#[test]
fn the_report_keeps_previous_text_in_code_spans() {
    use pulldown_cmark::{Event, Parser};
    let dir = scratch_dir("losses-markup");
    let folder = "prev`<img src=x onerror=alert(1)>`";
    let first = dir.join(folder);
    let label = "Agg TP2`<img src=x onerror=alert(2)>`";
    let manifest = synced_then_edited(&dir, &first, |text| {
        text.replacen(
            "\"label\": \"Agg TP2\"",
            &format!("\"label\": {}", serde_json::to_string(label).unwrap()),
            1,
        )
    });
    let report = synced_report(&manifest, &first, &dir.join("second"));
    let mut spans = Vec::new();
    for event in Parser::new(&report) {
        match event {
            Event::Code(c) => spans.push(c.into_string()),
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML {h:?} in:\n{report}"),
            _ => {}
        }
    }
    assert!(spans.iter().any(|s| s == label), "{spans:?}\n{report}");
    let donor = format!("{folder}/agentx-demo.json");
    assert!(
        spans.iter().any(|s| s.ends_with(&donor)),
        "{spans:?}\n{report}"
    );
}

/// A carried-over lane reads nothing, so it needs no commit (nor one the
/// source holds); a rendered lane without one is refused, naming the line.
#[test]
fn carry_over_lanes_need_no_commit() {
    let dir = scratch_dir("carry-no-commit");
    let manifest = manifest_with(&dir, "");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let carried = text
        .find("config-key = \"demo-fp8-h200-sglang-agentic-mtp\"")
        .unwrap();
    let line = carried + text[carried..].find("commit = ").unwrap();
    let end = line + text[line..].find('\n').unwrap() + 1;
    std::fs::write(&manifest, format!("{}{}", &text[..line], &text[end..])).unwrap();
    let o = sync(
        &manifest,
        &fixture("snapshot"),
        Some(&fixture("previous")),
        &dir.join("out"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(
            "| Demo-30B | `demo-fp8-h200-sglang-agentic-mtp` (carried over) | `\u{2014}` |"
        )
    );
    // The same line taken from a rendered lane.
    let text = std::fs::read_to_string(fixture("demo-lanes.toml")).unwrap();
    let first = text.find("commit = ").unwrap();
    let end = first + text[first..].find('\n').unwrap() + 1;
    std::fs::write(
        dir.join("bad.toml"),
        format!("{}{}", &text[..first], &text[end..]),
    )
    .unwrap();
    let o = sync(
        &dir.join("bad.toml"),
        &fixture("snapshot"),
        Some(&fixture("previous")),
        &dir.join("bad"),
    );
    assert_eq!(o.status.code(), Some(1));
    let want = "lane `demo-fp8-b200-sglang-agentic-mtp`: `commit` is missing: write the full 40-digit \
                commit id the lane is rendered at (only a carry-over lane, which reads nothing, may \
                leave it out)";
    assert!(stderr(&o).contains(want), "{}", stderr(&o));
}
