//! Reading a book: `book.toml` and the chapter list in `SUMMARY.md` (mdBook's
//! format, parsed by mdBook's own `mdbook-summary` so both tools agree).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use mdbook_preprocessor::book::{Book, BookItem, Chapter, SectionNumber};
use mdbook_summary::{Link, SummaryItem, parse_summary};
use serde::Deserialize;

use crate::preprocessor::AgentxConfig;
use crate::util::fs::{Bounds, is_plain_relative};

/// `book.toml`, the parts this tool reads. Other tables (mdBook's renderers and
/// preprocessors) are allowed and ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct BookToml {
    #[serde(default)]
    pub book: BookSection,
    #[serde(default)]
    pub build: BuildSection,
    #[serde(default)]
    pub preprocessor: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub output: OutputSection,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct BookSection {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default = "default_src")]
    pub src: PathBuf,
    #[serde(default)]
    pub language: Option<String>,
}

impl Default for BookSection {
    fn default() -> Self {
        BookSection {
            title: None,
            authors: Vec::new(),
            description: None,
            src: default_src(),
            language: None,
        }
    }
}

fn default_src() -> PathBuf {
    PathBuf::from("src")
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct BuildSection {
    #[serde(default = "default_build_dir")]
    pub build_dir: PathBuf,
}

impl Default for BuildSection {
    fn default() -> Self {
        BuildSection {
            build_dir: default_build_dir(),
        }
    }
}

fn default_build_dir() -> PathBuf {
    PathBuf::from("book")
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct OutputSection {
    #[serde(default)]
    pub html: HtmlOptions,
}

/// `[output.html]` options this builder honours, named as in mdBook.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct HtmlOptions {
    /// Extra stylesheets, relative to the book root.
    #[serde(default)]
    pub additional_css: Vec<PathBuf>,
    /// Extra scripts, relative to the book root.
    #[serde(default)]
    pub additional_js: Vec<PathBuf>,
    /// Hide chapter numbers in the sidebar.
    #[serde(default)]
    pub no_section_label: bool,
    /// `smart-punctuation`, `definition-lists`, `admonitions`.
    #[serde(flatten)]
    pub markdown: crate::util::markdown::MarkdownConfig,
}

/// A book on disk.
#[derive(Debug, Clone)]
pub(crate) struct BookDir {
    pub root: PathBuf,
    pub config: BookToml,
    pub agentx: AgentxConfig,
    /// What a build of this book may read (`allow-outside`, `max-file-mib`).
    pub bounds: Bounds,
}

impl BookDir {
    pub(crate) fn open(root: &Path) -> Result<BookDir> {
        let path = root.join("book.toml");
        let text = Bounds::strict(root)
            .and_then(|b| b.read_to_string(&path))
            .with_context(|| format!("is {} a book directory?", root.display()))?;
        let config: BookToml =
            toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let agentx = match config.preprocessor.get("agentx") {
            Some(v) => v
                .clone()
                .try_into::<AgentxConfig>()
                .map_err(|e| anyhow!("{}: [preprocessor.agentx]: {e}", path.display()))?,
            None => AgentxConfig::default(),
        };
        let bounds = agentx
            .bounds(root)
            .map_err(|e| anyhow!("{}: {e:#}", path.display()))?;
        Ok(BookDir {
            root: root.to_path_buf(),
            config,
            agentx,
            bounds,
        })
    }

    pub(crate) fn src_dir(&self) -> PathBuf {
        self.root.join(&self.config.book.src)
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
        let summary =
            parse_summary(&text).map_err(|e| anyhow!("{}: {e:#}", summary_path.display()))?;
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
            let data_dir = p.join(&dir.agentx.data_dir);
            let mut found = dir.bounds.files_below(&data_dir, |_| false)?;
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
