//! Markdown for a decoded page: the section a directive expands to (intro,
//! bullets, lane table) and one sub-chapter per deployment holding every
//! command set of that deployment.
//!
//! Why sub-chapters: a large real page has over a thousand command sets; one
//! HTML page holding all of them would be megabytes. The model page keeps the
//! overview and links every measured launch; each deployment page holds at
//! most points × tiers × routers command sets.
//!
//! Output is plain CommonMark + GFM (tables, `{#id}` heading attributes, GFM
//! alerts), readable without JavaScript, and deterministic.
//!
//! Every data-derived string goes into the Markdown through
//! [`crate::util::escape`] (text, code spans, links, table cells); the only
//! strings written as they are are this module's own literals, numbers,
//! labels of this tool's enums and anchors (slugs: `[a-z0-9-]`).
//!
//! May use: `decode` (the model only, never the raw data), `data` (its
//! vocabulary: routers, tiers, image status), `util`.

mod changes;
mod chapter;
mod command_set;
mod html;
mod model_data;
mod selector;

use std::fmt::Write as _;

use self::chapter::deployment_chapter;
#[cfg(test)]
pub(crate) use self::command_set::command_set_markdown;
pub(crate) use self::command_set::{PROCESS_CLASS, command_set_title};
#[cfg(test)]
pub(crate) use self::model_data::model_data_scripts;
pub(crate) use self::model_data::{
    ModelDataJson, WholeData, light_model_data, model_data_json, splice_model_data,
};
use crate::data::KvTier;
use crate::decode::{DecodedPage, Deployment, Provenance, Status};
use crate::util::escape::{code, link, table_cell, text};

/// Anchor of the section heading on the model page.
pub(crate) const SECTION_ANCHOR: &str = "agentic-long-context-deployment";
pub(crate) const SECTION_TITLE: &str = "Agentic Long-Context Deployment";

/// Where the section goes and how it links to its sub-chapters.
#[derive(Debug, Clone)]
pub(crate) struct SectionOptions {
    /// Heading level of the section (1–5); its sub-headings are one deeper.
    pub heading_level: u8,
    /// Anchor of the section heading (unique on the page).
    pub anchor: String,
    /// Directory of the deployment chapters, relative to the model chapter's directory.
    pub subchapter_dir: String,
    /// File name of the model chapter, for the link back (`deepseek-v4.1.md`).
    pub chapter_file: String,
}

/// One generated deployment chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SubChapter {
    /// Path relative to the model chapter's directory.
    pub rel_path: String,
    /// Sidebar title.
    pub name: String,
    pub markdown: String,
}

#[derive(Debug, Clone)]
pub(crate) struct RenderedSection {
    pub markdown: String,
    pub subchapters: Vec<SubChapter>,
    /// Everything a deployment chapter shows besides its own deployment
    /// (the model's name and the chapter and section it links back to), for
    /// a later render to compare with ([`PreviousSection`]).
    pub context: String,
}

/// A section as rendered before (`serve`, `watch`): a deployment chapter
/// whose deployment and section context are unchanged is taken from it,
/// not rendered again, so a data edit re-renders the deployments it touched.
pub(crate) struct PreviousSection<'a> {
    /// The decoded page it showed.
    pub page: &'a DecodedPage,
    /// Its [`RenderedSection::context`].
    pub context: &'a str,
    /// Its deployment chapters' Markdown, by path relative to the model
    /// chapter's directory.
    pub chapter: &'a dyn Fn(&str) -> Option<&'a str>,
}

/// Renders the section and the deployment chapters for the given deployments
/// (already filtered by hardware); a deployment chapter is rendered only when
/// `wanted(rel_path)` says so (a chapter with several directives of one
/// page keeps the first rendering of each, and skips the cost of the rest).
/// `picker` is [`model_data_json`] of the same deployments, or
/// [`ModelDataJson::like`] an earlier section showing them: the caller
/// knows which sections of a chapter repeat one another.
pub(crate) fn render_section(
    page: &DecodedPage,
    deployments: &[&Deployment],
    picker: &ModelDataJson,
    opts: &SectionOptions,
    wanted: &dyn Fn(&str) -> bool,
    previous: Option<&PreviousSection<'_>>,
) -> RenderedSection {
    let h = |extra: u8| "#".repeat((opts.heading_level + extra).min(6) as usize);
    let mut md = String::new();
    let _ = writeln!(md, "{} {SECTION_TITLE} {{#{}}}\n", h(0), opts.anchor);
    md.push_str(
        "> [!WARNING]\n> These launch commands are mirrored from SemiAnalysis InferenceX AgentX \
         submissions. They have not been verified by the maintainers of these docs: check flags \
         against the image you run.\n\n",
    );
    md.push_str(&model_data::model_data_html(picker, &opts.anchor));
    let _ = writeln!(
        md,
        "AgentX replays multi-turn agentic-coding traces whose long, reusable prefixes reward \
         KV-cache reuse and host offload. The table lists every deployment of {} that was \
         submitted to AgentX. Each deployment links to a page with every launch as raw commands, \
         one block per process in launch order, for each concurrency point, KV-offload tier and \
         router. Launches that were measured link to the run that measured them; the others say \
         what they were derived from.\n",
        text(&page.model)
    );
    md.push_str(&bullets(page, deployments));
    let _ = writeln!(md, "{} Deployments\n", h(1));
    md.push_str(
        "Ordered as submitted. The concurrency links open the measured launch of each point.\n\n",
    );
    // Collapsible: the picker above holds every launch, and on a phone the
    // table's cards are most of the page (agentx.js closes it there).
    let _ = write!(
        md,
        "<details class=\"agentx-lanes\" open>\n<summary>All {} deployments, with their measured \
         launches</summary>\n\n",
        deployments.len()
    );
    md.push_str(&lane_table(deployments, opts));
    md.push_str("</details>\n\n");
    // What a deployment chapter shows of its section: the model's name
    // and the link back (each chapter carries only its own selector data).
    let context = format!("{}\n{}\n{}", opts.chapter_file, opts.anchor, page.model);
    let reuse = previous
        .filter(|p| p.context == context)
        .map(|p| chapter::Reuse::new(p.page, p.chapter));
    let subchapters = deployments
        .iter()
        .map(|d| (d, subchapter_path(opts, d)))
        .filter(|(_, rel_path)| wanted(rel_path))
        .map(|(d, rel_path)| {
            let markdown = reuse
                .as_ref()
                .and_then(|r| r.markdown(d, &rel_path))
                .unwrap_or_else(|| deployment_chapter(page, d, opts));
            SubChapter {
                name: format!("{} · {}", page.model, deployment_title(d)),
                rel_path,
                markdown,
            }
        })
        .collect();
    RenderedSection {
        markdown: md,
        subchapters,
        context,
    }
}

/// A deployment chapter's path, relative to the model chapter's directory.
pub(crate) fn subchapter_path(opts: &SectionOptions, d: &Deployment) -> String {
    format!("{}/{}.md", opts.subchapter_dir, d.anchor)
}

/// `GB300 · Agg TP2·EP2 · DSpark 5`, as plain text (a sidebar name; pass it
/// through [`text`] to put it into Markdown).
pub(crate) fn deployment_title(d: &Deployment) -> String {
    match &d.detail {
        Some(detail) => format!("{} · {} · {}", d.hw_label, d.label, detail),
        None => format!("{} · {}", d.hw_label, d.label),
    }
}

fn bullets(page: &DecodedPage, deployments: &[&Deployment]) -> String {
    let mut out = String::new();
    out.push_str(
        "- **Router.** Each deployment was submitted behind one front door: Dynamo \
         (`dynamo.frontend` with `dynamo.sglang` workers) or SGLang (`sglang.launch_server`, \
         behind `sglang_router` when there are several workers or DP-attention ranks). The other \
         router is derived by re-rendering the recipe and is marked \"Derived — not run\".\n",
    );
    let mut hicache_donors: Vec<String> = Vec::new();
    for d in deployments {
        if let Some(hc) = &d.hicache {
            let s = format!("{} ({})", code(&hc.donor), text(&hc.donor_hardware));
            if !hicache_donors.contains(&s) {
                hicache_donors.push(s);
            }
        }
    }
    let _ = write!(
        out,
        "- **KV offload.** Each point was measured with one tier: none, HiCache (host DRAM) or a \
         Mooncake store through the external linker. The other tiers are derived by swapping only \
         the KV settings, on the workers that hold the prefix cache."
    );
    if !hicache_donors.is_empty() {
        let _ = write!(
            out,
            " HiCache settings come from a verified launch of this model: {}.",
            hicache_donors.join(", ")
        );
    }
    let any_mooncake = deployments
        .iter()
        .any(|d| d.available.contains(&KvTier::Mooncake));
    if let (true, Some(km)) = (any_mooncake, &page.mooncake) {
        let _ = write!(
            out,
            " Mooncake settings come from the verified {} launch ({}).",
            code(&km.donor),
            text(&km.donor_hardware)
        );
    }
    out.push_str(
        " Mooncake needs an image whose SGLang build includes \
         `--enable-unified-cache-external-linker`; tiers an image cannot run are listed with the \
         reason.\n",
    );
    out.push_str(
        "- **What changed from the submission.** The benchmark harness, SemiAnalysis cluster \
         paths and caches, telemetry switches and the synthetic speculative-decoding acceptance \
         that InferenceX injects are removed. IPs, ports and NIC names become placeholders, listed \
         under **Env Vars** with each launch. Everything else is mirrored as submitted.\n",
    );
    out.push_str(
        "- **Container image.** Run the commands inside the image listed for each deployment. \
         Several are nightlies, so flag names follow that image.\n\n",
    );
    out
}

/// The lane table: one row per deployment. Provenance and image are on each
/// deployment's chapter (its facts table), so that the table fits a desktop
/// window without sideways scrolling.
fn lane_table(deployments: &[&Deployment], opts: &SectionOptions) -> String {
    let mut t = String::from(
        "| Hardware | Checkpoint | Deployment | Detail | GPUs | Concurrency | Measured KV | Router | Status |\n\
         |---|---|---|---|--:|---|---|---|---|\n",
    );
    for d in deployments {
        let path = subchapter_path(opts, d);
        let concs: Vec<String> = d
            .command_sets
            .iter()
            .filter(|s| s.status != Status::Derived)
            .map(|s| link(&text(&s.concs_label()), &format!("{path}#{}", s.anchor)))
            .collect();
        let measured: Vec<&str> = d.measured.iter().map(|t| t.label()).collect();
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            table_cell(&text(&d.hw_label)),
            table_cell(&text(&d.ckpt_label)),
            table_cell(&link(&text(&d.label), &path)),
            table_cell(&text(d.detail.as_deref().unwrap_or("—"))),
            d.gpus,
            table_cell(&concs.join(" · ")),
            measured.join(", "),
            d.submitted.label(),
            html::badge(&d.status, &d.status.label()),
        );
    }
    t.push('\n');
    t
}

/// `[run](…) · [PR #N](…) · [recipe @ abc1234](…)`
fn provenance_links(p: &Provenance, with_recipe: bool) -> String {
    let mut parts = Vec::new();
    if let Some(u) = &p.run_url {
        parts.push(link("SA sweep run", u));
    }
    if let Some(pr) = &p.pr {
        let label = text(&format!("InferenceX PR #{pr}"));
        parts.push(match &p.pr_url {
            Some(u) => link(&label, u),
            None => label,
        });
    }
    if let Some(u) = &p.comment_url {
        parts.push(link("sign-off", u));
    }
    if with_recipe && let Some(u) = &p.recipe_url {
        let label = match &p.sha {
            Some(sha) => text(&format!("recipe @ {}", short_sha(sha))),
            None => "recipe".to_string(),
        };
        parts.push(link(&label, u));
    }
    if parts.is_empty() {
        "—".into()
    } else {
        parts.join(" · ")
    }
}

/// The first 7 characters (not bytes: data may put anything there).
fn short_sha(sha: &str) -> String {
    sha.chars().take(7).collect()
}

fn commit_link(commit: &str) -> String {
    link(
        &code(commit),
        &format!("https://github.com/sgl-project/sglang/commit/{commit}"),
    )
}
