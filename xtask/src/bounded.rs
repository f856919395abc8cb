//! `bounded-inputs`: the inputs of `docs/BENCHMARKS.md`'s "Bounded work"
//! table (issue 25), each an input an attacker who controls a book, a data
//! file or an InferenceX recipe could hand a docs build or `sync`.
//! `scripts/bounded-work.sh` runs a binary on each under `/usr/bin/time -v`.
//!
//! What is written into `OUT` (each a book unless said otherwise):
//! - `headings-50000`: one chapter of 50,000 headings with the same text;
//! - `directives-10000`, `directives-50000`: one chapter of that many
//!   directives, and `input.json` beside the book: the same chapter as the
//!   mdBook protocol's input (stdin of the preprocessor);
//! - `deployments-1000`, `deployments-3000`: one model with that many
//!   deployments (as `cargo xtask deployments` writes them);
//! - `points-30000`: one deployment with 30,000 points;
//! - `value-50mb`: one flag value of 50 MB;
//! - `alias-bomb`, `yaml-keys-100000`: `sync` inputs (a lane manifest and a
//!   snapshot folder, the test fixture's) whose master config holds a 9-line
//!   YAML alias bomb, or 100,000 more keys.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};

/// Every input's name, in the table's order.
pub(crate) const INPUTS: &[&str] = &[
    "headings-50000",
    "directives-10000",
    "directives-50000",
    "deployments-1000",
    "deployments-3000",
    "points-30000",
    "value-50mb",
    "alias-bomb",
    "yaml-keys-100000",
];

/// Writes the inputs named in `only` (all when empty) into `out`.
pub(crate) fn write_inputs(repo: &Path, out: &Path, only: &[String]) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for name in INPUTS {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let dest = out.join(name);
        let _ = std::fs::remove_dir_all(&dest);
        write_input(repo, name, &dest)?;
        eprintln!("wrote {}", dest.display());
    }
    if let Some(unknown) = only.iter().find(|o| !INPUTS.contains(&o.as_str())) {
        return Err(anyhow!(
            "no input `{unknown}`; inputs: {}",
            INPUTS.join(", ")
        ));
    }
    Ok(())
}

fn write_input(repo: &Path, name: &str, dest: &Path) -> Result<()> {
    let sample = repo.join(crate::deployments::SAMPLE);
    let (kind, n) = name.rsplit_once('-').unwrap_or((name, ""));
    let n: usize = n.parse().unwrap_or(0);
    match kind {
        "headings" => headings_book(n, dest),
        "directives" => directives_book(repo, n, dest),
        "deployments" => crate::deployments::write_book(&sample, n, dest),
        "points" => data_book(&sample, dest, |data| many_points(data, n)),
        "value" => data_book(&sample, dest, |data| long_value(data, 50_000_000)),
        "alias" => sync_input(repo, dest, &alias_bomb()),
        "yaml-keys" => sync_input(repo, dest, &many_keys(n)),
        _ => Err(anyhow!("no input `{name}`")),
    }
}

/// A book of one chapter holding `n` headings `## Step`.
fn headings_book(n: usize, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out.join("src"))?;
    std::fs::write(out.join("book.toml"), "[book]\ntitle = \"Headings\"\n")?;
    std::fs::write(
        out.join("src/SUMMARY.md"),
        "# Summary\n\n- [Headings](headings.md)\n",
    )?;
    let mut md = String::from("# Headings\n\n");
    for _ in 0..n {
        md.push_str("## Step\n\ntext\n\n");
    }
    std::fs::write(out.join("src/headings.md"), md)?;
    Ok(())
}

/// A book of one chapter of `n` directives of the test fixture `Mini-Test`
/// (three deployments), as `bench --directives` runs them; and beside it
/// `input.json`, the mdBook protocol input of the same chapter.
fn directives_book(repo: &Path, n: usize, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out.join("src"))?;
    std::fs::create_dir_all(out.join("data"))?;
    let fixture = std::fs::canonicalize(repo.join("tests/fixtures/books/mini"))?;
    let input = crate::directives::protocol_input(&fixture, n);
    std::fs::write(out.join("input.json"), &input)?;
    std::fs::copy(
        repo.join("tests/fixtures/data/mini.json"),
        out.join("data/mini.json"),
    )?;
    std::fs::write(
        out.join("book.toml"),
        "[book]\ntitle = \"Directives\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\n",
    )?;
    std::fs::write(
        out.join("src/SUMMARY.md"),
        "# Summary\n\n- [Directives](directives.md)\n",
    )?;
    let protocol: Value = serde_json::from_str(&input)?;
    let chapter = protocol[1]["items"][0]["Chapter"]["content"]
        .as_str()
        .context("no chapter in the protocol input")?;
    std::fs::write(out.join("src/directives.md"), chapter)?;
    Ok(())
}

/// A one-deployment book of `sample`'s first cell, changed by `edit`.
fn data_book(sample: &Path, out: &Path, edit: impl FnOnce(&mut Value) -> Result<()>) -> Result<()> {
    crate::deployments::write_book(sample, 1, out)?;
    let path = out.join("data/model.json");
    let mut data: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    edit(&mut data)?;
    std::fs::write(&path, serde_json::to_string(&data)?)?;
    Ok(())
}

/// The first cell gets `n` points: copies of its first, concurrency 1..=n.
fn many_points(data: &mut Value, n: usize) -> Result<()> {
    let points = data["cells"][0]["points"]
        .as_array_mut()
        .ok_or_else(|| anyhow!("the sample's first cell has no points"))?;
    let first = points.first().cloned().context("no point")?;
    *points = (1..=n)
        .map(|c| {
            let mut p = first.clone();
            p["concs"] = json!([c]);
            p
        })
        .collect();
    Ok(())
}

/// The first cell's first SGLang worker argument with a value gets one of
/// `bytes` letters.
fn long_value(data: &mut Value, bytes: usize) -> Result<()> {
    let args = data["cells"][0]["routers"]["sglang"]["blocks"][0]["args"]
        .as_array_mut()
        .ok_or_else(|| anyhow!("the sample's first cell has no SGLang worker args"))?;
    let arg = args
        .iter_mut()
        .find(|a| a.as_array().is_some_and(|a| a.len() == 2))
        .context("no argument with a value")?;
    arg[1] = Value::String("a".repeat(bytes));
    Ok(())
}

/// The "billion laughs" of YAML: nine lines, 9⁹ strings once aliases are
/// expanded.
fn alias_bomb() -> String {
    let mut y = String::from("bomb-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (from, to) in ('a'..='h').zip('b'..='i') {
        let refs = vec![format!("*{from}"); 9].join(", ");
        y.push_str(&format!("bomb-{to}: &{to} [{refs}]\n"));
    }
    y
}

/// `n` more top-level keys.
fn many_keys(n: usize) -> String {
    (0..n).map(|i| format!("extra-key-{i}: {i}\n")).collect()
}

/// The sync fixture (lane manifest and snapshot folder) with `extra`
/// appended to the master config.
fn sync_input(repo: &Path, out: &Path, extra: &str) -> Result<()> {
    let fixture = repo.join("tests/fixtures/sync");
    crate::scaled::copy_dir(&fixture, out)?;
    let master = out.join("snapshot/a1b2c3d4/inferencex-e2e/configs/nvidia-master.yaml");
    let mut text = std::fs::read_to_string(&master)?;
    text.push_str(extra);
    std::fs::write(&master, text)?;
    // The manifest names a registry relative to itself, in the repository.
    let manifest = out.join("demo-lanes.toml");
    let flags = std::fs::canonicalize(repo.join("flags"))?;
    let text =
        std::fs::read_to_string(&manifest)?.replace("../../../flags", &flags.display().to_string());
    std::fs::write(&manifest, text)?;
    Ok(())
}
