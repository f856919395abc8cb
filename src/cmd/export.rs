//! `export`: the site for reading without a network, as a directory or one file.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::{export_offline, write_single_file};

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["offline", "single_file"])))]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// Write a self-contained site to this directory (local assets, relative links).
    #[arg(long, value_name = "OUT")]
    offline: Option<PathBuf>,
    /// Write the whole book as one HTML file (assets inlined, chapters as sections).
    #[arg(long, value_name = "OUT.html")]
    single_file: Option<PathBuf>,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    args.outside.check(&args.book_dir)?;
    if let Some(out) = args.offline {
        let report = export_offline(&args.book_dir, &out)?;
        let messages = super::messages::Messages::human();
        super::build::print_report(&messages, "exported (offline, no remote assets)", &report);
    }
    if let Some(file) = args.single_file {
        let (bytes, notices) = write_single_file(&args.book_dir, &file)?;
        super::messages::Messages::human().notices(&notices);
        eprintln!(
            "exported the book as one file: {} ({} KiB)",
            file.display(),
            bytes / 1024
        );
    }
    Ok(ExitCode::SUCCESS)
}
