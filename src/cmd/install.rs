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
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// Overwrite asset files that `install` did not write or that were edited.
    #[arg(long)]
    force: bool,
    /// Also publish llms.txt, llms-full.txt, launches.json and a Markdown twin
    /// of every page: adds the renderer [output.html-agentx]. With two
    /// renderers, mdBook writes the HTML site into <build-dir>/html/.
    #[arg(long)]
    agent_files: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    args.outside.check(&args.book_dir)?;
    let opts = InstallOptions {
        force: args.force,
        agent_files: args.agent_files,
    };
    let report = install(&args.book_dir, &opts)?;
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
