//! `markdown [BOOK_DIR] -d OUT`: the expanded book as portable Markdown.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::export_markdown;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// Output directory (replaced whole).
    #[arg(short = 'd', long = "dest-dir")]
    dest: PathBuf,
    /// Allow an output directory outside the book (refused otherwise, so that
    /// a mistyped path cannot replace another directory).
    #[arg(long)]
    allow_dest_outside: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    args.outside.check(&args.book_dir)?;
    let r = export_markdown(&args.book_dir, &args.dest, args.allow_dest_outside)?;
    super::messages::Messages::human().notices(&r.notices);
    eprintln!(
        "wrote {} chapters, SUMMARY.md and {} other files into {}",
        r.chapters,
        r.files,
        r.out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
