//! The `[output.html]` settings that keep the generated deployment chapters
//! out of mdBook's own search index and print page. Deployment chapters
//! hold every command set (the four real cookbook pages: 1,280 sets), which
//! made mdBook's search index 38 MB (it warns above 10 MB) and `print.html`
//! 31 MB; a reader finds launches through the model page's picker, and the
//! standalone builder's own search still indexes every set.
//!
//! mdBook 0.5 reads `[output.html.search.chapter]` keys as path prefixes of
//! chapters (source path, else path) and fails the build on a key that
//! matches no chapter (`crates/mdbook-html/src/html_handlebars/search.rs`,
//! `validate_chapter_config`), so a key is written only for a chapter
//! that holds a directive now: its deployment chapters are in the
//! directory named after it. The print page has no per-chapter setting
//! (`Print { enable, page_break }`), so it is turned off, unless the book
//! sets `enable` itself. The sidebar folds (`[output.html.fold]`), unless
//! the book says otherwise: expanded, the real pages' deployment chapters
//! put the second model page's link 1,831 px down it at 1400 x 900 (the
//! fourth's 4,242 px); folded, every model page's link is in view, and the
//! open one's chapters show.
//!
//! May use: `preprocessor` (directives), `util` (reads inside the book).

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, anyhow};
use mdbook_summary::{Link, SummaryItem, parse_summary};
use toml_edit::{InlineTable, Item, Value};

use super::{InstallReport, table_at};
use crate::util::fs::Bounds;

/// The directories of the deployment chapters the book's directives
/// generate (relative to the source directory, `/`-separated), in
/// `SUMMARY.md` order.
pub(super) fn generated_dirs(src: &Path, bounds: &Bounds) -> Result<Vec<String>> {
    let summary_path = src.join("SUMMARY.md");
    // A book without its SUMMARY.md yet has no chapters to set.
    if !summary_path.exists() {
        return Ok(Vec::new());
    }
    let text = bounds.read_to_string(&summary_path)?;
    let summary = parse_summary(&text).map_err(|e| anyhow!("{}: {e:#}", summary_path.display()))?;
    let mut chapters = Vec::new();
    for list in [
        &summary.prefix_chapters,
        &summary.numbered_chapters,
        &summary.suffix_chapters,
    ] {
        links(list, &mut chapters);
    }
    let mut dirs = Vec::new();
    for chapter in chapters {
        let path = src.join(&chapter);
        // A chapter that cannot be read (not written yet) has no directive.
        let Ok(text) = bounds.read_to_string(&path) else {
            continue;
        };
        if crate::preprocessor::has_directive(&text) {
            // mdBook's chapter paths have no `./` (`- [A](./a.md)` is `a.md`),
            // and it fails a build on a key that matches none.
            let dir: PathBuf = chapter
                .with_extension("")
                .components()
                .filter(|c| !matches!(c, Component::CurDir))
                .collect();
            let dir = dir.to_string_lossy().replace('\\', "/");
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    Ok(dirs)
}

/// Every chapter file `SUMMARY.md` lists (drafts have none), nested ones too.
fn links(items: &[SummaryItem], out: &mut Vec<PathBuf>) {
    for item in items {
        if let SummaryItem::Link(Link {
            location,
            nested_items,
            ..
        }) = item
        {
            if let Some(l) = location {
                out.push(l.clone());
            }
            links(nested_items, out);
        }
    }
}

/// Adds `"<dir>" = { enable = false }` to `[output.html.search.chapter]`
/// for each of `dirs` that has no key yet, `enable = false` to
/// `[output.html.print]` unless it is set, and folds the sidebar
/// ([`fold_sidebar`]). Nothing without `dirs` (a book whose chapters hold
/// no directive yet: `install` again after adding one).
pub(super) fn keep_generated_chapters_aside(
    doc: &mut toml_edit::DocumentMut,
    dirs: &[String],
    shown: &str,
    report: &mut InstallReport,
) -> Result<()> {
    if dirs.is_empty() {
        return Ok(());
    }
    {
        let chapters = table_at(doc, &["output", "html", "search", "chapter"], shown)?;
        for dir in dirs {
            if chapters.get(dir).is_some() {
                continue;
            }
            let mut off = InlineTable::new();
            off.insert("enable", Value::from(false));
            chapters[dir.as_str()] = Item::Value(Value::InlineTable(off));
            report.changes.push(format!(
                "book.toml: added \"{dir}\" = {{ enable = false }} to [output.html.search.chapter] \
                 (its generated deployment chapters stay out of mdBook's search index)"
            ));
        }
    }
    let print = table_at(doc, &["output", "html", "print"], shown)?;
    match print.get("enable").and_then(Item::as_bool) {
        None => {
            print["enable"] = toml_edit::value(false);
            report.changes.push(
                "book.toml: added enable = false to [output.html.print] (mdBook's print page \
                 would hold every command set; it has no per-chapter setting)"
                    .into(),
            );
        }
        Some(true) => report.notes.push(
            "[output.html.print] enable = true: mdBook's print page holds every command set of \
             the generated deployment chapters"
                .into(),
        ),
        Some(false) => {}
    }
    fold_sidebar(doc, shown, report)
}

/// Adds `enable = true` to `[output.html.fold]` unless the book sets it
/// (mdBook's `level` 0, its default, closes every fold but the open
/// chapter's); a note when the book keeps it off.
fn fold_sidebar(
    doc: &mut toml_edit::DocumentMut,
    shown: &str,
    report: &mut InstallReport,
) -> Result<()> {
    let fold = table_at(doc, &["output", "html", "fold"], shown)?;
    match fold.get("enable").and_then(Item::as_bool) {
        None => {
            fold["enable"] = toml_edit::value(true);
            report.changes.push(
                "book.toml: added enable = true to [output.html.fold] (the generated deployment \
                 chapters fold under their model page in the sidebar)"
                    .into(),
            );
        }
        Some(false) => report.notes.push(
            "[output.html.fold] enable = false: mdBook's sidebar lists every generated deployment \
             chapter, pushing the model pages after the first out of view"
                .into(),
        ),
        Some(true) => {}
    }
    Ok(())
}
