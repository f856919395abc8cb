//! What the offline selector (agentx.js) needs, emitted at build time from
//! the decoded command sets: the rows' choices for every deployment of a
//! section, each command set's keys and anchor, and on a deployment chapter
//! the titles and placements its command window shows. The browser decodes
//! nothing.
//!
//! The markup is an empty `<div class="agentx-selector">` (nothing shows
//! without JavaScript) and one
//! `<script type="application/json" class="agentx-selector-data">`.
//!
//! May use: `decode` (the model), `data` (routers, tiers), `render::html`.

use serde::Serialize;
use serde::ser::Serializer;

use super::html;
use crate::data::{KvTier, Router};
use crate::decode::{
    CommandSet, ConfigFile, DecodedPage, Deployment, UnavailableTier, concs_label,
};

/// The page a selector is on.
pub(super) enum SelectorPage<'a> {
    /// The model page's section (`section` is its heading's anchor): `dir`
    /// is the deployment chapters' directory relative to it.
    Model { dir: &'a str, section: &'a str },
    /// A deployment chapter (its siblings are the other deployments).
    Deployment(&'a Deployment),
}

/// The selector's markup and data for a section of `deployments`.
pub(super) fn selector_html(
    page: &DecodedPage,
    deployments: &[&Deployment],
    on: &SelectorPage<'_>,
) -> String {
    let json = html::script_json(&selector_data(page, deployments, on));
    // One buffer of the final size: `format!` grew it by doubling, copying
    // the (long) JSON each time.
    const HEAD: &str = "<div class=\"agentx-selector\" hidden></div>\n<script type=\"application/json\" \
                        class=\"agentx-selector-data\">";
    const TAIL: &str = "</script>\n\n";
    let mut out = String::with_capacity(HEAD.len() + json.len() + TAIL.len());
    out.push_str(HEAD);
    out.push_str(&json);
    out.push_str(TAIL);
    out
}

// The JSON is written from these borrowed structs (field order = key
// order), not built as `serde_json::Value`s first: building and dropping
// those trees was about a tenth of a sample build's instructions.

/// The JSON the selector reads (see agentx.js for how).
#[derive(Serialize)]
pub(super) struct SelectorData<'a> {
    model: &'a str,
    hw: Vec<&'a str>,
    tiers: [(&'static str, &'static str); 3],
    routers: [(&'static str, &'static str); 2],
    deps: Vec<DeploymentData<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    section: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    here: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "window_map")]
    win: Option<&'a [CommandSet]>,
}

/// The JSON the selector reads (see agentx.js for how).
pub(super) fn selector_data<'a>(
    page: &'a DecodedPage,
    deployments: &[&'a Deployment],
    on: &SelectorPage<'a>,
) -> SelectorData<'a> {
    let mut hardware: Vec<(&str, &str)> = Vec::new();
    for id in &page.hardware {
        if let Some(d) = deployments.iter().find(|d| &d.hw == id) {
            hardware.push((&d.hw, &d.hw_label));
        }
    }
    let deps = deployments
        .iter()
        .map(|d| {
            let hw = hardware.iter().position(|(id, _)| *id == d.hw);
            let href = match on {
                SelectorPage::Model { dir, .. } => format!("{dir}/{}.md", d.anchor),
                SelectorPage::Deployment(_) => format!("{}.md", d.anchor),
            };
            deployment_data(d, hw.unwrap_or(0), href)
        })
        .collect();
    let (section, here, win) = match on {
        SelectorPage::Model { section, .. } => (Some(*section), None, None),
        SelectorPage::Deployment(d) => (None, Some(d.anchor.as_str()), Some(&d.command_sets[..])),
    };
    SelectorData {
        model: &page.model,
        hw: hardware.iter().map(|(_, l)| *l).collect(),
        tiers: KvTier::ALL.map(|t| (t.id(), t.label())),
        routers: Router::ALL.map(|r| (r.id(), r.label())),
        deps,
        section,
        here,
        win,
    }
}

/// `win`: each set's anchor → what its command window shows.
fn window_map<S: Serializer>(sets: &Option<&[CommandSet]>, ser: S) -> Result<S::Ok, S::Error> {
    let sets = sets.unwrap_or_default();
    ser.collect_map(sets.iter().map(|s| (&s.anchor, window_data(s))))
}

/// One deployment: its chips' texts and every command set's keys.
#[derive(Serialize)]
struct DeploymentData<'a> {
    anchor: &'a str,
    href: String,
    hw: usize,
    ckpt: &'a str,
    label: &'a str,
    sub: String,
    submitted: &'static str,
    available: Vec<&'static str>,
    #[serde(serialize_with = "unavailable_map")]
    unavailable: &'a [UnavailableTier],
    /// `[label, measured status id or null]` per concurrency point.
    points: Vec<(String, Option<&'static str>)>,
    /// `[point, tier, router, anchor, status id, status label]` per set.
    sets: Vec<(
        usize,
        &'static str,
        &'static str,
        &'a str,
        &'static str,
        String,
    )>,
}

/// `unavailable`: tier id → the reason it is not offered.
fn unavailable_map<S: Serializer>(tiers: &&[UnavailableTier], ser: S) -> Result<S::Ok, S::Error> {
    ser.collect_map(tiers.iter().map(|u| (u.tier.id(), &u.reason)))
}

fn deployment_data(d: &Deployment, hw: usize, href: String) -> DeploymentData<'_> {
    let points = (0..d.concs.len())
        .map(|pi| {
            let measured = d
                .command_sets
                .iter()
                .find(|s| s.point == pi)
                .map(|s| s.measured.id());
            (concs_label(&d.concs[pi]), measured)
        })
        .collect();
    let sets = d
        .command_sets
        .iter()
        .map(|s| {
            (
                s.point,
                s.tier.id(),
                s.router.id(),
                s.anchor.as_str(),
                s.status.id(),
                s.status.label(),
            )
        })
        .collect();
    DeploymentData {
        anchor: &d.anchor,
        href,
        hw,
        ckpt: &d.ckpt_label,
        label: &d.label,
        sub: deployment_subline(d),
        submitted: d.submitted.id(),
        available: d.available.iter().map(|t| t.id()).collect(),
        unavailable: &d.unavailable,
        points,
        sets,
    }
}

/// The Deployment chip's sub-line: `MTP 3-1-4 · 8 GPUs · c1, c4, c16`.
fn deployment_subline(d: &Deployment) -> String {
    let concs: Vec<String> = d.concs.iter().flatten().map(|c| c.to_string()).collect();
    let mut parts = Vec::new();
    if let Some(detail) = &d.detail {
        parts.push(detail.clone());
    }
    parts.push(format!("{} GPUs", d.gpus));
    parts.push(format!("c{}", concs.join(", c")));
    parts.join(" · ")
}

/// What the command window of one set shows beyond the page's markup: the
/// tab title, comment title and placement of each process, how many config
/// files follow each, and whether an Env Vars block comes first.
#[derive(Serialize)]
struct WindowData<'a> {
    env: bool,
    /// `[title, long title, placement, files]` per process.
    procs: Vec<(&'a str, &'a str, &'a str, Vec<FileData<'a>>)>,
    loose: Vec<FileData<'a>>,
}

fn window_data(s: &CommandSet) -> WindowData<'_> {
    WindowData {
        env: !s.placeholders.is_empty(),
        procs: s
            .processes
            .iter()
            .map(|p| {
                let files = p.files.iter().map(file_data).collect();
                (&*p.title, &*p.long_title, &*p.placement, files)
            })
            .collect(),
        loose: s.loose_files.iter().map(file_data).collect(),
    }
}

/// A config file in Copy all: `[name, "cat > name <<'EOF'", "EOF"]`.
type FileData<'a> = (&'a str, String, String);

fn file_data(f: &ConfigFile) -> FileData<'_> {
    let (head, delim) = f.heredoc();
    (&f.name, head, delim)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::fixture;

    /// The data of the fixture's GB300 deployment chapter, pretty-printed
    /// (reviewed by hand against `decode --json` of the same cell: chips'
    /// texts, each set's keys, anchor and status, the window's titles and
    /// placements, nats.conf/nginx.conf as here-documents).
    #[test]
    fn selector_data_snapshot() {
        let page = crate::decode::decode_file(&fixture("data/mini.json"))
            .unwrap()
            .page;
        let gb300: Vec<&Deployment> = page
            .deployments
            .iter()
            .filter(|d| d.hw == "gb300")
            .collect();
        let data = selector_data(&page, &gb300, &SelectorPage::Deployment(gb300[0]));
        insta::assert_snapshot!(
            "selector_data_gb300",
            serde_json::to_string_pretty(&data).unwrap()
        );
        let html = selector_html(&page, &gb300, &SelectorPage::Deployment(gb300[0]));
        assert!(html.starts_with("<div class=\"agentx-selector\" hidden></div>\n<script"));
        assert_eq!(html.matches('<').count(), 4, "no `<` inside the JSON");
    }
}
