//! The book on disk: `book.toml` read once, into mdBook's own config types
//! (`[book]`, `[build]`, as `mdbook build` reads them) plus the tables this
//! tool reads ([`config`]), and every path a command needs resolved here
//! (source, data, output, templates, theme); the chapter list in
//! `SUMMARY.md` (mdBook's format, parsed by mdBook's own `mdbook-summary` so
//! both tools agree).
//!
//! May use: `data` (what a data file is), `util`.

mod config;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use mdbook_preprocessor::book::{Book, BookItem, Chapter, SectionNumber};
use mdbook_preprocessor::config::Config;
use mdbook_summary::{Link, SummaryItem, parse_summary};

pub use self::config::OnError;
pub(crate) use self::config::{AgentxConfig, HtmlOptions, SourceAndData, over_max_site};
use crate::util::fs::{Bounds, is_plain_relative};

/// Refuses the book at `root` when its `book.toml` sets `allow-outside =
/// true` and the command line did not say so too: the standalone commands
/// (build, serve, watch, export, markdown, check, report, install) run on
/// pull requests in CI, and a setting the book's own files can turn on would
/// let them switch off the guard that keeps the build machine's files
/// (`/proc/self/environ`, with the CI secrets) out of the site. Under mdBook
/// the setting is honoured alone: there `book.toml` already runs commands
/// (`command = …` of any preprocessor or renderer), so whoever builds a book
/// with mdBook trusts its `book.toml` anyway.
/// A `book.toml` that cannot be read here is left to the command, which
/// reports it in its own words.
pub fn standalone_outside_reads(root: &Path, on_command_line: bool) -> Result<()> {
    let path = root.join("book.toml");
    let Ok(text) = Bounds::strict(root).and_then(|b| b.read_to_string(&path)) else {
        return Ok(());
    };
    let Ok(config) = toml::from_str::<toml::Value>(&text) else {
        return Ok(());
    };
    let set = config
        .get("preprocessor")
        .and_then(|p| p.get("agentx"))
        .and_then(|a| a.get("allow-outside"))
        .is_some_and(|v| v.as_bool() != Some(false));
    if set && !on_command_line {
        bail!(
            "{}: `allow-outside = true` under [preprocessor.agentx] lets the book read files \
             outside it; the standalone commands honour it only with --allow-outside on the \
             command line too (a book.toml from a pull request must not switch the guard \
             off). Pass --allow-outside if you trust every path this book names, or remove \
             the setting",
            path.display()
        );
    }
    Ok(())
}

/// Templates that override the built-in ones, relative to the book root.
pub(crate) const TEMPLATES_DIR: &str = "templates";
/// Theme files (stylesheets, scripts) that override the built-in ones.
pub(crate) const THEME_DIR: &str = "agentx-theme";

/// A book on disk: its configuration, read once, and its paths.
#[derive(Debug, Clone)]
pub(crate) struct BookDir {
    /// The book root (holding `book.toml`), as given.
    pub root: PathBuf,
    /// `book.toml` as mdBook reads it.
    pub config: Config,
    /// `[output.html]`, the options the standalone builder honours.
    pub html: HtmlOptions,
    /// `[preprocessor.agentx]`.
    pub agentx: AgentxConfig,
    /// What a build of this book may read (`allow-outside`, `max-file-mib`).
    pub bounds: Bounds,
}

impl BookDir {
    /// Reads `book.toml` of the book at `root` (inside the book's bounds).
    pub(crate) fn open(root: &Path) -> Result<BookDir> {
        let path = root.join("book.toml");
        let text = Bounds::strict(root)
            .and_then(|b| b.read_to_string(&path))
            .with_context(|| format!("is {} a book directory?", root.display()))?;
        BookDir::parse(root, &text).with_context(|| path.display().to_string())
    }

    /// The book at `root` whose `book.toml` holds `text`.
    pub(crate) fn parse(root: &Path, text: &str) -> Result<BookDir> {
        let config: Config = toml::from_str(text)?;
        BookDir::from_mdbook(root, &config)
    }

    /// The book mdBook hands a preprocessor: its root and its parsed config.
    pub(crate) fn from_mdbook(root: &Path, config: &Config) -> Result<BookDir> {
        let agentx = config::agentx_from_mdbook(config)?;
        let html = config::html_from_mdbook(config)?;
        let bounds = agentx.bounds(root)?;
        Ok(BookDir {
            root: root.to_path_buf(),
            config: config.clone(),
            html,
            agentx,
            bounds,
        })
    }

    /// The source dir (`[book] src`).
    pub(crate) fn src_dir(&self) -> PathBuf {
        self.root.join(&self.config.book.src)
    }

    /// The AgentX data directory (`data-dir` of `[preprocessor.agentx]`).
    pub(crate) fn data_dir(&self) -> PathBuf {
        self.root.join(&self.agentx.data_dir)
    }

    /// Where a build writes by default (`[build] build-dir`).
    pub(crate) fn build_dir(&self) -> PathBuf {
        self.root.join(&self.config.build.build_dir)
    }

    /// The book's own templates (`templates/`), overriding the built-in ones.
    pub(crate) fn templates_dir(&self) -> PathBuf {
        self.root.join(TEMPLATES_DIR)
    }

    /// The book's own theme files (`agentx-theme/`), overriding the built-in ones.
    pub(crate) fn theme_dir(&self) -> PathBuf {
        self.root.join(THEME_DIR)
    }

    /// `book.toml`.
    pub(crate) fn book_toml(&self) -> PathBuf {
        self.root.join("book.toml")
    }

    pub(crate) fn title(&self) -> String {
        self.config
            .book
            .title
            .clone()
            .unwrap_or_else(|| "Untitled book".into())
    }

    /// The chapters of `SUMMARY.md` with their Markdown, as an mdBook book.
    pub(crate) fn load_book(&self) -> Result<Book> {
        let src = self.src_dir();
        let summary_path = src.join("SUMMARY.md");
        let text = self.bounds.read_to_string(&summary_path)?;
        refuse_nul(&text).map_err(|e| anyhow!("{}:{e}", self.display_path(&summary_path)))?;
        let summary = parse_summary(&text).with_context(|| summary_path.display().to_string())?;
        let mut items = Vec::new();
        let display = self.display_path(&summary_path);
        for list in [
            &summary.prefix_chapters,
            &summary.numbered_chapters,
            &summary.suffix_chapters,
        ] {
            for item in list {
                items.push(self.load_item(item, &src, &[], &display, &text)?);
            }
        }
        Ok(Book::new_with_items(items))
    }

    /// A path as messages show it: relative to the current directory when possible.
    pub(crate) fn display_path(&self, p: &Path) -> String {
        crate::util::fs::shown_path(p).display().to_string()
    }

    /// Why `loc` (absolute, or with `..`) is no chapter path, and the fix:
    /// written as it reads, since a path that stays inside the source
    /// directory has a plain form to suggest.
    fn why_not_a_chapter_path(&self, loc: &Path, src: &Path) -> String {
        let src_abs = crate::util::fs::normalize(&std::path::absolute(src).unwrap_or_default());
        let lexical = crate::util::fs::normalize(&src_abs.join(loc));
        let plain = lexical
            .strip_prefix(&src_abs)
            .ok()
            .filter(|p| !p.as_os_str().is_empty());
        let (what, fix) = match (loc.is_absolute(), plain) {
            (true, Some(p)) => ("an absolute path", format!("write it as `{}`", p.display())),
            (false, Some(p)) => ("a path with `..`", format!("write it as `{}`", p.display())),
            (true, None) => (
                "an absolute path outside the source directory",
                format!(
                    "move the file into {} and link it from there",
                    self.display_path(src)
                ),
            ),
            (false, None) => (
                "which climbs out of the source directory",
                format!(
                    "move the file into {} and link it from there",
                    self.display_path(src)
                ),
            ),
        };
        format!(
            ", {what}: chapter paths are relative to the source directory {}, without `..` or a \
             leading `/`; {fix}",
            self.display_path(src)
        )
    }

    fn load_item(
        &self,
        item: &SummaryItem,
        src: &Path,
        parents: &[String],
        summary_display: &str,
        summary_text: &str,
    ) -> Result<BookItem> {
        Ok(match item {
            SummaryItem::Separator => BookItem::Separator,
            SummaryItem::PartTitle(t) => BookItem::PartTitle(t.clone()),
            SummaryItem::Link(link) => BookItem::Chapter(self.load_chapter(
                link,
                src,
                parents,
                summary_display,
                summary_text,
            )?),
            other => bail!("{summary_display}: unsupported entry {other:?}"),
        })
    }

    fn load_chapter(
        &self,
        link: &Link,
        src: &Path,
        parents: &[String],
        summary_display: &str,
        summary_text: &str,
    ) -> Result<Chapter> {
        let mut ch = match &link.location {
            Some(loc) => {
                let line = || {
                    summary_text
                        .lines()
                        .position(|l| l.contains(&format!("({})", loc.display())))
                        .map(|i| format!(":{}", i + 1))
                        .unwrap_or_default()
                };
                if !is_plain_relative(loc) {
                    bail!(
                        "{summary_display}{}: chapter `{}` points to {}{}",
                        line(),
                        link.name,
                        loc.display(),
                        self.why_not_a_chapter_path(loc, src)
                    );
                }
                let file = src.join(loc);
                let content = self.bounds.read_to_string(&file).map_err(|e| {
                    anyhow!(
                        "{summary_display}{}: chapter `{}` points to {}, which cannot be read ({e:#}); create the file or fix the link",
                        line(),
                        link.name,
                        self.display_path(&file)
                    )
                })?;
                let mut ch = Chapter::new(&link.name, chapter_text(content), loc, parents.to_vec());
                ch.source_path = Some(loc.clone());
                ch
            }
            None => Chapter::new_draft(&link.name, parents.to_vec()),
        };
        ch.number = link.number.as_ref().map(|n| SectionNumber::new(n.to_vec()));
        let mut child_parents = parents.to_vec();
        child_parents.push(link.name.clone());
        for sub in &link.nested_items {
            ch.sub_items.push(self.load_item(
                sub,
                src,
                &child_parents,
                summary_display,
                summary_text,
            )?);
        }
        Ok(ch)
    }
}

/// `SUMMARY.md` with a NUL: mdBook's parser drops the entry it is in, and
/// every entry after it in the same list, without an error.
fn refuse_nul(text: &str) -> Result<(), String> {
    let Some(at) = text.find('\0') else {
        return Ok(());
    };
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at].rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Err(format!(
        "{line}:{column}: a NUL character; SUMMARY.md is text (the chapter list would lose \
         entries without a word): remove it"
    ))
}

/// A chapter's text as Markdown reads it: without a leading byte order mark
/// (mdBook drops it too; otherwise the first heading is a paragraph), and
/// with each NUL as U+FFFD, as CommonMark requires (pulldown-cmark leaves
/// it, and it would reach the page raw).
fn chapter_text(mut text: String) -> String {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if text.contains('\0') {
        text = text.replace('\0', "\u{fffd}");
    }
    text
}

/// The data files of `paths`: a book directory (holding `book.toml`) gives
/// the files of its data directory (which must be inside the book), a
/// directory the files in or below it, a file itself.
pub fn data_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.join("book.toml").is_file() {
            let dir = BookDir::open(p)?;
            let mut found = dir.bounds.files_below(&dir.data_dir(), |_| false)?;
            found.retain(|f| crate::data::is_data_file(f));
            files.extend(found);
        } else if p.is_dir() {
            files.extend(crate::data::data_files_in(p)?);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests;
