//! `check`: command lines against flag registries, KV tiers, links and anchors.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use mdbook_agentx::terminal_text;

use super::OutputFormat;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
    /// List every warning instead of grouping them.
    #[arg(short, long)]
    verbose: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    args.outside.check(&args.book_dir)?;
    let report = mdbook_agentx::check(&args.book_dir)?;
    super::messages::Messages::human().notices(&report.notices);
    let mut out = std::io::stdout().lock();
    match args.format {
        OutputFormat::Text => write!(out, "{}", terminal_text(&report.text(args.verbose)))?,
        OutputFormat::Json => super::write_json_with_ok(&mut out, &report, report.ok())?,
    }
    Ok(super::failed_if(!report.ok()))
}
