//! `diff OLD NEW`: command sets identical, added, removed and changed per page.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::{
    compare_manifests, diff_table, diff_verbose, load_manifest, terminal_json, terminal_text,
};

use super::OutputFormat;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    old: String,
    new: String,
    /// The book, for git refs.
    #[arg(long, default_value = ".")]
    book: PathBuf,
    /// Also list every added, removed and changed command set, with a unified diff.
    #[arg(short, long)]
    verbose: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let messages = super::messages::Messages::human();
    let (a, notices) = load_manifest(&args.old, &args.book)?;
    messages.notices(&notices);
    let (b, notices) = load_manifest(&args.new, &args.book)?;
    messages.notices(&notices);
    let d = compare_manifests(&a, &b);
    let mut out = std::io::stdout().lock();
    match args.format {
        // Manifests are data too (a built site, a git ref of a pull request).
        OutputFormat::Text if args.verbose => {
            write!(out, "{}", terminal_text(&diff_verbose(&d, &a, &b)))?
        }
        OutputFormat::Text => write!(out, "{}", terminal_text(&diff_table(&d)))?,
        OutputFormat::Json => {
            let json = serde_json::to_string_pretty(&d)?;
            writeln!(out, "{}", terminal_json(&json))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
