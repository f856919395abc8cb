//! One command set as Markdown: heading with its anchor, status and
//! provenance, notes, the Env Vars block, a block per process. Data text
//! goes in through [`crate::util::escape`]; `Note::text` and
//! `Process::placement` are Markdown that `decode` escaped the same way.

use std::fmt::Write as _;

use super::html;
use crate::decode::{CommandSet, ConfigFile, Status};
use crate::util::escape::{code, fenced, fenced_into, link, text};

/// Class of a process heading inside a command set (`{.agentx-process}`).
pub(crate) const PROCESS_CLASS: &str = "agentx-process";

/// A command set's heading text: `c16 · Dynamo + SGLang · No KV offload`.
pub(crate) fn command_set_title(s: &CommandSet) -> String {
    format!(
        "{} · {} · {}",
        s.concs_label(),
        s.router.label(),
        s.tier.label()
    )
}

/// One command set, wrapped in `<div class="agentx-set" data-anchor=…>`
/// so the selector can show and hide it as one unit: heading with its
/// anchor, status badge, notes, what a derived set changes (`changes`,
/// Markdown, or empty), env vars, process blocks. `context` (data text,
/// e.g. `DeepSeek-V4.1 · GB200 · Agg DEP4`) follows the heading's own
/// title, so a heading read alone — in a screen reader's list of
/// headings, a shared link, a printed page — still names its launch.
pub(crate) fn command_set_markdown(s: &CommandSet, context: &str, changes: &str) -> String {
    // Blank lines around the raw HTML keep CommonMark parsing the Markdown
    // inside. The heading keeps the id (the set's stable anchor), so links,
    // search and Copy link are unchanged.
    // Sized up front: the commands are most of it, and growing by doubling
    // copied them over and over.
    let commands: usize = s.processes.iter().map(|p| p.command.len() + 200).sum();
    let mut md = String::with_capacity(commands + changes.len() + 1024);
    md.push_str("<div class=\"agentx-set\" data-anchor=\"");
    md.push_str(&html::attribute(&s.anchor));
    md.push_str("\" data-status=\"");
    md.push_str(s.status.id());
    md.push_str("\">\n\n");
    let _ = writeln!(
        md,
        "### {} — {} {{#{} .agentx-set}}\n",
        command_set_title(s),
        text(context),
        s.anchor
    );
    let _ = writeln!(md, "{}\n", status_line(s));
    for n in &s.notes {
        let _ = writeln!(md, "- {}", n.text());
    }
    if !s.notes.is_empty() {
        md.push('\n');
    }
    md.push_str(changes);
    // Process titles are headings (one level below the set's), so screen
    // readers can list and jump between them; the site names each Copy
    // button after the heading above it.
    if !s.placeholders.is_empty() {
        let _ = writeln!(
            md,
            "#### Env Vars — set first {{#{}-env .{PROCESS_CLASS}}}\n",
            s.anchor
        );
        let exports = crate::decode::env_exports(&s.placeholders);
        fenced_into(&mut md, "bash", exports.trim_end_matches('\n'));
    }
    for (i, p) in s.processes.iter().enumerate() {
        let n = (i + 1).to_string();
        for piece in [
            "#### ",
            &n,
            " · ",
            &p.long_title,
            " {#",
            &s.anchor,
            "-process-",
            &n,
            " .",
            PROCESS_CLASS,
            "}\n\n",
            &p.placement,
            "\n\n",
        ] {
            md.push_str(piece);
        }
        fenced_into(&mut md, "bash", &p.command);
        for f in &p.files {
            md.push_str(&config_file_markdown(f));
        }
    }
    for f in &s.loose_files {
        md.push_str(&config_file_markdown(f));
    }
    md.push_str("</div>\n\n");
    md
}

/// The status badge, then for a measured set where its run is recorded.
fn status_line(s: &CommandSet) -> String {
    let mut meta = html::badge(&s.status, &s.status.label());
    let parts = provenance_parts(s);
    if !parts.is_empty() {
        meta.push_str(" — ");
        meta.push_str(&parts.join(" · "));
    }
    meta
}

/// Where a measured set's run is recorded, as Markdown pieces (run, PR,
/// job log, date, recipe, override); none for a derived set.
pub(super) fn provenance_parts(s: &CommandSet) -> Vec<String> {
    let mut parts = Vec::new();
    if s.status == Status::Derived {
        return parts;
    }
    let p = &s.provenance;
    if let Some(u) = &p.run_url {
        parts.push(link("SA sweep run", u));
    }
    if let (Some(pr), Some(u)) = (&p.pr, &p.pr_url) {
        parts.push(link(&text(&format!("InferenceX PR #{pr}")), u));
    }
    if let Some(u) = &p.job_url {
        parts.push(link("job log", u));
    }
    if let Some(date) = &p.date {
        parts.push(format!("dashboard date {}", text(date)));
    }
    if let Some(u) = &p.recipe_url {
        parts.push(link("recipe", u));
    }
    if let Some(o) = &p.override_name {
        parts.push(format!("override {}", code(o)));
    }
    parts
}

fn config_file_markdown(f: &ConfigFile) -> String {
    let lang = match f.name.rsplit_once('.').map(|(_, e)| e) {
        Some("json") => "json",
        Some("yaml" | "yml") => "yaml",
        Some("toml") => "toml",
        _ => "text",
    };
    format!(
        "{}\n\n{}",
        code(&f.name),
        fenced(lang, f.content.trim_end())
    )
}
