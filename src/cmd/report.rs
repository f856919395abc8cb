//! `report [BOOK] --base REF`: the pull request's evidence in one document.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::ValueEnum;
use mdbook_agentx::terminal_text;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml), in a git repository.
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// The git ref or commit to compare with (`origin/main`).
    #[arg(long)]
    base: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    format: ReportFormat,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ReportFormat {
    Markdown,
    Json,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    args.outside.check(&args.book_dir)?;
    let report = mdbook_agentx::report(&args.book_dir, &args.base)?;
    let messages = super::messages::Messages::human();
    messages.notices(&report.notices);
    messages.notices(&report.check.notices);
    let mut out = std::io::stdout().lock();
    match args.format {
        ReportFormat::Markdown => write!(out, "{}", terminal_text(&report.markdown()))?,
        ReportFormat::Json => super::write_json_with_ok(&mut out, &report, report.ok())?,
    }
    Ok(super::failed_if(!report.ok()))
}
