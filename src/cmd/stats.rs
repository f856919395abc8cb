//! `stats`: lanes, deployments, points, hardware and command sets per page.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use mdbook_agentx::{PageStats, page_stats, stats_table, terminal_json, terminal_text};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Data files or directories holding them.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print JSON: {"pages":[…]}.
    #[arg(long)]
    json: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let files = mdbook_agentx::data_files(&args.paths)?;
    let (pages, failed) = super::decode::load_all(&files);
    let rows: Vec<PageStats> = pages.iter().map(page_stats).collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::to_string_pretty(&serde_json::json!({ "pages": rows }))
            .context("writing JSON")?;
        writeln!(out, "{}", terminal_json(&json))?;
    } else {
        write!(out, "{}", terminal_text(&stats_table(&rows)))?;
    }
    Ok(super::failed_if(failed > 0))
}
