//! `stats`: lanes, deployments, points, hardware and command sets per page.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use mdbook_agentx::{data, stats};

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
    let mut files = Vec::new();
    for p in &args.paths {
        if p.join("book.toml").is_file() {
            // A book: its data directory.
            let dir = mdbook_agentx::site::book::BookDir::open(p)?;
            files.extend(data::data_files_in(&p.join(&dir.agentx.data_dir))?);
        } else if p.is_dir() {
            files.extend(data::data_files_in(p)?);
        } else {
            files.push(p.clone());
        }
    }
    let (pages, failed) = super::decode::load_all(&files);
    let rows: Vec<stats::PageStats> = pages.iter().map(stats::page_stats).collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "pages": rows }))
            .context("writing JSON")?;
        writeln!(out)?;
    } else {
        write!(out, "{}", stats::markdown_table(&rows))?;
    }
    Ok(super::failed_if(failed > 0))
}
