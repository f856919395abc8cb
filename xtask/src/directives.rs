//! Directives per chapter: one chapter holding N `<<agentx …>>` directives,
//! run through the mdBook protocol as `mdbook build` runs the preprocessor
//! (the release binary reading `[context, book]` on stdin), so the figure is
//! the preprocessor's whole work: finding, parsing, expanding and splicing
//! every directive, and writing the book back as JSON.
//!
//! The page is the test fixture `Mini-Test` (`tests/fixtures/data/mini.json`,
//! three deployments), shown whole and filtered by hardware in turn.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::measure::{ms, time_runs};

/// The `[context, book]` input of a book with one chapter of `n` directives.
pub(crate) fn protocol_input(root: &Path, n: usize) -> String {
    let shapes = [
        "<<agentx page=\"Mini-Test\">>",
        "<<agentx page=\"Mini-Test\" hardware=\"h200\">>",
        "<<agentx page=\"Mini-Test\" hardware=\"gb300\" level=\"3\">>",
    ];
    let mut chapter = String::from("# Directives\n\n");
    for i in 0..n {
        chapter.push_str(shapes[i % shapes.len()]);
        chapter.push_str("\n\n");
    }
    let context = json!({
        "root": root,
        "config": {
            "book": {"title": "Directives", "src": "src", "language": "en", "authors": []},
            "preprocessor": {"agentx": {"command": "mdbook-agentx", "data-dir": "../../data", "allow-outside": true}}
        },
        "renderer": "html",
        "mdbook_version": "0.5.4"
    });
    let book = json!({"items": [{"Chapter": {
        "name": "Directives", "content": chapter, "number": [1], "sub_items": [],
        "path": "directives.md", "source_path": "directives.md", "parent_names": []
    }}]});
    json!([context, book]).to_string()
}

/// Runs the preprocessor on `input`; the size of the book it writes back.
fn preprocess(exe: &Path, input: &str) -> Result<usize> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {}", exe.display()))?;
    child
        .stdin
        .take()
        .context("no stdin")?
        .write_all(input.as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!(
            "preprocessor failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out.stdout.len())
}

/// The table of `docs/BENCHMARKS.md` for the given directive counts.
pub(crate) fn measure(exe: &Path, counts: &[usize], runs: usize, scratch: &Path) -> Result<String> {
    if counts.is_empty() {
        return Ok(String::new());
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/books/mini");
    let root = std::fs::canonicalize(&root).with_context(|| root.display().to_string())?;
    let mut md = String::from(
        "\n### Directives in one chapter (mdBook protocol)\n\n| Directives | Input KiB | Output MiB | Median ms | Min–max ms | Per directive µs |\n|---:|---:|---:|---:|---:|---:|\n",
    );
    for &n in counts {
        let input = protocol_input(&root, n);
        std::fs::write(scratch.join(format!("directives-{n}.json")), &input)?;
        let mut written = 0;
        let t = time_runs(runs, || {
            written = preprocess(exe, &input)?;
            Ok(())
        })?;
        md.push_str(&format!(
            "| {n} | {} | {:.1} | {} | {}–{} | {:.0} |\n",
            input.len() / 1024,
            written as f64 / (1024.0 * 1024.0),
            ms(t.median),
            ms(t.min),
            ms(t.max),
            t.median.as_secs_f64() * 1e6 / n.max(1) as f64
        ));
    }
    Ok(md)
}
