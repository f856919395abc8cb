//! A deployment chapter: its facts, KV tiers, the table of every
//! combination, then each command set.

use std::fmt::Write as _;

use super::command_set::{command_set_markdown, command_set_title};
use super::{
    SECTION_TITLE, SectionOptions, changes, commit_link, deployment_title, html, provenance_links,
    selector,
};
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
    md.push_str(&selector::selector_html(&page.model, d, &target));
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

/// Deployment chapters of a [`PreviousSection`] whose context equals the
/// new render's: one is reused when its deployment is the same.
pub(super) struct Reuse<'a> {
    /// The previous page's deployments, by anchor.
    deployments: std::collections::HashMap<&'a str, &'a Deployment>,
    chapter: &'a dyn Fn(&str) -> Option<&'a str>,
}

impl<'a> Reuse<'a> {
    pub(super) fn new(page: &'a DecodedPage, chapter: &'a dyn Fn(&str) -> Option<&'a str>) -> Self {
        let deployments = page
            .deployments
            .iter()
            .map(|d| (d.anchor.as_str(), d))
            .collect();
        Reuse {
            deployments,
            chapter,
        }
    }

    /// The previous Markdown of `d`'s chapter (at `rel_path`), when `d` is
    /// the same as then: [`deployment_chapter`] would write it again.
    pub(super) fn markdown(&self, d: &Deployment, rel_path: &str) -> Option<String> {
        let old = self.deployments.get(d.anchor.as_str())?;
        if *old != d {
            return None;
        }
        (self.chapter)(rel_path).map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{PreviousSection, SECTION_ANCHOR, model_data_json, render_section};
    use crate::test_support::fixture;

    /// The section options of the mini fixture's chapter.
    fn mini_options() -> SectionOptions {
        SectionOptions {
            heading_level: 2,
            anchor: SECTION_ANCHOR.into(),
            subchapter_dir: "mini".into(),
            chapter_file: "mini.md".into(),
        }
    }

    /// Renders the fixture's section with `previous` chapters that all read
    /// `REUSED`; returns each deployment chapter's Markdown.
    fn section(page: &DecodedPage, previous: Option<(&DecodedPage, &str)>) -> Vec<String> {
        let all: Vec<&Deployment> = page.deployments.iter().collect();
        let opts = mini_options();
        let reused = |_: &str| Some("REUSED");
        let previous = previous.map(|(page, context)| PreviousSection {
            page,
            context,
            chapter: &reused,
        });
        let picker = model_data_json(page, &all, "mini");
        let s = render_section(page, &all, &picker, &opts, &|_| true, previous.as_ref());
        s.subchapters.into_iter().map(|c| c.markdown).collect()
    }

    /// A deployment chapter is reused exactly when its deployment and the
    /// section's context are unchanged; what is rendered again equals a
    /// render without a previous one.
    #[test]
    fn a_one_deployment_edit_renders_that_deployment_only() {
        let page = crate::decode::decode_file(&fixture("data/mini.json"))
            .unwrap()
            .page;
        assert!(page.deployments.len() >= 2);
        let all: Vec<&Deployment> = page.deployments.iter().collect();
        let opts = mini_options();
        let picker = model_data_json(&page, &all, "mini");
        let first = render_section(&page, &all, &picker, &opts, &|_| true, None);
        let fresh = section(&page, None);
        assert!(fresh.iter().all(|m| m != "REUSED"));
        let unchanged = section(&page, Some((&page, &first.context)));
        assert!(unchanged.iter().all(|m| m == "REUSED"), "nothing changed");
        // One command of the first deployment.
        let mut edited = page.clone();
        let p = &mut edited.deployments[0].command_sets[0].processes[0];
        p.command = format!("{} --x", p.command).into();
        let again = section(&edited, Some((&page, &first.context)));
        assert_eq!(again[0], section(&edited, None)[0]);
        assert_ne!(again[0], fresh[0]);
        assert!(again[1..].iter().all(|m| m == "REUSED"));
        // A sibling's label: no other deployment chapter shows it (each
        // carries only its own selector data), so only that one re-renders.
        let mut relabelled = page.clone();
        relabelled.deployments[1].label.push_str(" x");
        let again = section(&relabelled, Some((&page, &first.context)));
        assert_eq!(again[1], section(&relabelled, None)[1]);
        assert!(
            again
                .iter()
                .enumerate()
                .all(|(i, m)| (i == 1) != (m == "REUSED"))
        );
        // The model's name, which every deployment chapter shows: none reused.
        let mut renamed = page.clone();
        renamed.model.push_str(" x");
        let renamed_all: Vec<&Deployment> = renamed.deployments.iter().collect();
        let renamed_section = render_section(
            &renamed,
            &renamed_all,
            &model_data_json(&renamed, &renamed_all, "mini"),
            &opts,
            &|_| true,
            None,
        );
        let again = section(&renamed, Some((&page, &first.context)));
        assert_ne!(renamed_section.context, first.context);
        assert_eq!(again, section(&renamed, None));
    }
}
