//! Reading a book: `book.toml` and the chapter list in `SUMMARY.md` (mdBook's
//! format, parsed by mdBook's own `mdbook-summary` so both tools agree).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use mdbook_preprocessor::book::{Book, BookItem, Chapter, SectionNumber};
use mdbook_summary::{Link, SummaryItem, parse_summary};
use serde::Deserialize;

use crate::preprocessor::AgentxConfig;

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
}

impl BookDir {
    pub(crate) fn open(root: &Path) -> Result<BookDir> {
        let path = root.join("book.toml");
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read {}: is {} a book directory?",
                path.display(),
                root.display()
            )
        })?;
        let config: BookToml =
            toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let agentx = match config.preprocessor.get("agentx") {
            Some(v) => v
                .clone()
                .try_into::<AgentxConfig>()
                .map_err(|e| anyhow!("{}: [preprocessor.agentx]: {e}", path.display()))?,
            None => AgentxConfig::default(),
        };
        Ok(BookDir {
            root: root.to_path_buf(),
            config,
            agentx,
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
        let text = std::fs::read_to_string(&summary_path)
            .with_context(|| format!("cannot read {}", summary_path.display()))?;
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
                let file = src.join(loc);
                let content = std::fs::read_to_string(&file).map_err(|e| {
                    let line = summary_text
                        .lines()
                        .position(|l| l.contains(&format!("({})", loc.display())))
                        .map(|i| format!(":{}", i + 1))
                        .unwrap_or_default();
                    anyhow!(
                        "{summary_display}{line}: chapter `{}` points to {}, which cannot be read ({e}); create the file or fix the link",
                        link.name,
                        self.display_path(&file)
                    )
                })?;
                let mut ch = Chapter::new(&link.name, content, loc, parents.to_vec());
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

/// The data files of `paths`: a book directory (holding `book.toml`) gives
/// the files of its data directory, a directory the files in or below it, a
/// file itself.
pub fn data_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.join("book.toml").is_file() {
            let dir = BookDir::open(p)?;
            files.extend(crate::data::data_files_in(&p.join(&dir.agentx.data_dir))?);
        } else if p.is_dir() {
            files.extend(crate::data::data_files_in(p)?);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}
