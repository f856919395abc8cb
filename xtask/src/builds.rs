//! Full builds of one book, compared in one interleaved run: `mdbook-agentx
//! build` against `mdbook build` with the same binary as its preprocessor,
//! and, with a baseline binary, both again with the baseline.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::compare::{Contender, interleaved, ratio_line, table};

/// The binaries a build comparison runs.
#[derive(Debug, Clone)]
pub(crate) struct Binaries {
    /// The release binary of this tree.
    pub(crate) exe: PathBuf,
    /// Another `mdbook-agentx` to compare with (`--baseline`).
    pub(crate) baseline: Option<PathBuf>,
    /// Whether `mdbook build` runs too (mdBook 0.5 found on PATH).
    pub(crate) mdbook: bool,
}

/// Whether `mdbook` on PATH is mdBook 0.5 (the version this preprocessor speaks to).
pub(crate) fn mdbook_05_on_path() -> bool {
    Command::new("mdbook")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("mdbook v0.5"))
}

/// `exe build BOOK -d OUT --allow-dest-outside`, fresh for each run.
pub(crate) fn ours(exe: &Path, book: &Path, out: PathBuf) -> impl Fn() -> Command {
    let (exe, book) = (exe.to_path_buf(), book.to_path_buf());
    move || {
        let mut c = Command::new(&exe);
        c.arg("build")
            .arg(&book)
            .arg("-d")
            .arg(&out)
            .arg("--allow-dest-outside");
        c
    }
}

fn mdbook(exe: &Path, book: &Path, out: PathBuf) -> impl Fn() -> Command {
    let (exe, book) = (exe.to_path_buf(), book.to_path_buf());
    move || {
        let mut c = Command::new("mdbook");
        c.arg("build")
            .arg("-d")
            .arg(&out)
            .current_dir(&book)
            .env("MDBOOK_PREPROCESSOR__AGENTX__COMMAND", &exe);
        c
    }
}

/// The comparison table of full builds of `book`, its ratios, and where
/// each build wrote its site (`scratch/<name>`: `ours`, `mdbook`,
/// `baseline`, `mdbook-baseline`).
pub(crate) fn compare_builds(
    book: &Path,
    bins: &Binaries,
    runs: usize,
    scratch: &Path,
) -> Result<String> {
    let mut contenders = vec![Contender::new(
        "`mdbook-agentx build`",
        ours(&bins.exe, book, scratch.join("ours")),
    )];
    if bins.mdbook {
        contenders.push(Contender::new(
            "`mdbook build` (0.5, this preprocessor)",
            mdbook(&bins.exe, book, scratch.join("mdbook")),
        ));
    }
    if let Some(base) = &bins.baseline {
        contenders.push(Contender::new(
            "`mdbook-agentx build`, baseline",
            ours(base, book, scratch.join("baseline")),
        ));
        if bins.mdbook {
            contenders.push(Contender::new(
                "`mdbook build` (0.5, baseline preprocessor)",
                mdbook(base, book, scratch.join("mdbook-baseline")),
            ));
        }
    }
    let m = interleaved(runs, &contenders, scratch)?;
    let mut md = table(&contenders, &m);
    md.push_str("\nRatios of the medians:\n\n");
    let (base, base_mdbook) = match (bins.baseline.is_some(), bins.mdbook) {
        (true, true) => (Some(&m[2]), Some(&m[3])),
        (true, false) => (Some(&m[1]), None),
        _ => (None, None),
    };
    if bins.mdbook {
        md.push_str(&ratio_line(
            "`mdbook build` / `mdbook-agentx build`",
            &m[1],
            &m[0],
        ));
    }
    if let Some(base) = base {
        md.push_str(&ratio_line(
            "baseline / this binary, `mdbook-agentx build`",
            base,
            &m[0],
        ));
        if let Some(base_mdbook) = base_mdbook {
            md.push_str(&ratio_line(
                "baseline / this binary, `mdbook build`",
                base_mdbook,
                &m[1],
            ));
            md.push_str(&ratio_line(
                "`mdbook build` / `mdbook-agentx build`, both with the baseline",
                base_mdbook,
                base,
            ));
        }
    }
    if !bins.mdbook {
        md.push_str("- `mdbook build`: not run (`mdbook` 0.5 is not on PATH, or `--no-mdbook`)\n");
    }
    Ok(md)
}
