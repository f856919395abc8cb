//! The data tools from the command line: `decode` (JSON and copyable text) and
//! `stats`, including one bad file among good ones.

use std::process::Command;

use crate::support;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(args)
        .current_dir(support::repo())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn decode_json_shape_and_order() {
    let (code, out, err) = run(&["decode", "--json", "tests/fixtures/data/mini.json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sets = v.as_array().unwrap();
    assert_eq!(sets.len(), 30);
    let first = &sets[0];
    for key in ["cell", "concs", "kv", "router", "status", "blocks"] {
        assert!(first.get(key).is_some(), "{key}");
    }
    // Stable order: cell, point, router (dynamo, sglang), tier (none, hicache, mooncake).
    let keys: Vec<String> = sets[..6]
        .iter()
        .map(|s| {
            format!(
                "{} {} {}",
                s["concs"],
                s["router"].as_str().unwrap(),
                s["kv"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            "[1] dynamo none",
            "[1] dynamo hicache",
            "[1] dynamo mooncake",
            "[1] sglang none",
            "[1] sglang hicache",
            "[1] sglang mooncake"
        ]
    );
    assert_eq!(sets[3]["status"], "verified");
    assert_eq!(sets[0]["status"], "derived");
    assert_eq!(sets[3]["blocks"].as_array().unwrap().len(), 1);
}

#[test]
fn decode_one_set_as_a_reader_copies_it() {
    let (code, out, _) = run(&[
        "decode",
        "tests/fixtures/data/mini.json",
        "--cell",
        "mini-fp8-gb300-dynamo-agentic-disagg#0",
        "--conc",
        "64",
    ]);
    assert_eq!(code, 0);
    // Defaults: the measured tier (mooncake) on the submitted router (dynamo).
    assert!(
        out.starts_with(
            "# Set per node before running the commands below\nexport ETCD_IP=\"<IP of the node running etcd>\"\n"
        ),
        "{out}"
    );
    assert!(out.contains("\n\n# etcd — Dynamo control plane\n# Start once, before everything else, on `$ETCD_IP`.\netcd \\\n"));
    assert!(out.contains("# Mooncake store — optional standalone KV store\n"));
    let (code, _, err) = run(&[
        "decode",
        "tests/fixtures/data/mini.json",
        "--cell",
        "mini-fp8-h200-sglang-agentic-mtp#1",
        "--conc",
        "2",
        "--kv",
        "mooncake",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "offers no `mooncake` tier on router `sglang`: this image's SGLang build predates"
        ),
        "{err}"
    );
    let (code, _, err) = run(&[
        "decode",
        "tests/fixtures/data/mini.json",
        "--cell",
        "nope",
        "--conc",
        "2",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no cell `nope` in Mini-Test; cells: mini-fp8-h200-sglang-agentic-mtp#0"),
        "{err}"
    );
}

#[test]
fn one_bad_file_does_not_hide_the_others() {
    let dir = support::temp("cli-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"model\": \"X\", \"cells\": [}").unwrap();
    let bad = bad.to_string_lossy().into_owned();
    let (code, out, err) = run(&["stats", "--json", &bad, "tests/fixtures/data/mini.json"]);
    assert_eq!(code, 1, "a bad file fails the run");
    assert!(err.contains("bad.json:1:26: malformed JSON"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"pages": [{"page": "Mini-Test", "lanes": 2, "deployments": 3, "points": 6, "hardware": ["h200", "gb300"], "command_sets": 30}]})
    );
    let (code, out, _) = run(&["decode", "--json", &bad, "tests/fixtures/data/mini.json"]);
    assert_eq!(code, 1);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        30
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stats_of_the_sample_book() {
    let (code, out, _) = run(&["stats", "."]);
    assert_eq!(code, 0);
    assert!(
        out.contains("| Muse Spark Open | 4 | 4 | 40 | gb300, gb200, b300, b200 | 180 |"),
        "{out}"
    );
    // The totals, counted from the data files' JSON (21 lanes, 28 cells,
    // 112 points, 576 command sets in the sample).
    let c = support::sample_counts();
    let total = format!(
        "| **Total** | {} | {} | {} |",
        c.lanes, c.deployments, c.points
    );
    assert!(out.contains(&total), "{out}");
    assert!(out.ends_with(&format!("| {} |\n", c.command_sets)), "{out}");
}

/// The mini book with `on-error = "warn"` and a chapter whose directive
/// names an unknown page: one warning per build.
fn book_with_an_unexpanded_directive(name: &str) -> support::Scratch {
    let book = support::mini_book(name);
    let toml = support::read(&book.join("book.toml"));
    std::fs::write(
        book.join("book.toml"),
        format!("{toml}on-error = \"warn\"\n"),
    )
    .unwrap();
    std::fs::write(
        book.join("src/plain.md"),
        "# Plain\n\n<<agentx page=\"Nope\">>\n",
    )
    .unwrap();
    book
}

/// Regression: warnings for directives left unexpanded (`on-error = "warn"`)
/// were printed twice by `build` and not at all by `export --single-file`.
#[test]
fn warnings_for_unexpanded_directives_are_printed_once_by_every_command() {
    let book = book_with_an_unexpanded_directive("cli-warn");
    let b = book.to_string_lossy().into_owned();
    let out = support::temp("cli-warn-out");
    let single = support::temp("cli-warn-single.html");
    for args in [
        vec![
            "build",
            b.as_str(),
            "-d",
            out.to_str().unwrap(),
            "--allow-dest-outside",
        ],
        vec![
            "export",
            b.as_str(),
            "--single-file",
            single.to_str().unwrap(),
        ],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let lines = err
            .lines()
            .filter(|l| l.starts_with("warning: ") && l.contains("unknown page `Nope`"))
            .count();
        assert_eq!(lines, 1, "{args:?}:\n{err}");
    }
}

/// The library returns its warnings and the binary prints them: as text on
/// stderr, or with `--message-format json` as JSON lines on stdout (what
/// `cargo xtask bench` reads), the same warnings either way.
#[test]
fn build_reports_as_text_or_as_json_lines() {
    let book = book_with_an_unexpanded_directive("cli-json");
    let report = mdbook_agentx::build(&book, &mdbook_agentx::BuildOptions::default()).unwrap();
    let warnings: Vec<String> = report.notices.iter().map(|n| n.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("warning: src/plain.md:3:1: unknown page `Nope`"));
    let b = book.to_string_lossy().into_owned();
    let (code, out, err) = run(&["build", &b]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(lines[0], warnings[0]);
    assert!(lines[1].starts_with("built 4 pages ("), "{err}");
    let (code, out, err) = run(&["build", &b, "--message-format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let messages: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(messages.len(), 2, "{out}");
    assert_eq!(messages[0]["reason"], "notice");
    assert_eq!(messages[0]["level"], "warning");
    assert_eq!(
        format!("warning: {}", messages[0]["message"].as_str().unwrap()),
        warnings[0]
    );
    assert_eq!(messages[1]["reason"], "built");
    assert_eq!(messages[1]["pages"], 4);
    assert!(messages[1]["command_sets"].as_u64().unwrap() > 0, "{out}");
    assert!(messages[1]["elapsed_ms"].is_u64(), "{out}");
}

/// Regression: `decode --json … | head -c 10` printed "error: Broken pipe" and
/// exited 1. A reader that closes stdout early got what it wanted: exit 0.
#[test]
fn a_reader_closing_stdout_early_is_not_an_error() {
    use std::io::Read;
    use std::process::Stdio;
    // Over 600 KB of JSON: far more than a pipe holds, so writes fail once closed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
        .args(["decode", "--json", "agentx/muse-spark-open.json"])
        .current_dir(support::repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
    assert_eq!(&first, b"[\n  {\n    ");
}
