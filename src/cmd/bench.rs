//! `bench`: the figures of docs/BENCHMARKS.md.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::bench::{self, BenchOptions};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    /// Runs per measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Scale factors of synthetic books, e.g. `1,10,100`.
    #[arg(long, value_delimiter = ',')]
    scale: Vec<usize>,
    /// Extra data files to time decoding on.
    #[arg(long)]
    data: Vec<PathBuf>,
    /// Skip the comparison with `mdbook build`.
    #[arg(long)]
    no_mdbook: bool,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let md = bench::run(&BenchOptions {
        book: args.book_dir,
        runs: args.runs,
        scales: args.scale,
        data: args.data,
        mdbook: !args.no_mdbook,
    })?;
    print!("{md}");
    Ok(ExitCode::SUCCESS)
}
