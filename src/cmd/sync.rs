//! `sync`: AgentX data files generated from InferenceX lanes, and the report.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use mdbook_agentx::{
    DataFormat, PageStats, SyncOptions, diff_table, page_stats, stats_table, sync, terminal_text,
};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// The lane manifest (TOML), e.g. agentx-lanes.toml.
    #[arg(long)]
    manifest: PathBuf,
    /// InferenceX: a git directory, or a snapshot folder with one subfolder per
    /// commit (named by the commit or a unique prefix of 7+ hex digits).
    #[arg(long)]
    inferencex: PathBuf,
    /// Directory to write the data files into.
    #[arg(long)]
    out: PathBuf,
    /// The current data files: what carried-over lanes and the Mooncake donor
    /// come from, and what the report compares against.
    #[arg(long)]
    previous: Option<PathBuf>,
    /// Write the report here instead of to stdout.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Form of pages not in --previous: json, or jsx (the cookbook's
    /// `export const agentx = {…};` module). A page of --previous keeps its form.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Write a page whose lanes --previous holds under another page name
    /// (refused otherwise: a renamed page, or a typo in the manifest's `page =`).
    #[arg(long)]
    allow_rename: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Format {
    Json,
    Jsx,
}

/// Exit code 0 when every file was written; 1 when the sync refused (every
/// reason on stderr) and nothing was written.
pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let options = SyncOptions {
        manifest: args.manifest,
        inferencex: args.inferencex,
        out: args.out,
        previous: args.previous,
        format: match args.format {
            Format::Json => DataFormat::Json,
            Format::Jsx => DataFormat::Jsx,
        },
        allow_rename: args.allow_rename,
    };
    let synced = match sync(&options, &mut |line| eprintln!("{}", terminal_text(line))) {
        Ok(synced) => synced,
        Err(failure) => {
            for name in failure.unclassified() {
                eprintln!("error: {}", terminal_text(&name.to_string()));
            }
            for problem in failure.problems() {
                eprintln!("error: {}", terminal_text(&problem.to_string()));
            }
            if !failure.unclassified().is_empty() {
                eprintln!(
                    "sync: {} names are not in the rules table (all of this run are listed above)",
                    failure.unclassified().len()
                );
            }
            eprintln!("sync: nothing written");
            return Ok(ExitCode::FAILURE);
        }
    };
    for path in &synced.written {
        eprintln!("sync: wrote {}", path.display());
    }
    let report = synced.report(
        |pages| stats_table(&pages.iter().map(page_stats).collect::<Vec<PageStats>>()),
        diff_table,
    );
    match &args.report {
        Some(path) => std::fs::write(path, report)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout()
            .lock()
            .write_all(terminal_text(&report).as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
