//! `decode`: every command set of data files as JSON, or one as a reader copies it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use clap::ValueEnum;
use mdbook_agentx::{
    CommandSet, DecodedPage, KvTier, Router, decode_file, terminal_json, terminal_text,
};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// AgentX data files (.json, or .jsx/.js modules).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print JSON instead of copyable text.
    #[arg(long)]
    json: bool,
    /// Cell id, e.g. `qwen3.8next-fp4-b300-sglang-agentic-mtp#0`.
    #[arg(long)]
    cell: Option<String>,
    /// A concurrency the point served.
    #[arg(long)]
    conc: Option<u32>,
    /// KV tier (default: the measured one).
    #[arg(long, value_enum)]
    kv: Option<TierArg>,
    /// Router (default: the submitted one).
    #[arg(long, value_enum)]
    router: Option<RouterArg>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TierArg {
    None,
    Hicache,
    Mooncake,
}

impl From<TierArg> for KvTier {
    fn from(t: TierArg) -> KvTier {
        match t {
            TierArg::None => KvTier::None,
            TierArg::Hicache => KvTier::Hicache,
            TierArg::Mooncake => KvTier::Mooncake,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RouterArg {
    Sglang,
    Dynamo,
}

impl From<RouterArg> for Router {
    fn from(r: RouterArg) -> Router {
        match r {
            RouterArg::Sglang => Router::Sglang,
            RouterArg::Dynamo => Router::Dynamo,
        }
    }
}

/// Which command sets to print.
#[derive(Debug, Default)]
struct SetFilter {
    cell: Option<String>,
    conc: Option<u32>,
    kv: Option<KvTier>,
    router: Option<Router>,
}

impl SetFilter {
    fn matches(&self, s: &CommandSet) -> bool {
        self.cell.as_ref().is_none_or(|c| *c == s.cell_id)
            && self.conc.is_none_or(|c| s.concs.contains(&c))
            && self.kv.is_none_or(|k| k == s.tier)
            && self.router.is_none_or(|r| r == s.router)
    }
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let filter = SetFilter {
        cell: args.cell,
        conc: args.conc,
        kv: args.kv.map(Into::into),
        router: args.router.map(Into::into),
    };
    let (pages, failed) = load_all(&args.files);
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut sets = Vec::new();
        for p in &pages {
            for s in p.command_sets().filter(|s| filter.matches(s)) {
                sets.push(s.json(&p.model));
            }
        }
        let json = serde_json::to_string_pretty(&sets)?;
        writeln!(out, "{}", terminal_json(&json))?;
    } else {
        if args.files.len() != 1 {
            bail!("without --json, decode prints one command set: give exactly one FILE");
        }
        let Some(p) = pages.first() else {
            return Ok(ExitCode::FAILURE);
        };
        let set = select_one(p, &filter)?;
        // Loading refuses control characters in data, so this is the text
        // Copy all copies; escaped all the same, since a terminal shows it.
        write!(out, "{}", terminal_text(&set.copy_all_text()))?;
    }
    Ok(super::failed_if(failed > 0))
}

/// Decodes one file, printing the keys it ignored; errors name the file.
fn load_page(path: &Path) -> Result<DecodedPage> {
    let decoded = decode_file(path)?;
    for key in &decoded.ignored {
        let warning = format!("{}: ignored unknown key `{key}`", path.display());
        eprintln!("warning: {}", terminal_text(&warning));
    }
    Ok(decoded.page)
}

/// Loads every file, reporting each failure on stderr; returns the good ones and the failure count.
pub(super) fn load_all(files: &[PathBuf]) -> (Vec<DecodedPage>, usize) {
    let mut pages = Vec::new();
    let mut failed = 0;
    for f in files {
        match load_page(f) {
            Ok(p) => pages.push(p),
            Err(e) => {
                eprintln!("error: {}", terminal_text(&format!("{e:#}")));
                failed += 1;
            }
        }
    }
    (pages, failed)
}

/// Picks the one command set a reader asked for; defaults to the measured tier and submitted router.
fn select_one<'p>(page: &'p DecodedPage, filter: &SetFilter) -> Result<&'p CommandSet> {
    let (Some(cell), Some(conc)) = (&filter.cell, filter.conc) else {
        bail!("give --cell ID and --conc N to pick a command set (or use --json)");
    };
    let dep = page
        .deployments
        .iter()
        .find(|d| &d.cell_id == cell)
        .ok_or_else(|| {
            let ids: Vec<&str> = page
                .deployments
                .iter()
                .map(|d| d.cell_id.as_str())
                .collect();
            anyhow!(
                "no cell `{cell}` in {}; cells: {}",
                page.model,
                ids.join(", ")
            )
        })?;
    let candidates: Vec<&CommandSet> = dep
        .command_sets
        .iter()
        .filter(|s| s.concs.contains(&conc))
        .collect();
    let Some(first) = candidates.first() else {
        bail!(
            "cell `{cell}` has no point at c{conc}; points: {}",
            dep.point_labels().join(", ")
        );
    };
    let tier = filter.kv.unwrap_or(first.measured);
    let router = filter.router.unwrap_or(dep.submitted);
    candidates
        .into_iter()
        .find(|s| s.tier == tier && s.router == router)
        .ok_or_else(|| {
            let why = dep
                .unavailable
                .iter()
                .find(|u| u.tier == tier)
                .map(|u| format!(": {}", u.reason))
                .unwrap_or_default();
            anyhow!("cell `{cell}` offers no `{tier}` tier on router `{router}`{why}")
        })
}
