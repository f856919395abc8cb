//! What the standalone builder's landing-page overview and search learn of
//! each deployment a chapter shows: facts taken from the decoded model while
//! the chapter expands, sent to the caller with the chapter's manifest
//! entries. mdBook's own runs ignore them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::data::{KvTier, Router};
use crate::decode::{CommandSet, Deployment, Status};
use crate::manifest::ManifestEntry;
use crate::render;

/// What one expanded chapter shows, sent as soon as the chapter is done.
#[derive(Debug)]
pub(crate) struct ChapterSets<'a> {
    /// Every command set the chapter shows, for the manifest.
    pub manifest: Arc<Vec<ManifestEntry>>,
    /// Every deployment it shows, for the overview and the search index.
    pub deployments: Arc<Vec<DeploymentSummary>>,
    /// With an expansion cache: which expansion this is (the same while the
    /// chapter is taken from the cache), for caches of what derives from it.
    pub stamp: Option<u64>,
    /// Its Markdown, on its way back into the book.
    pub markdown: ExpandedMarkdown<'a>,
}

/// The Markdown of an expanded chapter and of its deployment chapters. The
/// receiver may move it elsewhere (the standalone builder writes a large
/// book's to a file until its pages are rendered) and leave it empty: the
/// book then holds empty chapters at these paths.
#[derive(Debug)]
pub(crate) struct ExpandedMarkdown<'a> {
    /// The chapter's path, relative to the source dir.
    pub path: &'a Path,
    pub content: &'a mut String,
    pub subchapters: &'a mut [super::DeploymentChapter],
}

/// One deployment as a directive shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeploymentSummary {
    /// The data file's `model`.
    pub model: String,
    /// The chapter holding the directive, relative to the source dir.
    pub model_chapter: PathBuf,
    /// Anchor of the directive's section on that chapter.
    pub section_anchor: String,
    /// The deployment's generated chapter, relative to the source dir.
    pub chapter: PathBuf,
    pub cell: String,
    /// Its chapter title (`GB200 · Agg TP4 · DSpark 5`).
    pub title: String,
    /// Hardware id (`gb200`) and label (`GB200`).
    pub hw: String,
    pub hw_label: String,
    /// Checkpoint as the lane table shows it.
    pub checkpoint: String,
    /// `Agg TP4`, `Disagg 1P1D · …`.
    pub label: String,
    /// `MTP 3-1-4`, `DSpark 5`, …
    pub detail: Option<String>,
    /// GPUs it uses, and nodes its workers run on.
    pub gpus: u32,
    pub nodes: u32,
    /// Status of its submitted, measured launch of point 0.
    pub status: Status,
    /// Its command sets, in decoded order (point, router, tier).
    pub sets: Vec<SetSummary>,
}

/// One command set of a deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SetSummary {
    /// The set's stable anchor.
    pub anchor: String,
    /// Its heading text (`c16 · Dynamo + SGLang · No KV offload`).
    pub title: String,
    pub concs: Vec<u32>,
    pub tier: KvTier,
    pub router: Router,
    pub status: Status,
    /// The titles of its processes (`Prefill worker`).
    pub processes: Vec<String>,
    /// The names of the values a reader fills in (`ETCD_IP`).
    pub placeholders: Vec<String>,
    /// Its command lines, where flags and environment names are found.
    pub commands: Vec<String>,
}

/// Where a directive's deployments are shown.
pub(crate) struct ShownAt<'a> {
    pub model: &'a str,
    pub model_chapter: PathBuf,
    pub section_anchor: &'a str,
}

/// The summary of `d`, whose chapter is `chapter`.
pub(crate) fn summarize(at: &ShownAt<'_>, d: &Deployment, chapter: PathBuf) -> DeploymentSummary {
    DeploymentSummary {
        model: at.model.to_string(),
        model_chapter: at.model_chapter.clone(),
        section_anchor: at.section_anchor.to_string(),
        chapter,
        cell: d.cell_id.clone(),
        title: render::deployment_title(d),
        hw: d.hw.clone(),
        hw_label: d.hw_label.clone(),
        checkpoint: d.ckpt_label.clone(),
        label: d.label.clone(),
        detail: d.detail.clone(),
        gpus: d.gpus,
        nodes: d.nodes,
        status: d.status.clone(),
        sets: d.command_sets.iter().map(summarize_set).collect(),
    }
}

fn summarize_set(s: &CommandSet) -> SetSummary {
    SetSummary {
        anchor: s.anchor.clone(),
        title: render::command_set_title(s),
        concs: s.concs.clone(),
        tier: s.tier,
        router: s.router,
        status: s.status.clone(),
        processes: s
            .processes
            .iter()
            .map(|p| p.long_title.to_string())
            .collect(),
        placeholders: s.placeholders.iter().map(|p| p.name.clone()).collect(),
        commands: s.processes.iter().map(|p| p.command.to_string()).collect(),
    }
}
