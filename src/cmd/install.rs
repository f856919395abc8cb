//! `install [BOOK_DIR]`: the AgentX assets and `book.toml` entries for mdBook.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::{InstallOptions, install};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    /// Overwrite asset files that `install` did not write or that were edited.
    #[arg(long)]
    force: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let report = install(&args.book_dir, &InstallOptions { force: args.force })?;
    for change in &report.changes {
        eprintln!("{change}");
    }
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    if report.changes.is_empty() {
        eprintln!(
            "{}: already set up for mdbook-agentx {}; nothing changed",
            args.book_dir.display(),
            env!("CARGO_PKG_VERSION")
        );
    }
    Ok(ExitCode::SUCCESS)
}
