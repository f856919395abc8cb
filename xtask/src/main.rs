//! Development tasks of mdbook-agentx, run as `cargo xtask <task>` (an alias
//! in `.cargo/config.toml`). Not part of the product: nothing in the
//! `mdbook-agentx` package depends on this crate.
//!
//! - `bench`: the figures of `docs/BENCHMARKS.md`, measured in one run.
//!   `--real-data DIR` adds builds of a book of the real data files,
//!   `--baseline BIN` runs another binary's builds interleaved with this
//!   one's, `--directives 1000,10000` adds one chapter of that many
//!   directives through the mdBook protocol (`--directives-only`: just that);
//!   `--incremental-only` measures only the rebuild after a data-file edit.
//! - `deployments`: a model with N deployments (scale figures, issue 12).
//! - `bounded-inputs`: the inputs of the "Bounded work" table (issue 25),
//!   measured by `scripts/bounded-work.sh`.
//! - `serve-latency`: from a data-file edit to `serve`'s reload event.
//! - `scaled`: writes the synthetic N× book `bench --scale` measures, to
//!   build or check it by hand (e.g. under a memory profiler).

mod bench;
mod bounded;
mod builds;
mod compare;
mod deployments;
mod directives;
mod measure;
mod realdata;
mod scaled;
mod serve_latency;
mod weight;

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
    /// Internal: runs one measured child for `bench` (see compare.rs).
    #[command(hide = true)]
    MeasureChild {
        #[arg(long)]
        stderr: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// Measure decode, build (against `mdbook build`: wall, CPU, memory),
    /// page weight, incremental rebuild, export, check and synthetic N×
    /// books; prints Markdown for docs/BENCHMARKS.md.
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
        /// Directive counts for one chapter run through the mdBook protocol,
        /// e.g. `1000,10000` (the fixture page `Mini-Test`).
        #[arg(long, value_delimiter = ',')]
        directives: Vec<usize>,
        /// Only the directive measurement (with `--directives`).
        #[arg(long)]
        directives_only: bool,
        /// Only the incremental rebuild after a data-file edit (in process:
        /// no release binary is built).
        #[arg(long, conflicts_with = "directives_only")]
        incremental_only: bool,
        /// Also build a book of the data files in this directory, with one
        /// chapter per file (e.g. `../shared/reference/sglang-cookbook`;
        /// assembled in a scratch directory, never in the repository).
        #[arg(long, value_name = "DIR")]
        real_data: Option<PathBuf>,
        /// Another `mdbook-agentx` binary (e.g. one built from an older
        /// commit): its builds run interleaved with this tree's, and the
        /// report gives both medians and their ratio.
        #[arg(long, value_name = "BINARY")]
        baseline: Option<PathBuf>,
    },
    /// Build books whose one model has N deployments (cells copied from the
    /// sample data) and print time, peak memory and site size per deployment.
    Deployments {
        /// Deployment counts to measure, e.g. `100,500,1000,2000`.
        #[arg(long, value_delimiter = ',', default_value = "100,500,1000,2000")]
        counts: Vec<usize>,
        /// Builds of each count, interleaved across counts (medians reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Only write the book of `--counts`' first count into this directory.
        #[arg(long)]
        write: Option<PathBuf>,
    },
    /// Write the inputs of docs/BENCHMARKS.md's "Bounded work" table into
    /// OUT (`scripts/bounded-work.sh` measures a binary on them).
    BoundedInputs {
        /// Directory to write them into (each input's folder is replaced).
        out: PathBuf,
        /// Only these inputs (default: all), e.g. `--only headings-50000`.
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
    },
    /// Time from a data-file edit to `serve`'s reload event (debounce
    /// included), median of `--runs` edits; `--compare NAME=BINARY` adds
    /// other binaries, edited in turn with this one.
    ServeLatency {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Edits per binary (the median is reported).
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// Another binary to measure, as NAME=PATH (repeatable).
        #[arg(long, value_name = "NAME=PATH")]
        compare: Vec<String>,
    },
    /// Write the synthetic book N× the sample that `bench --scale N` builds.
    Scaled {
        /// How many times the sample.
        #[arg(long)]
        scale: usize,
        /// Directory to write it into (replaced).
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    // The in-process measurements (decode, incremental rebuild) run the
    // library as `serve` does, so under the binary's allocator settings:
    // without them a rebuild spent 16% of its samples in page faults.
    if !mdbook_agentx::tune_allocator() && cfg!(all(target_os = "linux", target_env = "gnu")) {
        eprintln!("warning: the allocator settings were not applied; in-process figures differ");
    }
    let done = match Cli::parse().task {
        Task::Bench {
            book_dir,
            runs,
            scale,
            data,
            no_mdbook,
            directives,
            directives_only,
            incremental_only,
            real_data,
            baseline,
        } => bench::run(&bench::BenchOptions {
            book: book_dir,
            runs,
            scales: scale,
            data,
            mdbook: !no_mdbook,
            directives,
            directives_only,
            incremental_only,
            real_data,
            baseline,
        }),
        Task::MeasureChild { stderr, command } => compare::measure_child(&stderr, &command),
        Task::Deployments {
            counts,
            runs,
            write,
        } => deployments_task(&counts, runs, write),
        Task::BoundedInputs { out, only } => {
            let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            bounded::write_inputs(&repo, &out, &only)
        }
        Task::ServeLatency {
            book_dir,
            runs,
            compare,
        } => serve_latency_task(book_dir, runs, &compare),
        Task::Scaled { scale, out } => scaled_task(scale, &out),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn deployments_task(counts: &[usize], runs: usize, write: Option<PathBuf>) -> anyhow::Result<()> {
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(deployments::SAMPLE);
    if let Some(out) = write {
        let n = counts.first().copied().unwrap_or(100);
        deployments::write_book(&sample, n, &out)?;
        eprintln!("wrote a book with {n} deployments in {}", out.display());
        return Ok(());
    }
    let exe = bench::release_binary()?;
    print!("{}", deployments::measure(&exe, &sample, counts, runs)?);
    Ok(())
}

fn serve_latency_task(book: PathBuf, runs: usize, compare: &[String]) -> anyhow::Result<()> {
    let mut binaries = vec![("this tree".to_string(), bench::release_binary()?)];
    for c in compare {
        let (name, path) = c
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--compare {c:?}: expected NAME=PATH"))?;
        binaries.push((name.to_string(), PathBuf::from(path)));
    }
    serve_latency::run(&serve_latency::LatencyOptions {
        book,
        runs,
        binaries,
    })
}

fn scaled_task(scale: usize, out: &std::path::Path) -> anyhow::Result<()> {
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    scaled::write_scaled_book(&sample, scale.max(1), out)?;
    eprintln!("wrote a book {scale}× the sample in {}", out.display());
    Ok(())
}
