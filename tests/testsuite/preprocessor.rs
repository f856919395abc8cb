//! The mdBook side: `supports`, the stdin/stdout protocol with a hand-written
//! `[context, book]`, chapter expansion and its error messages.

use std::path::Path;
use std::process::Command;

use mdbook_agentx::{Library, OnError, expand_chapter};
use mdbook_preprocessor::book::{Book, BookItem};

use crate::support;
use crate::support::run_with_stdin;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
}

#[test]
fn supports_renderers() {
    for (renderer, code) in [("html", 0), ("markdown", 0), ("latex", 1), ("epub", 1)] {
        let status = bin().args(["supports", renderer]).status().unwrap();
        assert_eq!(status.code(), Some(code), "supports {renderer}");
    }
}

fn protocol_input() -> (String, String, String) {
    let book = support::fixture("books/mini");
    let mini = support::read(&book.join("src/mini.md"));
    let plain = support::read(&book.join("src/plain.md"));
    let json_str = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_string()
    };
    let input = support::read(&support::fixture("protocol/input.json"))
        .replace("__ROOT__", &json_str(&book.to_string_lossy()))
        .replace("__MINI__", &json_str(&mini))
        .replace("__PLAIN__", &json_str(&plain));
    (input, mini, plain)
}

#[test]
fn protocol_round_trip() {
    let (input, _mini, plain) = protocol_input();
    let (code, stdout, stderr) = run_with_stdin(&[], &input);
    assert_eq!(code, 0, "stderr: {stderr}");
    // Nothing but the book JSON on stdout.
    let book: Book = serde_json::from_str(&stdout).expect("stdout is exactly one Book");
    // The book's four items, then the model page's whole launch data in a
    // part of its own at the end (mdBook's HTML renderer: data_pages.rs).
    assert_eq!(book.items.len(), 6);
    assert!(matches!(book.items[1], BookItem::Separator));
    assert!(matches!(&book.items[2], BookItem::PartTitle(t) if t == "Appendix"));
    assert!(matches!(&book.items[4], BookItem::PartTitle(t) if t == "Launch data"));
    let BookItem::Chapter(data_ch) = &book.items[5] else {
        panic!("the data page")
    };
    assert_eq!(
        data_ch.path.as_deref(),
        Some(std::path::Path::new("mini/agentx_launch_data.md"))
    );
    assert!(data_ch.content.contains("class=\"agentx-data-part\""));
    let BookItem::Chapter(mini_ch) = &book.items[0] else {
        panic!("first item")
    };
    let BookItem::Chapter(plain_ch) = &book.items[3] else {
        panic!("last item")
    };
    assert_eq!(
        plain_ch.content, plain,
        "a chapter without directives is untouched"
    );
    let c = &mini_ch.content;
    assert!(c.contains("## Agentic Long-Context Deployment {#agentic-long-context-deployment}"));
    assert!(c.contains("`<<agentx page=\"Mini-Test\">>` in inline code"));
    assert!(c.contains("```markdown\n<<agentx page=\"Mini-Test\">>\n```"));
    assert!(c.contains("Escaped: \\<\\<agentx page=\"Mini-Test\">> stays literal."));
    // hardware="h200" keeps the two H200 deployments, each a numbered sub-chapter.
    let subs: Vec<(&str, String, Option<String>)> = mini_ch
        .sub_items
        .iter()
        .map(|i| match i {
            BookItem::Chapter(ch) => (
                ch.name.as_str(),
                ch.path.as_ref().unwrap().display().to_string(),
                ch.number.as_ref().map(|n| n.to_string()),
            ),
            _ => panic!("sub item"),
        })
        .collect();
    assert_eq!(
        subs,
        vec![
            (
                "Mini-Test · H200 · Agg TP4 · MTP 3-1-4",
                "mini/mini-fp8-h200-sglang-agentic-mtp-0.md".to_string(),
                Some("1.1.".to_string())
            ),
            (
                "Mini-Test · H200 · Agg TP2 · MTP 3-1-4 · measured with HiCache",
                "mini/mini-fp8-h200-sglang-agentic-mtp-1.md".to_string(),
                Some("1.2.".to_string())
            ),
        ]
    );
    let BookItem::Chapter(sub) = &mini_ch.sub_items[0] else {
        unreachable!()
    };
    assert_eq!(sub.parent_names, ["Mini"]);
    assert!(sub.source_path.is_none());
    assert!(
        sub.content
            .contains("{#mini-fp8-h200-sglang-agentic-mtp-0-c4-hicache-sglang .agentx-set}")
    );
    assert!(!stdout.contains("warning"));
}

#[test]
fn protocol_rejects_other_mdbook_versions() {
    let (input, _, _) = protocol_input();
    let old = input.replace("\"0.5.4\"", "\"0.4.52\"");
    let (code, stdout, stderr) = run_with_stdin(&[], &old);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("supports mdBook 0.5.x, but was called by mdBook 0.4.52"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run_with_stdin(&[], "not json");
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("stdin is not JSON"), "{stderr}");
}

#[test]
fn protocol_reports_bad_config() {
    let (input, _, _) = protocol_input();
    let bad = input.replace(
        "\"data-dir\": \"../../data\"",
        "\"data-dir\": \"../../data\", \"data_dri\": 1",
    );
    let (code, stdout, stderr) = run_with_stdin(&[], &bad);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("invalid [preprocessor.agentx] in book.toml"),
        "{stderr}"
    );
    assert!(stderr.contains("data_dri"), "{stderr}");
}

/// Regression (issue 25): in protocol mode a chapter with a directive
/// whose path is absolute or climbs out with `..` is refused, naming the
/// chapter and the fix (its AgentX pages would be written outside `book/`);
/// nothing is printed on stdout.
#[test]
fn protocol_refuses_chapters_outside_the_source_directory() {
    let (input, _, _) = protocol_input();
    for path in ["../../outside/mini.md", "/tmp/mini.md", "a/../../mini.md"] {
        let moved = input.replace("\"mini.md\"", &format!("\"{path}\""));
        let (code, stdout, stderr) = run_with_stdin(&[], &moved);
        assert_eq!(code, 1, "{path}: {stderr}");
        assert!(stdout.is_empty(), "{path}");
        assert!(
            stderr.contains(&format!(
                "chapter `Mini` has the path {path}, which leaves the source directory src"
            )),
            "{path}: {stderr}"
        );
        assert!(stderr.contains("Move the chapter into src"), "{stderr}");
    }
    // A chapter without a directive is mdBook's business: left alone.
    let plain = input.replace("\"plain.md\"", "\"../plain.md\"");
    let (code, _, stderr) = run_with_stdin(&[], &plain);
    assert_eq!(code, 0, "{stderr}");
}

fn mini_library() -> Library {
    Library::load(&support::fixture(""), Path::new("data")).unwrap()
}

/// Bad directives: each names chapter-file:line:column and the fix.
#[test]
fn directive_errors_name_file_line_column() {
    let cases: &[(&str, &str)] = &[
        (
            "# T\n\n<<agentx page=\"Mini-Tset\">>\n",
            "src/t.md:3:1: unknown page `Mini-Tset`; did you mean `Mini-Test`? Known pages: Mini-Test",
        ),
        (
            "x\n\n  <<agentx paeg=\"Mini-Test\">>\n",
            "src/t.md:3:3: unknown attribute `paeg`; expected one of: page, hardware, level, data",
        ),
        (
            "<<agentx page=\"Mini-Test>>\n",
            "src/t.md:1:1: unterminated quote in `page`",
        ),
        (
            "<<agentx page=Mini-Test>>\n",
            "src/t.md:1:1: the value of `page` must be in double quotes",
        ),
        (
            "Ü\n\n<<agentx page=\"Mini-Test\" hardware=\"b200\">>\n",
            "src/t.md:3:1: hardware `b200` has no deployment on page `Mini-Test`; it has: h200, gb300",
        ),
        (
            "<<agentx data=\"data/missing.json\">>\n",
            "src/t.md:1:1: cannot read",
        ),
        (
            "<<agentx page=\"Other\" data=\"data/mini.json\">>\n",
            "does not match data=\"data/mini.json\", whose model is `Mini-Test`",
        ),
        (
            "see <<agentx page=\"Mini-Test\">> inline\n",
            "src/t.md:1:5: a directive must stand on its own line",
        ),
    ];
    for (chapter, want) in cases {
        let lib = mini_library();
        let err = expand_chapter(chapter, Path::new("t.md"), "src/t.md", &lib, OnError::Fail)
            .expect_err(chapter);
        let msg = format!("{err:#}");
        assert!(msg.contains(want), "{chapter:?}:\n{msg}\nlacks {want:?}");
    }
}

#[test]
fn invalid_data_file_is_reported_with_its_json_path() {
    let dir = std::env::temp_dir().join(format!("agentx-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = support::read(&support::fixture("data/mini.json")).replacen(
        "\"kv\": \"none\", \"job\"",
        "\"kv\": \"disk\", \"job\"",
        1,
    );
    std::fs::write(dir.join("bad.json"), text).unwrap();
    let lib = Library::load(&dir, Path::new(".")).unwrap();
    let err = expand_chapter(
        "<<agentx page=\"Mini-Test\">>\n",
        Path::new("t.md"),
        "src/t.md",
        &lib,
        OnError::Fail,
    )
    .unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("src/t.md:1:1: unknown page `Mini-Test`"),
        "{msg}"
    );
    assert!(msg.contains("1 data file(s) failed to load"), "{msg}");
    assert!(
        msg.contains("bad.json: cells[0].points[0].kv: unknown variant `disk`"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn on_error_warn_keeps_building_and_shows_the_directive() {
    let lib = mini_library();
    let chapter = "# T\n\n<<agentx page=\"Nope\">>\n\n<<agentx page=\"Mini-Test\" level=\"3\">>\n";
    let out = expand_chapter(chapter, Path::new("t.md"), "src/t.md", &lib, OnError::Warn).unwrap();
    assert_eq!(out.warnings.len(), 1);
    assert!(out.content.starts_with(
        "# T\n\n> [!WARNING]\n> mdbook-agentx could not expand this directive: src/t.md:3:1: unknown page \\`Nope\\`"
    ), "{}", out.content);
    assert!(out.content.contains(">\n> `<<agentx page=\"Nope\">>`\n"));
    assert!(
        out.content
            .contains("### Agentic Long-Context Deployment {#agentic-long-context-deployment}")
    );
    assert!(out.content.contains("#### Deployments"));
}

#[test]
fn two_directives_on_one_page_get_distinct_anchors() {
    let lib = mini_library();
    let chapter = "<<agentx page=\"Mini-Test\" hardware=\"h200\">>\n\ntext\n\n<<agentx page=\"Mini-Test\" hardware=\"gb300\">>\n";
    let out = expand_chapter(
        chapter,
        Path::new("models/t.md"),
        "src/models/t.md",
        &lib,
        OnError::Fail,
    )
    .unwrap();
    assert!(out.content.contains("{#agentic-long-context-deployment}"));
    assert!(
        out.content
            .contains("{#agentic-long-context-deployment-mini-test}")
    );
    assert!(out.content.contains("\n\ntext\n\n"));
    let paths: Vec<String> = out
        .subchapters
        .iter()
        .map(|c| c.path.display().to_string())
        .collect();
    assert_eq!(
        paths,
        [
            "models/t/mini-fp8-h200-sglang-agentic-mtp-0.md",
            "models/t/mini-fp8-h200-sglang-agentic-mtp-1.md",
            "models/t/mini-fp8-gb300-dynamo-agentic-disagg-0.md",
        ]
    );
    // The link back from a deployment chapter goes to the right section.
    assert!(
        out.subchapters[2]
            .markdown
            .contains("(../t.md#agentic-long-context-deployment-mini-test)")
    );
}

#[test]
fn expansion_is_deterministic_and_complete() {
    let lib = mini_library();
    let chapter = "<<agentx page=\"Mini-Test\">>\n";
    let a = expand_chapter(chapter, Path::new("m.md"), "m.md", &lib, OnError::Fail).unwrap();
    let b = expand_chapter(
        chapter,
        Path::new("m.md"),
        "m.md",
        &mini_library(),
        OnError::Fail,
    )
    .unwrap();
    assert_eq!(a.content, b.content);
    assert_eq!(a.subchapters, b.subchapters);
    // Every command set has exactly one heading with its anchor, and the lane
    // table reaches every deployment chapter.
    let page = lib.page("Mini-Test").unwrap();
    let all: String = a.subchapters.iter().map(|c| c.markdown.as_str()).collect();
    for set in page.command_sets() {
        assert_eq!(
            all.matches(&format!("{{#{} .agentx-set}}", set.anchor))
                .count(),
            1,
            "{}",
            set.anchor
        );
        assert!(all.contains(&set.status.label()));
    }
    for c in &a.subchapters {
        let rel = c.path.display().to_string();
        assert!(
            a.content.contains(&format!("]({rel})")),
            "lane table links {rel}"
        );
    }
}

/// A one-shot build indexes data files and decodes each when a directive uses
/// it; the expansion must be the one a resident library gives.
#[test]
fn on_demand_library_expands_like_a_resident_one_and_keeps_nothing_decoded() {
    let resident = mini_library();
    let on_demand = Library::index(&support::fixture(""), Path::new("data")).unwrap();
    assert_eq!(on_demand.pages().count(), 0, "nothing decoded up front");
    assert!(on_demand.page("Mini-Test").is_none());
    for chapter in [
        "<<agentx page=\"Mini-Test\">>\n",
        "<<agentx page=\"Mini-Test\" hardware=\"h200\">>\n\n<<agentx data=\"data/mini.json\">>\n",
    ] {
        let a = expand_chapter(chapter, Path::new("m.md"), "m.md", &resident, OnError::Fail);
        let b = expand_chapter(
            chapter,
            Path::new("m.md"),
            "m.md",
            &on_demand,
            OnError::Fail,
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.content, b.content, "{chapter}");
        assert_eq!(a.subchapters, b.subchapters, "{chapter}");
        assert_eq!(a.manifest, b.manifest, "{chapter}");
        assert!(!a.manifest.is_empty());
    }
    assert_eq!(
        on_demand.pages().count(),
        0,
        "decoded pages are dropped after use"
    );
    // Unknown pages get the same help either way.
    let err = |lib: &Library| {
        let e = expand_chapter(
            "<<agentx page=\"Mini-Tset\">>\n",
            Path::new("m.md"),
            "m.md",
            lib,
            OnError::Fail,
        );
        format!("{:#}", e.unwrap_err())
    };
    assert_eq!(err(&resident), err(&on_demand));
    assert!(err(&on_demand).contains("did you mean `Mini-Test`?"));
}

/// Regression: with two files for one page, an on-demand library let the
/// first file claim the name even when it could not be decoded, so `build`
/// failed where `serve` and `check` (resident) used the good file.
#[test]
fn a_broken_file_never_claims_a_page_name_from_a_good_one() {
    let root = support::temp("dup-pages");
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::write(
        root.join("data/a-broken.json"),
        "{\"model\": \"Mini-Test\", \"hardware\": \"oops\"}",
    )
    .unwrap();
    std::fs::copy(
        support::fixture("data/mini.json"),
        root.join("data/mini.json"),
    )
    .unwrap();
    let chapter = "<<agentx page=\"Mini-Test\">>\n";
    let mut outputs = Vec::new();
    for (kind, lib) in [
        ("resident", Library::load(&root, Path::new("data")).unwrap()),
        (
            "on demand",
            Library::index(&root, Path::new("data")).unwrap(),
        ),
    ] {
        let out = expand_chapter(chapter, Path::new("m.md"), "m.md", &lib, OnError::Fail);
        let out = out.unwrap_or_else(|e| panic!("{kind}: {e:#}"));
        let failures = lib.failures();
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].contains("a-broken.json"), "{failures:?}");
        outputs.push(out.content);
    }
    assert_eq!(outputs[0], outputs[1]);
}
