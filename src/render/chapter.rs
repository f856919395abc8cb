//! A deployment chapter: its facts, KV tiers, the table of every
//! combination, then each command set.

use std::fmt::Write as _;

use super::*;
use crate::data::{ImageStatus, KvTier, Router};
use crate::decode::{CommandSet, DecodedPage, Deployment, Status};
use crate::util::escape::{code, link, table_cell, text};

fn image_warning(d: &Deployment) -> Option<String> {
    match d.image.status {
        ImageStatus::Ok => None,
        ImageStatus::Pruned => Some(match &d.image.commit {
            Some(c) => format!(
                "> [!WARNING]\n> ⚠️ This nightly tag has since been removed from Docker Hub. It \
                 was built from SGLang commit {}; use an image or source build at or after that \
                 commit.\n\n",
                commit_link(c)
            ),
            None => "> [!WARNING]\n> ⚠️ This nightly tag has since been removed from Docker Hub; \
                     use an image or source build of the same SGLang version.\n\n"
                .into(),
        }),
        ImageStatus::DigestOnly => Some(
            "> [!WARNING]\n> The tag has been removed from Docker Hub; pull the image by its \
             digest (the `@sha256:...` part).\n\n"
                .into(),
        ),
    }
}

/// Routers in the order a reader meets them: the submitted one first.
fn router_order(d: &Deployment) -> Vec<Router> {
    let mut rs: Vec<Router> = Vec::new();
    for s in &d.command_sets {
        if !rs.contains(&s.router) {
            rs.push(s.router);
        }
    }
    rs.sort_by_key(|r| (*r != d.submitted, *r));
    rs
}

/// The deployment chapter: facts, tier availability, a combination index, then every command set.
pub(super) fn deployment_chapter(
    page: &DecodedPage,
    d: &Deployment,
    all: &[&Deployment],
    opts: &SectionOptions,
) -> String {
    let mut md = String::new();
    // The title names the model: it is the page's <title>, its sidebar
    // entry and its previous/next label, and two models share deployments
    // of the same shape (`GB200 · Agg TP4`).
    let title = format!("{} · {}", page.model, deployment_title(d));
    let _ = writeln!(md, "# {} {{#{}}}\n", text(&title), d.anchor);
    let back = text(&format!("← {}: {SECTION_TITLE}", page.model));
    let target = format!("../{}#{}", opts.chapter_file, opts.anchor);
    let _ = writeln!(md, "{}\n", link(&back, &target));
    md.push_str(
        "> [!WARNING]\n> Mirrored from a SemiAnalysis InferenceX AgentX submission; not verified \
         by the maintainers of these docs.\n\n",
    );
    md.push_str(&selector::selector_html(
        page,
        all,
        &selector::SelectorPage::Deployment(d),
    ));
    md.push_str(&facts(d));
    if let Some(w) = image_warning(d) {
        md.push_str(&w);
    }
    md.push_str(&tiers(d));
    let routers = router_order(d);
    md.push_str(&combinations(d, &routers));
    for pi in 0..d.concs.len() {
        let mut sets: Vec<&CommandSet> = d.command_sets.iter().filter(|s| s.point == pi).collect();
        let Some(first) = sets.first() else { continue };
        let _ = writeln!(md, "## {} {{.agentx-point}}\n", first.concs_label());
        sets.sort_by_key(|s| {
            (
                s.status == Status::Derived,
                s.router != d.submitted,
                s.router,
                s.tier,
            )
        });
        for s in sets {
            let base = d
                .command_sets
                .iter()
                .find(|b| b.point == s.point && b.router == d.submitted && b.tier == b.measured);
            let changes = match base {
                Some(b) if s.status == Status::Derived => {
                    changes::changes_markdown(s, b, &command_set_title(b))
                }
                _ => String::new(),
            };
            md.push_str(&command_set_markdown(s, &title, &changes));
        }
    }
    md
}

/// The table of the deployment's facts.
fn facts(d: &Deployment) -> String {
    let mut md = String::from("| Deployment fact | Value |\n|---|---|\n");
    let rows: [(&str, String); 11] = [
        ("Hardware", text(&d.hw_label)),
        ("Checkpoint", text(&d.ckpt_label)),
        ("Deployment", text(&d.label)),
        ("Detail", text(d.detail.as_deref().unwrap_or("—"))),
        ("GPUs", d.gpus.to_string()),
        ("Config", code(&d.config_key)),
        ("Cell", code(&d.cell_id)),
        ("Submitted router", d.submitted.label().to_string()),
        ("Status", text(&d.status.label())),
        ("Provenance", provenance_links(&d.provenance, true)),
        ("Image", code(&d.image.image)),
    ];
    for (k, v) in rows {
        let _ = writeln!(md, "| {k} | {} |", table_cell(&v));
    }
    md.push('\n');
    md
}

/// Each KV tier: measured, derived, or not available and why.
fn tiers(d: &Deployment) -> String {
    let mut md = String::from("**KV offload tiers.**\n\n");
    for t in KvTier::ALL {
        if d.available.contains(&t) {
            let how = if d.measured.contains(&t) {
                "measured ✓"
            } else {
                "derived"
            };
            let _ = writeln!(md, "- {}: {how}", t.label());
        } else if let Some(u) = d.unavailable.iter().find(|u| u.tier == t) {
            let why = text(&u.reason);
            let _ = writeln!(md, "- {}: not available for this image ({why})", t.label());
        }
    }
    md.push('\n');
    md
}

/// The table linking every command set: a row per point, a column per router and tier.
fn combinations(d: &Deployment, routers: &[Router]) -> String {
    let mut md = String::from("## Combinations\n\n");
    md.push_str(
        "Every launch of this deployment. ✓ is as measured, ◐ as submitted and still under \
         review; the others are derived and were not run.\n\n",
    );
    let mut header = String::from("| Concurrency |");
    let mut rule = String::from("|---|");
    for r in routers {
        for t in &d.available {
            let _ = write!(header, " {} · {} |", r.label(), t.label());
            rule.push_str("---|");
        }
    }
    let _ = writeln!(md, "{header}\n{rule}");
    for pi in 0..d.concs.len() {
        let sets: Vec<&CommandSet> = d.command_sets.iter().filter(|s| s.point == pi).collect();
        let Some(first) = sets.first() else { continue };
        let _ = write!(md, "| {} |", first.concs_label());
        for r in routers {
            for t in &d.available {
                match sets.iter().find(|s| s.router == *r && s.tier == *t) {
                    Some(s) => {
                        let mark = html::badge(&s.status, status_mark(&s.status));
                        let _ = write!(md, " [{mark}](#{}) |", s.anchor);
                    }
                    None => md.push_str(" — |"),
                }
            }
        }
        md.push('\n');
    }
    md.push('\n');
    md
}

fn status_mark(s: &Status) -> &'static str {
    match s {
        Status::Verified | Status::VerifiedPr { .. } => "✓ measured",
        Status::InProgress { .. } => "◐ in progress",
        Status::Derived => "derived",
    }
}
