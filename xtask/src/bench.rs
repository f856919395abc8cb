//! `bench`: the figures of `docs/BENCHMARKS.md`, measured in one run on one
//! machine — decode, full build (ours and `mdbook build`, interleaved, wall
//! and CPU time and peak memory; with `--baseline` another binary too), the
//! weight of each type of page, the same builds of a book of the real data
//! files (`--real-data`), incremental rebuild after a data edit, offline
//! export, check, and builds of synthetic books N× the size of the sample.
//! Builds, exports and checks run the release binary as separate processes,
//! so start-up counts on both sides; decode and the incremental rebuild run
//! in this process through the library, as `serve` runs them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use mdbook_agentx::{BuildOptions, Change, Engine, decode_file};

use crate::builds::{Binaries, compare_builds, mdbook_05_on_path};
use crate::compare::version_of;
use crate::measure::{build_line_of, run_quiet, steal_share, time_runs};
use crate::scaled::{BookLayout, DataEdit, copy_book, write_scaled_book};

/// What `cargo xtask bench` measures.
#[derive(Debug, Clone)]
pub(crate) struct BenchOptions {
    pub(crate) book: PathBuf,
    pub(crate) runs: usize,
    /// Scale factors for synthetic books (1 = the sample itself).
    pub(crate) scales: Vec<usize>,
    /// Extra data files to time decoding on (e.g. the real ones in ../shared).
    pub(crate) data: Vec<PathBuf>,
    /// Compare with `mdbook build` when mdBook is on PATH.
    pub(crate) mdbook: bool,
    /// Directive counts for one chapter (the mdBook protocol, see `directives`).
    pub(crate) directives: Vec<usize>,
    /// Measure the directives only.
    pub(crate) directives_only: bool,
    /// Measure the incremental rebuild only (in process, no binary built).
    pub(crate) incremental_only: bool,
    /// A directory of real data files to build a book of (see `realdata`).
    pub(crate) real_data: Option<PathBuf>,
    /// Another `mdbook-agentx` binary whose builds run interleaved with ours.
    pub(crate) baseline: Option<PathBuf>,
}

/// Where one run works: the binary under test, the book, a scratch directory.
struct Bench<'a> {
    opts: &'a BenchOptions,
    exe: PathBuf,
    bins: Binaries,
    book: PathBuf,
    layout: BookLayout,
    scratch: PathBuf,
    runs: usize,
}

/// Runs every measurement and prints the report as Markdown on stdout.
pub(crate) fn run(opts: &BenchOptions) -> Result<()> {
    // The incremental rebuild runs in this process: no binary to build.
    let exe = if opts.incremental_only {
        PathBuf::new()
    } else {
        release_binary()?
    };
    let baseline = match &opts.baseline {
        Some(p) => Some(
            std::fs::canonicalize(p)
                .with_context(|| format!("--baseline {}: cannot open", p.display()))?,
        ),
        None => None,
    };
    let bins = Binaries {
        exe: exe.clone(),
        baseline,
        mdbook: opts.mdbook && !opts.incremental_only && mdbook_05_on_path(),
    };
    let book = std::fs::canonicalize(&opts.book)
        .with_context(|| format!("cannot open {}", opts.book.display()))?;
    let scratch = std::env::temp_dir().join(format!("agentx-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let b = Bench {
        opts,
        exe,
        bins,
        layout: BookLayout::of(&book)?,
        book,
        scratch,
        runs: opts.runs.max(1),
    };
    let cpu_at_start = std::fs::read_to_string("/proc/stat").ok();
    let mut md = machine(b.runs);
    if !opts.incremental_only {
        md.push_str(&binaries(&b.bins));
    }
    let measured = b.measure_all();
    // Removed whether or not a measurement failed: it may hold copies of
    // third-party data (`--real-data`) and several built sites.
    let _ = std::fs::remove_dir_all(&b.scratch);
    md.push_str(&measured?);
    // On a virtual machine, time the hypervisor gave to others inflates every
    // figure: say how much, so runs can be compared.
    let cpu_at_end = std::fs::read_to_string("/proc/stat").ok();
    if let (Some(a), Some(z)) = (cpu_at_start, cpu_at_end)
        && let Some(steal) = steal_share(&a, &z)
    {
        md.push_str(&format!(
            "\nCPU steal during this run (`/proc/stat`): {:.1}% of CPU time.\n",
            steal * 100.0
        ));
    }
    let mut out = std::io::stdout().lock();
    out.write_all(md.as_bytes())?;
    Ok(())
}

/// Which binaries the report compares.
fn binaries(bins: &Binaries) -> String {
    let mut md = format!(
        "This binary: `{}` ({}).",
        bins.exe.display(),
        version_of(&bins.exe)
    );
    if let Some(base) = &bins.baseline {
        md.push_str(&format!(
            " Baseline: `{}` ({}).",
            base.display(),
            version_of(base)
        ));
    }
    if bins.mdbook {
        md.push_str(&format!(" mdBook: {}.", version_of(Path::new("mdbook"))));
    }
    md.push_str(
        " Build comparisons run each command once untimed, then one run of each in turn per round \
         (interleaved); CPU is user + system time of the child and the children it waited for \
         (`wait4`), peak RSS the largest single process of that tree.\n\n",
    );
    md
}

/// Builds the product's release binary and returns its path.
pub(crate) fn release_binary() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    run_quiet(
        Command::new(cargo)
            .args(["build", "--release", "--locked", "-p", "mdbook-agentx"])
            .args(["--bin", "mdbook-agentx"])
            .current_dir(&root),
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release/mdbook-agentx"))
}

/// The machine line at the top of the report.
fn machine(runs: usize) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!(
        "Machine: {cpu}, {cores} cores. Release build. Medians of {runs} runs (min–max in brackets).\n\n"
    )
}

impl Bench<'_> {
    /// Every section the options ask for, in report order.
    fn measure_all(&self) -> Result<String> {
        let mut md = String::new();
        if self.opts.incremental_only {
            return self.incremental();
        }
        if !self.opts.directives_only {
            md.push_str(&self.decode()?);
            md.push_str(&self.full_build()?);
            if let Some(real) = &self.opts.real_data {
                md.push_str(&crate::realdata::measure(
                    real,
                    &self.bins,
                    self.runs,
                    &self.scratch,
                )?);
            }
            md.push_str(&self.incremental()?);
            md.push_str(&self.export_and_check()?);
            md.push_str(&self.scale()?);
        }
        md.push_str(&crate::directives::measure(
            &self.exe,
            &self.opts.directives,
            self.runs,
            &self.scratch,
        )?);
        Ok(md)
    }

    fn data_dir(&self, book: &Path) -> PathBuf {
        book.join(&self.layout.data_dir)
    }

    /// 1. Load + decode of each data file.
    fn decode(&self) -> Result<String> {
        let mut md = String::from(
            "### Load + decode\n\n| Data file | Command sets | Median ms | Min–max ms |\n|---|---:|---:|---:|\n",
        );
        let mut files = self.opts.data.clone();
        files.extend(mdbook_agentx::data_files(&[self.data_dir(&self.book)])?);
        for f in &files {
            let mut sets = 0;
            let t = time_runs(self.runs.max(20), || {
                sets = decode_file(f)?.page.command_sets().count();
                Ok(())
            })?;
            md.push_str(&format!(
                "| {} | {sets} | {} |\n",
                f.file_name().unwrap_or_default().to_string_lossy(),
                t.cells()
            ));
        }
        Ok(md)
    }

    /// 2. Full build vs mdBook (and a baseline), interleaved; page weight.
    fn full_build(&self) -> Result<String> {
        let work = self.scratch.join("sample");
        std::fs::create_dir_all(&work)?;
        let mut md = String::from("\n### Full build of the sample book\n\n");
        md.push_str(&compare_builds(&self.book, &self.bins, self.runs, &work)?);
        md.push_str("\n### Page weight of the sample book\n\n");
        md.push_str(crate::weight::EXPLANATION);
        md.push_str(&crate::weight::report(
            &work.join("ours"),
            "`mdbook-agentx build`",
        )?);
        if self.bins.mdbook {
            md.push_str(&crate::weight::report(
                &work.join("mdbook"),
                "`mdbook build` (for comparison)",
            )?);
        }
        Ok(md)
    }

    /// 3. Incremental rebuild after one data-file edit (the engine of serve/watch).
    fn incremental(&self) -> Result<String> {
        let live = self.scratch.join("live");
        let layout = copy_book(&self.book, &live)?;
        let mut engine = Engine::open(&live, false)?;
        engine.rebuild(&[Change::Content], &BuildOptions::default())?;
        let edit = DataEdit::of(&live, &layout)?;
        let data_file = edit.path.clone();
        let (mut bodies, mut pages, mut toggle) = (0, 0, false);
        let t = time_runs(self.runs, || {
            toggle = !toggle;
            let text = if toggle { &edit.edited } else { &edit.original };
            std::fs::write(&data_file, text)?;
            let r = engine.rebuild(
                &[Change::Data(vec![data_file.clone()])],
                &BuildOptions::default(),
            )?;
            (bodies, pages) = (r.bodies_rendered(), r.pages_laid_out());
            Ok(())
        })?;
        std::fs::write(&data_file, &edit.original)?;
        Ok(format!(
            "\n### Incremental rebuild after one data-file edit\n\n`{}` edited; per rebuild {bodies} chapter body(ies) rendered and {pages} page(s) laid out again, the rest from cache, all kept in memory (as `serve` does). Median **{} ms** ({}–{}). `serve` adds its 100 ms debounce before this and sends the reload event right after.\n",
            data_file.file_name().unwrap_or_default().to_string_lossy(),
            crate::measure::ms(t.median),
            crate::measure::ms(t.min),
            crate::measure::ms(t.max)
        ))
    }

    /// 4. Export and check, as processes.
    fn export_and_check(&self) -> Result<String> {
        let out = self.scratch.join("export");
        let export = time_runs(self.runs, || {
            run_quiet(
                Command::new(&self.exe)
                    .arg("export")
                    .arg(&self.book)
                    .arg("--offline")
                    .arg(&out),
            )
        })?;
        let check = time_runs(self.runs, || {
            let out = Command::new(&self.exe)
                .arg("check")
                .arg(&self.book)
                .output()?;
            if !out.status.success() {
                bail!("check failed:\n{}", String::from_utf8_lossy(&out.stdout));
            }
            Ok(())
        })?;
        Ok(format!(
            "\n### Export and check\n\n| Command | Median ms | Min–max ms |\n|---|---:|---:|\n| `mdbook-agentx export --offline` | {} |\n| `mdbook-agentx check` | {} |\n",
            export.cells(),
            check.cells()
        ))
    }

    /// Part 5: `build` and `check` of synthetic books N× the sample, run
    /// in turn (wall, CPU and peak memory of each process).
    fn scale(&self) -> Result<String> {
        if self.opts.scales.is_empty() {
            return Ok(String::new());
        }
        let mut md = String::from(
            "\n### Scale: synthetic books N× the sample (build and check)\n\n\
             | Scale | Pages | Command sets | Command | Wall ms (min–max) | CPU ms (min–max) | CPU µs per set | Added CPU µs per added set | Peak RSS MiB (max) |\n\
             |---:|---:|---:|---|---:|---:|---:|---:|---:|\n",
        );
        let mut previous: Option<(usize, [f64; 2])> = None;
        for &n in &self.opts.scales {
            let dir = self.scratch.join(format!("scale-{n}"));
            write_scaled_book(&self.book, n, &dir)?;
            let out = self.scratch.join(format!("scale-{n}-out"));
            let build = crate::builds::ours(&self.exe, &dir, out.clone());
            let report = build_line_of(&mut build())?;
            let contenders = [
                crate::compare::Contender::new("`build`", &build),
                crate::compare::Contender::new("`check`", || {
                    let mut c = Command::new(&self.exe);
                    c.arg("check").arg(&dir);
                    c
                }),
            ];
            let runs = if n >= 50 { 3.min(self.runs) } else { self.runs };
            let measured = crate::compare::interleaved(runs, &contenders, &self.scratch)?;
            let sets = report.command_sets.max(1);
            let mut cpu_now = [0.0; 2];
            for (i, (c, m)) in contenders.iter().zip(&measured).enumerate() {
                let cpu = m.cpu.median.as_secs_f64();
                cpu_now[i] = cpu;
                // The CPU each set a scale adds over the previous one costs:
                // constant when the work is linear, whatever its start-up.
                let added = previous
                    .map(|(s0, cpu0)| {
                        let more = sets.saturating_sub(s0).max(1);
                        format!("{:.0}", (cpu - cpu0[i]) * 1e6 / more as f64)
                    })
                    .unwrap_or_else(|| "–".into());
                md.push_str(&format!(
                    "| {n}× | {} | {} | {} | {} ({}–{}) | {} ({}–{}) | {:.0} | {added} | {:.0} ({:.0}) |\n",
                    report.pages,
                    report.command_sets,
                    c.label,
                    crate::measure::ms(m.wall.median),
                    crate::measure::ms(m.wall.min),
                    crate::measure::ms(m.wall.max),
                    crate::measure::ms(m.cpu.median),
                    crate::measure::ms(m.cpu.min),
                    crate::measure::ms(m.cpu.max),
                    cpu * 1e6 / sets as f64,
                    m.rss_mib.0,
                    m.rss_mib.1,
                ));
            }
            previous = Some((sets, cpu_now));
            let _ = std::fs::remove_dir_all(&out);
            let _ = std::fs::remove_dir_all(&dir);
        }
        Ok(md)
    }
}
