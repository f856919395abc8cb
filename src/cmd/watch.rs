//! `watch`: rebuild into the output directory on every change, without a server.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    /// Output directory (default: [build] build-dir of book.toml).
    #[arg(short = 'd', long = "dest-dir")]
    dest: Option<PathBuf>,
    /// Allow an output directory outside the book (refused otherwise, so that
    /// a book.toml from a pull request cannot write anywhere).
    #[arg(long)]
    allow_dest_outside: bool,
    /// Poll the files instead of using native change notification.
    #[arg(long)]
    poll: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    mdbook_agentx::watch(
        &args.book_dir,
        args.dest,
        args.allow_dest_outside,
        super::serve::watch_mode(args.poll),
    )?;
    Ok(ExitCode::SUCCESS)
}
