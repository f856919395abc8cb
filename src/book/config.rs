//! The tables of `book.toml` this tool reads besides mdBook's own `[book]`
//! and `[build]`: `[preprocessor.agentx]` and the `[output.html]` options
//! the standalone builder honours.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use mdbook_preprocessor::config::{BookConfig, BuildConfig, Config};

use crate::util::cmark::MarkdownConfig;
use crate::util::fs::{Bounds, DEFAULT_MAX_FILE_MIB};

/// What to do when a directive cannot be expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Stop the build with the error.
    #[default]
    Fail,
    /// Keep building; leave the directive visible under a warning.
    Warn,
}

/// `[preprocessor.agentx]` in `book.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct AgentxConfig {
    /// Directory of AgentX data files, relative to the book root (default
    /// `agentx`).
    #[serde(default = "default_data_dir")]
    pub data_dir: PathBuf,
    #[serde(default)]
    pub on_error: OnError,
    /// Flag registries for `check` (`[preprocessor.agentx.registries]`).
    #[serde(default)]
    pub registries: Option<toml::Value>,
    /// Read files that resolve outside the book root (symlinks, absolute
    /// paths, `..`). Off: a book from a pull request must not read the
    /// runner's files.
    #[serde(default)]
    pub allow_outside: bool,
    /// The largest file a build reads, in MiB.
    #[serde(default = "default_max_file_mib")]
    pub max_file_mib: u64,
    /// The most a build writes, in MiB: the site's files, and before them
    /// the Markdown the directives expand to ([`DEFAULT_MAX_SITE_MIB`]).
    #[serde(default = "default_max_site_mib")]
    pub max_site_mib: u64,
    // mdBook's own keys for every preprocessor table; read by mdBook, not by
    // us, and listed so that `deny_unknown_fields` accepts them.
    #[allow(dead_code)]
    #[serde(default)]
    pub command: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub renderers: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub before: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub after: Option<toml::Value>,
    #[allow(dead_code)]
    #[serde(default)]
    pub optional: Option<toml::Value>,
}

/// `agentx/` beside `book.toml`: outside the source directory, whose every
/// file mdBook copies into the published site.
pub(crate) fn default_data_dir() -> PathBuf {
    PathBuf::from("agentx")
}

fn default_max_file_mib() -> u64 {
    DEFAULT_MAX_FILE_MIB
}

/// Default of `max-site-mib`. The sample book's site is 8.8 MiB, a book of
/// the real data files about as much, and the synthetic book 100× the sample
/// that the benchmarks build 856 MiB: 2 GiB leaves room for that, while a
/// data file or chapter made to expand without end stops there instead of
/// filling a CI runner's disk and memory.
pub(crate) const DEFAULT_MAX_SITE_MIB: u64 = 2048;

fn default_max_site_mib() -> u64 {
    DEFAULT_MAX_SITE_MIB
}

impl AgentxConfig {
    /// `max-site-mib` in bytes.
    pub(crate) fn max_site_bytes(&self) -> u64 {
        self.max_site_mib.saturating_mul(1 << 20)
    }

    /// What a build of the book at `root` may read, by this configuration.
    pub(crate) fn bounds(&self, root: &Path) -> Result<Bounds> {
        if self.max_file_mib == 0 {
            bail!("[preprocessor.agentx] max-file-mib must be at least 1");
        }
        if self.max_site_mib == 0 {
            bail!("[preprocessor.agentx] max-site-mib must be at least 1");
        }
        Bounds::new(root, self.allow_outside, self.max_file_mib)
    }
}

impl Default for AgentxConfig {
    fn default() -> Self {
        AgentxConfig {
            data_dir: default_data_dir(),
            on_error: OnError::Fail,
            registries: None,
            allow_outside: false,
            max_file_mib: DEFAULT_MAX_FILE_MIB,
            max_site_mib: DEFAULT_MAX_SITE_MIB,
            command: None,
            renderers: None,
            before: None,
            after: None,
            optional: None,
        }
    }
}

/// The refusal of output past `max-site-mib` (`max` bytes), found `at` (a
/// chapter's directive, or a site file).
pub(crate) fn over_max_site(at: &str, max: u64) -> anyhow::Error {
    anyhow::anyhow!(
        "{at}: the build would write more than the {} MiB of `max-site-mib` (mdbook-agentx's \
         bound on what a build writes, with the Markdown the directives expand to); raise \
         `max-site-mib` under [preprocessor.agentx] if the book is meant to be this large",
        max >> 20
    )
}

/// `[output.html]` options the standalone builder honours, named as in mdBook.
/// Other keys are mdBook's business: they are not read here.
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
    pub markdown: MarkdownConfig,
}

/// Reads `[output.html]` from mdBook's config.
pub(crate) fn html_from_mdbook(cfg: &Config) -> Result<HtmlOptions> {
    Ok(cfg
        .get("output.html")
        .context("invalid [output.html] in book.toml")?
        .unwrap_or_default())
}

/// Reads `[preprocessor.agentx]` from mdBook's config.
pub(crate) fn agentx_from_mdbook(cfg: &Config) -> Result<AgentxConfig> {
    Ok(cfg
        .get::<AgentxConfig>("preprocessor.agentx")
        .context("invalid [preprocessor.agentx] in book.toml")?
        .unwrap_or_default())
}

/// The source and build directories and `[preprocessor.agentx]` a
/// `book.toml` sets, read with the types [`super::BookDir`] uses, but
/// nothing else of it: for `install`, which edits the rest and says itself
/// what is wrong there.
#[derive(Debug, Clone)]
pub(crate) struct SourceAndData {
    /// `[book] src`, relative to the book root.
    pub src: PathBuf,
    /// `[build] build-dir`, relative to the book root.
    pub build_dir: PathBuf,
    /// `[preprocessor.agentx]` (its `data-dir` relative to the book root).
    pub agentx: AgentxConfig,
}

impl SourceAndData {
    pub(crate) fn from_toml(text: &str) -> Result<SourceAndData> {
        #[derive(Deserialize)]
        struct Tables {
            #[serde(default)]
            book: BookConfig,
            #[serde(default)]
            build: BuildConfig,
            #[serde(default)]
            preprocessor: Preprocessors,
        }
        #[derive(Default, Deserialize)]
        struct Preprocessors {
            #[serde(default)]
            agentx: AgentxConfig,
        }
        let tables: Tables = toml::from_str(text)?;
        Ok(SourceAndData {
            src: tables.book.src,
            build_dir: tables.build.build_dir,
            agentx: tables.preprocessor.agentx,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn markdown_switches_from_mdbook_config() {
        let cfg = |toml: &str| Config::from_str(toml).unwrap();
        assert_eq!(
            html_from_mdbook(&cfg("[book]\ntitle = \"x\"\n"))
                .unwrap()
                .markdown,
            MarkdownConfig::default()
        );
        let off = cfg("[output.html]\nsmart-punctuation = false\nadmonitions = false\n");
        assert_eq!(
            html_from_mdbook(&off).unwrap().markdown,
            MarkdownConfig {
                smart_punctuation: false,
                definition_lists: true,
                admonitions: false,
            }
        );
    }
}
