//! mdbook-agentx: static AgentX launch-recipe sections for mdBook books.
//!
//! AgentX data files (the format the SGLang cookbook uses to mirror
//! SemiAnalysis InferenceX AgentX submissions) decode into command sets:
//! every combination of deployment, concurrency point, KV-offload tier and
//! router, as the commands a reader copies. This library turns them into
//! Markdown and HTML:
//!
//! - [`decode_file`] / [`decode_str`]: a data file as a [`DecodedPage`];
//! - [`AgentxPreprocessor`]: the mdBook preprocessor (`<<agentx page="…">>`
//!   directives), also as [`run_protocol`] over stdin/stdout, or one chapter
//!   at a time with [`Library`] and [`expand_chapter`];
//! - [`install`]: the AgentX assets and `book.toml` entries of an mdBook book,
//!   and [`render_agent_files`], the renderer that publishes `llms.txt`, the
//!   Markdown twins and `launches.json` beside mdBook's HTML;
//! - [`build`], [`export_offline`], [`export_single_file`] (written to a
//!   file by [`write_single_file`]): the standalone builder, and
//!   [`Engine`], [`BookWatcher`] and [`Server`] for live preview (the
//!   `serve` and `watch` loops are the binary's);
//!   [`export_markdown`]: the expanded book as portable Markdown;
//! - [`check`]: command lines against flag registries, KV tiers, links;
//! - [`Manifest`] and [`compare_manifests`]: what changed between two builds;
//! - [`report`]: a pull request's evidence against a base commit, in one
//!   document ([`Report::markdown`]);
//! - [`sync`]: data files generated from InferenceX lanes (a lane manifest
//!   pinning each lane to a commit), checked by decoding them back.
//!
//! The library prints nothing: warnings and notes come back as [`Notice`]s
//! in each operation's report, for the caller to show.
//!
//! Data flows one way, each module using only those before it:
//! `util ← data ← decode ← {manifest, render} ← preprocessor ← site ← {serve,
//! check, diff} ← report` (`shell` sits between `data` and `decode`, `stats` on
//! `decode`; `book`, the book on disk (its `book.toml` read once and its
//! paths), on `data` and used from `preprocessor` on; `sync` beside
//! `decode`, on `data`, `decode` and `manifest`; `install` on `book`,
//! `preprocessor` and `site`).
//! ARCHITECTURE.md draws the whole graph and maps every module.

mod book;
mod check;
mod data;
mod decode;
mod diff;
mod install;
mod manifest;
mod preprocessor;
mod render;
mod report;
mod serve;
mod shell;
mod site;
mod stats;
mod sync;
mod util;

#[cfg(test)]
mod test_support;

pub use crate::book::{OnError, data_files, standalone_outside_reads};
pub use crate::check::run as check;
pub use crate::check::{
    CheckReport, Finding, ImageTally, KvTally, LinkReport, TierProblem, registry::Severity,
};
pub use crate::data::{Arg, BlockKind, ImageStatus, KvTier, Role, Router};
pub use crate::decode::{
    CommandSet, ConfigFile, DecodedFile, DecodedPage, Deployment, ImageInfo, KvDonor, Note,
    Placeholder, Process, Provenance, Status, UnavailableTier, decode_file, decode_str,
};
pub use crate::diff::{load_side as load_manifest, table as diff_table, verbose as diff_verbose};
pub use crate::install::{InstallOptions, InstallReport, install};
pub use crate::manifest::{
    LAUNCHES_VERSION, LEGACY_MANIFEST, LaunchProvenance, MANIFEST, Manifest, ManifestDiff,
    ManifestEntry, PageDiff, compare as compare_manifests,
};
pub use crate::preprocessor::{
    AgentxPreprocessor, DeploymentChapter, Expanded, Library, expand_chapter, run_protocol,
    supports as supports_renderer,
};
pub use crate::report::{BaseRef, NewLines, Report, run as report};
pub use crate::serve::{BookWatcher, Burst, ServeOptions, Server, WatchMode};
pub use crate::site::agents::mdbook::{
    AGENT_FILES_RENDERER, AgentFilesReport, publish_agent_files, render_agent_files,
};
pub use crate::site::engine::{Change, Engine, Rebuild};
pub use crate::site::export::{
    SingleFile, export_offline, single_file as export_single_file, write_single_file,
};
pub use crate::site::{BuildOptions, BuildReport, MarkdownReport, build, export_markdown};
pub use crate::stats::{PageStats, markdown_table as stats_table, page_stats};
pub use crate::sync::{
    DataFormat, LostField, PageChanges, RemovedCell, SyncFailure, SyncOptions, Synced,
    UnclassifiedName, sync,
};
#[doc(hidden)]
pub use crate::util::alloc::tune_allocator;
pub use crate::util::escape::{terminal_json, terminal_text};
pub use crate::util::notice::{Level, Notice};
