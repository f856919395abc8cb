//! A book of the real AgentX data files (`bench --real-data DIR`, e.g.
//! `../shared/reference/sglang-cookbook`), assembled in the scratch
//! directory (outside the repository: the files are third-party) and built
//! by both `mdbook-agentx build` and `mdbook build`.
//!
//! Each data file that decodes gets a chapter holding one
//! `<<agentx page="…">>` directive. A book holds one file per page, so of
//! two files with the same page (the cookbook's `.jsx` modules and their
//! `.json` twins) the `.jsx` one, the form upstream ships, is used; the
//! report lists every file and what became of it. The book is set up as a
//! user would: `mdbook-agentx install` adds the preprocessor table and the
//! reader assets to `book.toml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::builds::{Binaries, compare_builds};
use crate::measure::run_quiet;

/// What became of one data file of the real-data directory.
#[derive(Debug, Clone)]
enum Fate {
    /// It has a chapter: its page and command sets.
    Chapter { page: String, sets: usize },
    /// Another file (named) already defines its page.
    Twin { page: String, of: String },
    /// It does not decode: the first line of the error.
    Fails(String),
}

/// The assembled book and the fate of each file, by file name.
struct RealBook {
    dir: PathBuf,
    files: Vec<(String, Fate)>,
}

/// `.jsx` / `.js` before `.json`, then by name.
fn upstream_first(files: &mut [PathBuf]) {
    files.sort_by_key(|p| {
        let json = p.extension().is_some_and(|e| e == "json");
        (p.with_extension(""), json)
    });
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Writes the book into `out` (replacing it) and runs `install` on it.
fn assemble(real: &Path, exe: &Path, out: &Path) -> Result<RealBook> {
    let mut files = mdbook_agentx::data_files(&[real.to_path_buf()])?;
    if files.is_empty() {
        bail!("{}: no data files (.json, .jsx, .js)", real.display());
    }
    upstream_first(&mut files);
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out.join("data"))?;
    std::fs::create_dir_all(out.join("src"))?;
    let mut summary = String::from("# Summary\n\n[Introduction](intro.md)\n\n# Models\n\n");
    let mut by_page: BTreeMap<String, String> = BTreeMap::new();
    let mut fates = Vec::new();
    for f in &files {
        let name = file_name(f);
        let decoded = match mdbook_agentx::decode_file(f) {
            Ok(d) => d,
            Err(e) => {
                let message = format!("{e:#}");
                let first = message.lines().next().unwrap_or("").to_string();
                fates.push((name, Fate::Fails(first)));
                continue;
            }
        };
        let page = decoded.page.model.clone();
        if let Some(of) = by_page.get(&page) {
            fates.push((
                name,
                Fate::Twin {
                    page,
                    of: of.clone(),
                },
            ));
            continue;
        }
        by_page.insert(page.clone(), name.clone());
        std::fs::copy(f, out.join("data").join(&name))?;
        let chapter = format!("{}.md", Path::new(&name).with_extension("").display());
        std::fs::write(
            out.join("src").join(&chapter),
            format!("# {page}\n\n<<agentx page=\"{page}\">>\n"),
        )?;
        summary.push_str(&format!("- [{page}]({chapter})\n"));
        let sets = decoded.page.command_sets().count();
        fates.push((name, Fate::Chapter { page, sets }));
    }
    if by_page.is_empty() {
        bail!("{}: no data file decodes", real.display());
    }
    std::fs::write(out.join("src/SUMMARY.md"), summary)?;
    std::fs::write(
        out.join("src/intro.md"),
        format!(
            "# Real AgentX data\n\nOne chapter per data file of `{}`.\n",
            real.display()
        ),
    )?;
    std::fs::write(
        out.join("book.toml"),
        "[book]\ntitle = \"Real AgentX data\"\nsrc = \"src\"\n\n\
         [preprocessor.agentx]\ncommand = \"mdbook-agentx\"\ndata-dir = \"data\"\non-error = \"fail\"\n",
    )?;
    run_quiet(Command::new(exe).arg("install").arg(out))
        .context("setting the real-data book up with `mdbook-agentx install`")?;
    Ok(RealBook {
        dir: out.to_path_buf(),
        files: fates,
    })
}

fn files_table(book: &RealBook) -> String {
    let mut md = String::from("| Data file | In the book | Command sets |\n|---|---|---:|\n");
    for (name, fate) in &book.files {
        let (what, sets) = match fate {
            Fate::Chapter { page, sets } => (format!("chapter of page `{page}`"), sets.to_string()),
            Fate::Twin { page, of } => (
                format!("no: page `{page}` comes from {of} (one file per page)"),
                "–".into(),
            ),
            Fate::Fails(e) => (format!("no: does not decode: {e}"), "–".into()),
        };
        md.push_str(&format!("| {name} | {what} | {sets} |\n"));
    }
    md
}

/// The real-data section of the report: the book's files, then the build
/// comparison (one interleaved run, as for the sample book).
pub(crate) fn measure(real: &Path, bins: &Binaries, runs: usize, scratch: &Path) -> Result<String> {
    let real = std::fs::canonicalize(real)
        .with_context(|| format!("--real-data {}: cannot open", real.display()))?;
    let work = scratch.join("real-data");
    let book = assemble(&real, &bins.exe, &work.join("book"))?;
    let chapters = book
        .files
        .iter()
        .filter(|(_, f)| matches!(f, Fate::Chapter { .. }))
        .count();
    let sets: usize = book
        .files
        .iter()
        .map(|(_, f)| match f {
            Fate::Chapter { sets, .. } => *sets,
            _ => 0,
        })
        .sum();
    let mut md = format!(
        "\n### Full build of a book of the real data files\n\n\
         The data files of `{}`, one chapter with one directive each ({chapters} chapters, \
         {sets} command sets), assembled outside the repository and set up with \
         `mdbook-agentx install`:\n\n{}\n",
        real.display(),
        files_table(&book)
    );
    md.push_str(&compare_builds(&book.dir, bins, runs, &work)?);
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_modules_come_before_their_json_twins() {
        let mut files: Vec<PathBuf> = ["b.json", "a.json", "b.jsx", "a.jsx", "c.js"]
            .iter()
            .map(PathBuf::from)
            .collect();
        upstream_first(&mut files);
        let names: Vec<String> = files.iter().map(|p| file_name(p)).collect();
        assert_eq!(names, ["a.jsx", "a.json", "b.jsx", "b.json", "c.js"]);
    }
}
