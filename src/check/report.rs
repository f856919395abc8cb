//! What `check` found, and its text report.

use std::collections::BTreeMap;

use serde::Serialize;

use super::registry::Severity;
use crate::data::{KvTier, Router};
use crate::util::notice::Notice;

/// A command line that failed, located for a reader.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Page (the data file's `model`).
    pub page: String,
    /// Cell id of the deployment.
    pub cell: String,
    /// Concurrencies of the point.
    pub concs: Vec<u32>,
    /// KV tier of the command set.
    pub tier: KvTier,
    /// Router of the command set.
    pub router: Router,
    /// `<n>. <process title>` within the command set.
    pub process: String,
    /// The image the command runs in.
    pub image: String,
    /// The entry point the command line runs (`sglang.launch_server`).
    pub entrypoint: String,
    /// Label of the registry it was checked against (release or commit).
    pub registry: String,
    /// Whether the program would refuse the line.
    pub severity: Severity,
    /// The option (or token) concerned.
    pub flag: String,
    /// What is wrong, and the fix when there is one.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c: Vec<String> = self.concs.iter().map(|c| format!("c{c}")).collect();
        write!(
            f,
            "{} · {} · {} · {} · {} · {}: {}: {}",
            self.page,
            self.cell,
            c.join("/"),
            self.tier,
            self.router,
            self.process,
            self.flag,
            self.message
        )
    }
}

/// Per (image, entry point): how many command lines parse.
#[derive(Debug, Clone, Serialize)]
pub struct ImageTally {
    /// The image.
    pub image: String,
    /// The entry point.
    pub entrypoint: String,
    /// Label of the registry (release or commit).
    pub registry: String,
    /// Command lines of this entry point in this image.
    pub lines: usize,
    /// Of those, lines with no error.
    pub parsed: usize,
    /// Distinct argument lists among those lines (what the registry parses).
    pub distinct: usize,
}

/// Per (image, worker entry point): the KV tiers' flags checked against
/// its registry.
#[derive(Debug, Clone, Serialize)]
pub struct KvTally {
    /// The image.
    pub image: String,
    /// The worker entry point.
    pub entrypoint: String,
    /// Label of the registry (release or commit).
    pub registry: String,
    /// The tiers offered for the image whose flags were checked.
    pub tiers: Vec<KvTier>,
    /// The distinct KV flags checked (each an image/flag pair), sorted.
    pub flags: Vec<String>,
    /// Of those, flags the registry lacks.
    pub missing: Vec<String>,
}

/// A KV tier offered for an image that lacks its flags.
#[derive(Debug, Clone, Serialize)]
pub struct TierProblem {
    /// Page (the data file's `model`).
    pub page: String,
    /// Cell id of the deployment.
    pub cell: String,
    /// The deployment's image.
    pub image: String,
    /// The tier offered.
    pub tier: KvTier,
    /// The worker entry point whose registry lacks the flags.
    pub entrypoint: String,
    /// Label of that registry.
    pub registry: String,
    /// The tier's flags the registry does not have.
    pub missing: Vec<String>,
}

impl std::fmt::Display for TierProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} · {}: tier `{}` is offered, but image {} ({} {}) has no {}; list `{}` under kv.unavailable with the reason",
            self.page,
            self.cell,
            self.tier,
            self.image,
            self.entrypoint,
            self.registry,
            self.missing.join(", "),
            self.tier
        )
    }
}

/// Links and anchors of the built site.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LinkReport {
    /// HTML pages checked.
    pub pages: usize,
    /// Internal links followed.
    pub links: usize,
    /// Ids found (distinct per page).
    pub anchors: usize,
    /// Each broken link or repeated id, located by page.
    pub problems: Vec<String>,
}

/// Everything `check` found; [`CheckReport::ok`] says whether it passes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    /// Per image and entry point: command lines that parse.
    pub images: Vec<ImageTally>,
    /// Command lines the program would refuse.
    pub failures: Vec<Finding>,
    /// Accepted, but worth knowing: deprecated, abbreviated, not a built-in value.
    pub warnings: Vec<Finding>,
    /// Command lines of checked entry points for which no registry is configured.
    pub unconfigured: Vec<String>,
    /// KV tiers offered for an image that lacks their flags.
    pub tiers: Vec<TierProblem>,
    /// Per image and worker entry point: the KV flags checked.
    pub kv: Vec<KvTally>,
    /// Links and anchors of the built site.
    pub links: LinkReport,
    /// What reading the book had to say (a data file's unknown keys…): for
    /// the terminal, not part of the report.
    #[serde(skip)]
    pub notices: Vec<Notice>,
    /// Per (image, entry point): each distinct argument list checked.
    #[serde(skip)]
    pub(crate) arguments: ArgumentLists,
}

/// Distinct argument lists of checked command lines, by (image, entry point).
pub(crate) type ArgumentLists = BTreeMap<(String, String), std::collections::HashSet<Vec<String>>>;

impl CheckReport {
    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
            && self.unconfigured.is_empty()
            && self.tiers.is_empty()
            && self.links.problems.is_empty()
    }

    /// The human-readable report.
    pub fn text(&self, verbose: bool) -> String {
        let mut out = String::from("Command lines against the flag registry of their image:\n");
        for t in &self.images {
            out.push_str(&format!(
                "  image {} · {} ({}): {}/{} command lines parse\n",
                t.image, t.entrypoint, t.registry, t.parsed, t.lines
            ));
        }
        for u in &self.unconfigured {
            out.push_str(&format!("  no registry: {u}\n"));
        }
        for f in &self.failures {
            out.push_str(&format!("  FAIL {f}\n"));
        }
        if verbose {
            for w in &self.warnings {
                out.push_str(&format!("  warning {w}\n"));
            }
        } else if !self.warnings.is_empty() {
            let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
            for w in &self.warnings {
                *grouped
                    .entry(format!(
                        "{} ({} {}): {}: {}",
                        w.image, w.entrypoint, w.registry, w.flag, w.message
                    ))
                    .or_default() += 1;
            }
            for (w, n) in grouped {
                out.push_str(&format!("  warning ×{n}: {w}\n"));
            }
        }
        out.push_str("KV tiers against each image:\n");
        for k in &self.kv {
            let tiers: Vec<&str> = k.tiers.iter().map(|t| t.id()).collect();
            out.push_str(&format!(
                "  image {} · {} ({}): {}/{} flags of {} exist\n",
                k.image,
                k.entrypoint,
                k.registry,
                k.flags.len() - k.missing.len(),
                k.flags.len(),
                tiers.join(", ")
            ));
        }
        if self.tiers.is_empty() {
            out.push_str("  every offered tier's flags exist in its image\n");
        }
        for t in &self.tiers {
            out.push_str(&format!("  FAIL {t}\n"));
        }
        out.push_str(&format!(
            "Links and anchors: {} pages, {} internal links, {} anchors",
            self.links.pages, self.links.links, self.links.anchors
        ));
        if self.links.problems.is_empty() {
            out.push_str(": all resolve, ids unique per page\n");
        } else {
            out.push('\n');
            for p in &self.links.problems {
                out.push_str(&format!("  FAIL {p}\n"));
            }
        }
        out.push_str(if self.ok() {
            "check passed\n"
        } else {
            "check failed\n"
        });
        out
    }
}
