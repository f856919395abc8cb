//! Development tasks of mdbook-agentx, run as `cargo xtask <task>` (an alias
//! in `.cargo/config.toml`). Not part of the product: nothing in the
//! `mdbook-agentx` package depends on this crate.
//!
//! - `bench`: the figures of `docs/BENCHMARKS.md`, measured in one run.

mod bench;
mod measure;
mod scaled;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "cargo xtask", about = "Development tasks of mdbook-agentx")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand, Debug)]
enum Task {
    /// Measure decode, build (against `mdbook build`), incremental rebuild,
    /// export, check and synthetic N× books; prints Markdown for docs/BENCHMARKS.md.
    Bench {
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
    },
}

fn main() -> ExitCode {
    let Task::Bench {
        book_dir,
        runs,
        scale,
        data,
        no_mdbook,
    } = Cli::parse().task;
    let opts = bench::BenchOptions {
        book: book_dir,
        runs,
        scales: scale,
        data,
        mdbook: !no_mdbook,
    };
    match bench::run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
