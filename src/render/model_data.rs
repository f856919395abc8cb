//! The model page's data, once per section: everything the launch picker
//! (agentx.js) needs to show any command set of the model without another
//! page: the rows' choices of every deployment, each set's keys, and each
//! set's command window (processes, commands, config files, notes, what a
//! derived set changes, where its run is recorded).
//!
//! Why here and not on the deployment pages: each deployment page carried
//! every sibling's choices, so a model with 1,000 deployments built a
//! 3.0 GB site. Now a deployment page carries only its own data
//! ([`super::selector`]) and the model's data is written once.
//!
//! Commands repeat across points, tiers and routers, and a command's
//! lines repeat across commands, so texts are shared: `text` holds each
//! distinct string once (command lines, titles, placements, labels), a
//! command is a list of its lines' indices, and processes, config files,
//! notes and windows are each listed once and referred to by index. Texts
//! that show as rich text (notes, placements, provenance, changes) are
//! parsed from this module's Markdown into segments at build time: a
//! string (plain text), `["c", code]` or `["a", text, href]`. The browser
//! builds elements from them with text nodes only; it parses no markup.
//!
//! May use: `decode` (the model), `data` (routers, tiers), `render`'s
//! siblings (the Markdown it writes), `util` (Markdown parsing).

use std::borrow::Cow;
use std::collections::HashMap;

use pulldown_cmark::{Event, Tag, TagEnd};
use serde::Serialize;
use serde_json::{Value, json};

mod light;

#[cfg(test)]
pub(crate) use self::light::model_data_scripts;
pub(crate) use self::light::{WholeData, light_model_data, splice_model_data};
use super::changes::ProcessChange;
use super::html;
use super::selector::{DeploymentData, Labels, SetExtra, deployment_data, tier_and_router_labels};
use crate::decode::{CommandSet, ConfigFile, DecodedPage, Deployment, Process, Status};

/// The picker's data of one section as JSON, or the name of an earlier
/// section of the page whose picker has the same data: a chapter carries
/// a page and hardware's data once (issue 25: 10,000 directives of one
/// page carried 10,000 copies of 20 KB) and agentx.js reads that section's
/// for a repeat (`{"like": section}`).
pub(crate) struct ModelDataJson(String);

/// How the JSON of [`ModelDataJson::like`] starts.
const LIKE: &str = "{\"like\":";

impl ModelDataJson {
    /// The data of the picker of section `section` (its heading anchor),
    /// earlier on the same page.
    pub(crate) fn like(section: &str) -> ModelDataJson {
        let json = html::script_json(&serde_json::json!({ "like": section }));
        debug_assert!(json.starts_with(LIKE));
        ModelDataJson(json)
    }

    /// Whether `json` (a model-data script's text) names an earlier
    /// section's picker rather than holding data.
    pub(crate) fn is_like(json: &str) -> bool {
        json.starts_with(LIKE)
    }
}

/// The picker's data for `deployments` of `page`, whose chapters are in `dir`.
pub(crate) fn model_data_json(
    page: &DecodedPage,
    deployments: &[&Deployment],
    dir: &str,
) -> ModelDataJson {
    ModelDataJson(html::script_json(&model_data(page, deployments, dir)))
}

/// The model page's markup: an empty, hidden mount for the picker, naming
/// the section it belongs to (`data-section`, the heading's anchor), and
/// its data script. Nothing shows without JavaScript.
pub(super) fn model_data_html(data: &ModelDataJson, section: &str) -> String {
    html::mount_with_json(
        "agentx-picker",
        Some(("data-section", section)),
        "agentx-model-data",
        &data.0,
    )
}

/// The JSON the picker reads (field order = key order).
#[derive(Serialize)]
pub(super) struct ModelData<'a> {
    model: &'a str,
    hw: Vec<&'a str>,
    tiers: Labels<3>,
    routers: Labels<2>,
    /// Each deployment: chips and sets; a set's last element is its window.
    deps: Vec<DeploymentData<'a>>,
    /// Every distinct string.
    text: Vec<Cow<'a, str>>,
    /// Each distinct text of several lines (a command, a config file, the
    /// exports): its lines as indices into `text`, or `{"b": base, "d":
    /// edits}`: the lines of an earlier entry `base` with `edits`, a flat
    /// list of `at, removed, inserted, lines…` splices in the base's
    /// positions, applied last to first (commands differ by a few flags).
    cmds: Vec<Value>,
    /// Each distinct config file: `[name, "cat > name <<'EOF'", content
    /// (its lines, an index into `cmds`), "EOF"]`.
    files: Vec<[u32; 4]>,
    /// Each distinct process: `[title, long title, placement (Markdown, as
    /// Copy all writes it), placement (rich), command, [files]]`.
    procs: Vec<(u32, u32, u32, u32, u32, Vec<u32>)>,
    /// Each distinct rich text: segments.
    rich: Vec<Value>,
    /// Each set's command window.
    wins: Vec<Window>,
}

/// One set's command window, by indices.
#[derive(Serialize)]
struct Window {
    /// The Env Vars block (`export …` lines, an index into `cmds`), when
    /// the set has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    e: Option<u32>,
    /// Processes in launch order.
    p: Vec<u32>,
    /// Config files no command names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    l: Vec<u32>,
    /// Notes (rich).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    n: Vec<u32>,
    /// What a derived set changes against the measured launch of its
    /// point, one entry per process: `[title, "+"]` (a process it adds),
    /// `[title, "-"]` (one it drops) or `[title, [added], [removed],
    /// [old, new, old, new, …]]` (setting lines); all indices into `text`.
    /// Then that launch's title.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    c: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cb: Option<u32>,
    /// Where the run is recorded (rich), for a measured set.
    #[serde(skip_serializing_if = "Option::is_none")]
    m: Option<u32>,
}

/// Shared tables, each entry once.
#[derive(Default)]
struct Tables<'a> {
    text: Vec<Cow<'a, str>>,
    text_at: HashMap<Cow<'a, str>, u32>,
    cmds: Vec<Value>,
    /// Each entry of `cmds` as its lines.
    cmd_lines: Vec<Vec<u32>>,
    cmd_at: HashMap<Cow<'a, str>, u32>,
    files: Vec<[u32; 4]>,
    procs: Vec<(u32, u32, u32, u32, u32, Vec<u32>)>,
    proc_at: HashMap<(u32, u32, u32, u32, Vec<u32>), u32>,
    rich: Vec<Value>,
    rich_at: HashMap<String, u32>,
}

impl<'a> Tables<'a> {
    fn text(&mut self, s: impl Into<Cow<'a, str>>) -> u32 {
        let s = s.into();
        if let Some(i) = self.text_at.get(&s) {
            return *i;
        }
        let i = self.text.len() as u32;
        self.text.push(s.clone());
        self.text_at.insert(s, i);
        i
    }

    /// Text of several lines (a command, a file, the exports), as the
    /// indices of its lines.
    fn command(&mut self, command: impl Into<Cow<'a, str>>) -> u32 {
        let command = command.into();
        if let Some(i) = self.cmd_at.get(&command) {
            return *i;
        }
        let lines: Vec<u32> = match &command {
            Cow::Borrowed(c) => c.split('\n').map(|l| self.text(l)).collect(),
            Cow::Owned(c) => c.split('\n').map(|l| self.text(l.to_string())).collect(),
        };
        let i = self.cmds.len() as u32;
        self.cmds.push(delta(&self.cmd_lines, &lines));
        self.cmd_lines.push(lines);
        self.cmd_at.insert(command, i);
        i
    }

    fn file(&mut self, f: &'a ConfigFile) -> u32 {
        let (head, delim) = f.heredoc();
        let entry = [
            self.text(f.name.as_str()),
            self.text(head),
            self.command(f.content.trim_end()),
            self.text(delim),
        ];
        match self.files.iter().position(|e| *e == entry) {
            Some(i) => i as u32,
            None => {
                self.files.push(entry);
                self.files.len() as u32 - 1
            }
        }
    }

    /// Markdown of one line as rich-text segments.
    fn rich(&mut self, markdown: &str) -> u32 {
        if let Some(i) = self.rich_at.get(markdown) {
            return *i;
        }
        let i = self.rich.len() as u32;
        self.rich.push(segments(markdown));
        self.rich_at.insert(markdown.to_string(), i);
        i
    }

    fn process(&mut self, p: &'a Process) -> u32 {
        let files: Vec<u32> = p.files.iter().map(|f| self.file(f)).collect();
        let key = (
            self.text(&*p.title),
            self.text(&*p.long_title),
            self.text(&*p.placement),
            self.command(&*p.command),
            files,
        );
        if let Some(i) = self.proc_at.get(&key) {
            return *i;
        }
        let placement = self.rich(&p.placement);
        let i = self.procs.len() as u32;
        self.procs
            .push((key.0, key.1, key.2, placement, key.3, key.4.clone()));
        self.proc_at.insert(key, i);
        i
    }

    fn change(&mut self, title: &'a str, change: &ProcessChange<'a>) -> Value {
        let title = self.text(title);
        match change {
            ProcessChange::Added => json!([title, "+"]),
            ProcessChange::Removed => json!([title, "-"]),
            ProcessChange::Settings {
                added,
                removed,
                changed,
            } => {
                let mut lines = |v: &[&'a str]| v.iter().map(|l| self.text(*l)).collect::<Vec<_>>();
                let (a, r) = (lines(added), lines(removed));
                let pairs: Vec<u32> = changed
                    .iter()
                    .flat_map(|(o, n)| [*o, *n])
                    .map(|l| self.text(l))
                    .collect();
                json!([title, a, r, pairs])
            }
        }
    }

    fn window(&mut self, s: &'a CommandSet, d: &'a Deployment) -> Window {
        let exports = crate::decode::env_exports(&s.placeholders);
        let e = (!s.placeholders.is_empty())
            .then(|| self.command(exports.trim_end_matches('\n').to_string()));
        let p = s.processes.iter().map(|p| self.process(p)).collect();
        let l = s.loose_files.iter().map(|f| self.file(f)).collect();
        let n = s.notes.iter().map(|n| self.rich(&n.text())).collect();
        let base = d
            .command_sets
            .iter()
            .find(|b| b.point == s.point && b.router == d.submitted && b.tier == b.measured);
        let (c, cb) = match base {
            Some(b) if s.status == Status::Derived => {
                let items = super::changes::change_items(s, b);
                let c = items.iter().map(|(t, c)| self.change(t, c)).collect();
                (c, Some(self.text(super::command_set_title(b))))
            }
            _ => (Vec::new(), None),
        };
        let parts = super::command_set::provenance_parts(s);
        let m = (!parts.is_empty()).then(|| self.rich(&parts.join(" · ")));
        Window {
            e,
            p,
            l,
            n,
            c,
            cb,
            m,
        }
    }
}

/// The JSON the picker reads (see agentx.js for how).
pub(super) fn model_data<'a>(
    page: &'a DecodedPage,
    deployments: &[&'a Deployment],
    dir: &str,
) -> ModelData<'a> {
    let mut hardware: Vec<(&str, &str)> = Vec::new();
    for id in &page.hardware {
        if let Some(d) = deployments.iter().find(|d| &d.hw == id) {
            hardware.push((&d.hw, &d.hw_label));
        }
    }
    let mut t = Tables::default();
    let mut wins = Vec::new();
    let deps = deployments
        .iter()
        .map(|d| {
            let hw = hardware.iter().position(|(id, _)| *id == d.hw);
            let mut data = deployment_data(d, hw.unwrap_or(0), format!("{dir}/{}.md", d.anchor));
            for (i, s) in d.command_sets.iter().enumerate() {
                data.sets[i].6 = Some(SetExtra {
                    anchor: SetExtra::anchor_of(s, &d.anchor),
                    label: t.text(s.status.label()),
                    window: wins.len(),
                });
                wins.push(t.window(s, d));
            }
            data
        })
        .collect();
    let (tiers, routers) = tier_and_router_labels();
    ModelData {
        model: &page.model,
        hw: hardware.iter().map(|(_, l)| *l).collect(),
        tiers,
        routers,
        deps,
        text: t.text,
        cmds: t.cmds,
        files: t.files,
        procs: t.procs,
        rich: t.rich,
        wins,
    }
}

/// How many earlier texts [`delta`] compares a new one with.
const DELTA_WINDOW: usize = 24;

/// `lines` as the [`ModelData::cmds`] entry that takes the fewest numbers:
/// its lines, or the edits of the earlier entry (of the last
/// [`DELTA_WINDOW`]) that shares the most lines with it.
fn delta(earlier: &[Vec<u32>], lines: &[u32]) -> Value {
    let mine: std::collections::HashSet<u32> = lines.iter().copied().collect();
    let base = earlier
        .iter()
        .enumerate()
        .rev()
        .take(DELTA_WINDOW)
        .max_by_key(|(i, e)| (e.iter().filter(|l| mine.contains(l)).count(), *i));
    let Some((b, base)) = base else {
        return json!(lines);
    };
    let mut edits: Vec<u32> = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, base, lines) {
        let (tag, old, new) = op.as_tag_tuple();
        if tag != similar::DiffTag::Equal {
            edits.extend([old.start as u32, old.len() as u32, new.len() as u32]);
            edits.extend(&lines[new]);
        }
    }
    if edits.len() + 2 < lines.len() {
        json!({"b": b, "d": edits})
    } else {
        json!(lines)
    }
}

/// One line of this tool's Markdown (data in it escaped) as segments: the
/// text a reader sees, with code spans and links kept apart.
fn segments(markdown: &str) -> Value {
    let config = crate::util::cmark::MarkdownConfig::plain();
    let mut out: Vec<Value> = Vec::new();
    let mut link: Option<(String, String)> = None;
    let push_text = |out: &mut Vec<Value>, link: &mut Option<(String, String)>, s: &str| {
        if let Some((text, _)) = link {
            text.push_str(s);
        } else if let Some(Value::String(last)) = out.last_mut() {
            last.push_str(s);
        } else {
            out.push(Value::String(s.to_string()));
        }
    };
    for event in config.parser(markdown) {
        match event {
            Event::Text(s) | Event::Html(s) | Event::InlineHtml(s) => {
                push_text(&mut out, &mut link, &s)
            }
            Event::SoftBreak | Event::HardBreak => push_text(&mut out, &mut link, " "),
            Event::Code(c) => match &mut link {
                Some((text, _)) => text.push_str(&c),
                None => out.push(json!(["c", &*c])),
            },
            Event::Start(Tag::Link { dest_url, .. }) => {
                link = Some((String::new(), dest_url.to_string()))
            }
            Event::End(TagEnd::Link) => {
                if let Some((text, href)) = link.take() {
                    out.push(json!(["a", text, href]));
                }
            }
            _ => {}
        }
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests;
