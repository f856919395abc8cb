//! What a deployment page's selector (agentx.js) needs, emitted at build
//! time from the decoded command sets: that deployment's rows (concurrency,
//! KV offload, router), each of its command sets' keys and anchor, the
//! titles and placements its command window shows, and the link to the
//! model page, whose picker holds the other deployments
//! ([`super::model_data`]). Only its own data: a page carrying every
//! sibling's made a model with 1,000 deployments a 3.0 GB site. The
//! browser decodes nothing.
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
use crate::decode::{CommandSet, ConfigFile, Deployment, UnavailableTier, concs_label};

/// A deployment page's selector: markup and its own data. `model` is the
/// model page's section (`../glm-5.2.md#agentic-long-context-deployment`).
pub(super) fn selector_html(model_name: &str, d: &Deployment, model: &str) -> String {
    let data = selector_data(model_name, d, model);
    html::mount_with_data("agentx-selector", "agentx-selector-data", &data)
}

// The JSON is written from these borrowed structs (field order = key
// order), not built as `serde_json::Value`s first: building and dropping
// those trees was about a tenth of a sample build's instructions.

/// The JSON a deployment page's selector reads (see agentx.js for how).
#[derive(Serialize)]
pub(super) struct SelectorData<'a> {
    model: &'a str,
    hw: [&'a str; 1],
    tiers: Labels<3>,
    routers: Labels<2>,
    deps: [DeploymentData<'a>; 1],
    /// This page's deployment.
    here: &'a str,
    /// The model page's picker.
    #[serde(rename = "modelHref")]
    model_href: &'a str,
    win: WindowTable<'a>,
}

/// The JSON a deployment page's selector reads.
pub(super) fn selector_data<'a>(
    model_name: &'a str,
    d: &'a Deployment,
    model: &'a str,
) -> SelectorData<'a> {
    let (tiers, routers) = tier_and_router_labels();
    SelectorData {
        model: model_name,
        hw: [&d.hw_label],
        tiers,
        routers,
        deps: [deployment_data(d, 0, format!("{}.md", d.anchor))],
        here: &d.anchor,
        model_href: model,
        win: window_table(&d.command_sets),
    }
}

/// `(id, chip label)` of each KV tier, and of each router.
pub(super) type Labels<const N: usize> = [(&'static str, &'static str); N];

/// The KV tiers' and routers' ids and chip labels.
pub(super) fn tier_and_router_labels() -> (Labels<3>, Labels<2>) {
    (
        KvTier::ALL.map(|t| (t.id(), t.label())),
        Router::ALL.map(|r| (r.id(), r.label())),
    )
}

/// One set's keys: `[point, tier, router, anchor, status id, status label]`,
/// and what the model page writes instead ([`SetExtra`]).
pub(super) type SetKeys<'a> = (
    usize,
    &'static str,
    &'static str,
    &'a str,
    &'static str,
    String,
    Option<SetExtra>,
);

/// On the model page a set is `[point, tier, router, anchor, status id,
/// status label (an index into the shared texts), window]`: the same keys,
/// shorter, as the page holds every set of the model. The anchor is `0`
/// when it is the usual one, `<deployment>-c<concurrencies joined by
/// ->-<tier>-<router>` (content/guide/directive.md, "Stable anchors"),
/// else written whole.
#[derive(Debug, Clone)]
pub(super) struct SetExtra {
    /// The anchor, when it is not the usual one.
    pub(super) anchor: Option<String>,
    pub(super) label: u32,
    pub(super) window: usize,
}

impl SetExtra {
    /// The anchor of `s` as the model page writes it (see [`SetExtra`]).
    pub(super) fn anchor_of(s: &CommandSet, deployment: &str) -> Option<String> {
        let concs: Vec<String> = s.concs.iter().map(u32::to_string).collect();
        let usual = format!(
            "{deployment}-c{}-{}-{}",
            concs.join("-"),
            s.tier.id(),
            s.router.id()
        );
        (usual != s.anchor).then(|| s.anchor.clone())
    }
}

/// One deployment: its chips' texts and every command set's keys.
#[derive(Serialize)]
pub(super) struct DeploymentData<'a> {
    anchor: &'a str,
    href: String,
    hw: usize,
    ckpt: &'a str,
    label: &'a str,
    sub: String,
    gpus: u32,
    /// Nodes its workers occupy (the decoding rules' count): the picker's
    /// GPU budget filter reads `gpus` and `nodes`, since GPUs per node
    /// differ by hardware.
    nodes: u32,
    submitted: &'static str,
    available: Vec<&'static str>,
    #[serde(serialize_with = "unavailable_map")]
    unavailable: &'a [UnavailableTier],
    /// `[label, measured status id or null]` per concurrency point.
    pub(super) points: Vec<(String, Option<&'static str>)>,
    /// Each set's keys; the window index is left out when there is none.
    #[serde(serialize_with = "set_list")]
    pub(super) sets: Vec<SetKeys<'a>>,
}

/// `sets`: six elements per set, seven on the model page ([`SetExtra`]).
fn set_list<S: Serializer>(sets: &[SetKeys<'_>], ser: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = ser.serialize_seq(Some(sets.len()))?;
    for s in sets {
        match &s.6 {
            Some(x) => match &x.anchor {
                Some(a) => seq.serialize_element(&(s.0, s.1, s.2, a, s.4, x.label, x.window))?,
                None => seq.serialize_element(&(s.0, s.1, s.2, 0, s.4, x.label, x.window))?,
            },
            None => seq.serialize_element(&(s.0, s.1, s.2, s.3, s.4, &s.5))?,
        }
    }
    seq.end()
}

/// `unavailable`: tier id → the reason it is not offered.
fn unavailable_map<S: Serializer>(tiers: &&[UnavailableTier], ser: S) -> Result<S::Ok, S::Error> {
    ser.collect_map(tiers.iter().map(|u| (u.tier.id(), &u.reason)))
}

pub(super) fn deployment_data(d: &Deployment, hw: usize, href: String) -> DeploymentData<'_> {
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
                None,
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
        gpus: d.gpus,
        nodes: d.nodes,
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

/// What the command windows of a deployment's sets show beyond the page's
/// markup: each distinct process once (`[title, long title, placement,
/// files]`: its tab, comment title, placement and the config files that
/// follow it), and per set, in the order of the deployment's `sets`
/// (whose anchors name them), `[Env Vars block first (0/1), [processes],
/// [loose files]]`.
#[derive(Serialize)]
pub(super) struct WindowTable<'a> {
    procs: Vec<ProcData<'a>>,
    sets: Vec<(u8, Vec<usize>, Vec<FileData<'a>>)>,
}

type ProcData<'a> = (&'a str, &'a str, &'a str, Vec<FileData<'a>>);

fn window_table(sets: &[CommandSet]) -> WindowTable<'_> {
    let mut procs: Vec<ProcData<'_>> = Vec::new();
    let sets = sets
        .iter()
        .map(|s| {
            let list = s
                .processes
                .iter()
                .map(|p| {
                    let files = p.files.iter().map(file_data).collect();
                    let data = (&*p.title, &*p.long_title, &*p.placement, files);
                    match procs.iter().position(|q| *q == data) {
                        Some(i) => i,
                        None => {
                            procs.push(data);
                            procs.len() - 1
                        }
                    }
                })
                .collect();
            let loose = s.loose_files.iter().map(file_data).collect();
            (u8::from(!s.placeholders.is_empty()), list, loose)
        })
        .collect();
    WindowTable { procs, sets }
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
    /// placements, nats.conf/nginx.conf as here-documents). Only its own
    /// deployment: no sibling's chips or keys.
    #[test]
    fn selector_data_snapshot() {
        let page = crate::decode::decode_file(&fixture("data/mini.json"))
            .unwrap()
            .page;
        let gb300 = page.deployments.iter().find(|d| d.hw == "gb300").unwrap();
        let model = "../mini.md#agentic-long-context-deployment";
        let data = selector_data(&page.model, gb300, model);
        insta::assert_snapshot!(
            "selector_data_gb300",
            serde_json::to_string_pretty(&data).unwrap()
        );
        let html = selector_html(&page.model, gb300, model);
        assert!(html.starts_with("<div class=\"agentx-selector\" hidden></div>\n<script"));
        assert_eq!(html.matches('<').count(), 4, "no `<` inside the JSON");
        for other in page.deployments.iter().filter(|d| d.anchor != gb300.anchor) {
            assert!(!html.contains(&other.anchor), "{}", other.anchor);
        }
    }

    /// Every deployment's data carries its GPUs and nodes as decoded, for
    /// the model page's GPU budget filter. The fixture's GB300 deployment
    /// counted by hand from its blocks: one prefill worker spanning 2 nodes,
    /// two decode workers pinned to 2 GPU groups of one shared node: 3
    /// nodes, 12 GPUs; the H200 ones run on one node.
    #[test]
    fn deployment_data_carries_gpus_and_nodes() {
        let page = crate::decode::decode_file(&fixture("data/mini.json"))
            .unwrap()
            .page;
        let mut seen = Vec::new();
        for d in &page.deployments {
            let json = serde_json::to_value(deployment_data(d, 0, String::new())).unwrap();
            assert_eq!(json["gpus"], d.gpus, "{}", d.anchor);
            assert_eq!(json["nodes"], d.nodes, "{}", d.anchor);
            seen.push((d.hw.as_str(), d.gpus, d.nodes));
        }
        assert_eq!(
            seen,
            [("h200", 4, 1), ("gb300", 12, 3), ("h200", 2, 1)],
            "as counted by hand"
        );
    }
}
