//! `bench`: the figures of `docs/BENCHMARKS.md`, measured in one run on one
//! machine — decode, full build (ours and `mdbook build`), incremental
//! rebuild after a data edit, offline export, check, and builds of synthetic
//! books N× the size of the sample.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::site::BuildOptions;
use crate::site::engine::{Change, Engine};

#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub book: PathBuf,
    pub runs: usize,
    /// Scale factors for synthetic books (1 = the sample itself).
    pub scales: Vec<usize>,
    /// Extra data files to time decoding on (e.g. the real ones in ../shared).
    pub data: Vec<PathBuf>,
    /// Compare with `mdbook build` when mdBook is on PATH.
    pub mdbook: bool,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

fn time_runs(
    runs: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<(Duration, Duration, Duration)> {
    let mut v = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed());
    }
    let (min, max) = (
        *v.iter().min().expect("runs > 0"),
        *v.iter().max().expect("runs > 0"),
    );
    Ok((median(v), min, max))
}

fn run_quiet(cmd: &mut Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// What a finished `build` child reported on its last line:
/// "built P pages (S command sets, …) … peak memory M MiB".
#[derive(Debug, Clone, Copy, PartialEq)]
struct BuildLine {
    pages: usize,
    command_sets: usize,
    peak_mib: Option<f64>,
}

fn parse_build_line(err: &str) -> Option<BuildLine> {
    let line = err.lines().rev().find(|l| l.starts_with("built "))?;
    let number_before = |word: &str| -> Option<usize> {
        let head = &line[..line.find(word)?];
        head.split([' ', '('])
            .rfind(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    Some(BuildLine {
        pages: number_before(" pages")?,
        command_sets: number_before(" command sets")?,
        peak_mib: line
            .split("peak memory ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok()),
    })
}

/// Runs a `build` child and reads its report line.
fn build_line_of(cmd: &mut Command) -> Result<BuildLine> {
    let out = cmd.output()?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let err = String::from_utf8_lossy(&out.stderr);
    parse_build_line(&err).ok_or_else(|| anyhow::anyhow!("{cmd:?} printed no report line: {err}"))
}

/// Peak resident memory of this process in MiB (Linux), for reports.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|kib| kib / 1024.0)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let p = e?.path();
        let dest = to.join(p.file_name().expect("named"));
        if p.is_dir() {
            copy_dir(&p, &dest)?;
        } else {
            std::fs::copy(&p, &dest)?;
        }
    }
    Ok(())
}

/// Copies what a book is made of (not its build output or anything else in
/// its directory, which may be a whole repository).
fn copy_book(sample: &Path, out: &Path) -> Result<crate::site::book::BookDir> {
    let dir = crate::site::book::BookDir::open(sample)?;
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out)?;
    std::fs::copy(sample.join("book.toml"), out.join("book.toml"))?;
    let mut parts = vec![dir.config.book.src.clone(), dir.agentx.data_dir.clone()];
    parts.extend(["templates", "theme", "flags"].map(PathBuf::from));
    for part in parts {
        if sample.join(&part).is_dir() && !out.join(&part).exists() {
            copy_dir(&sample.join(&part), &out.join(&part))?;
        }
    }
    Ok(dir)
}

/// Writes a synthetic book `scale` times the sample: every data file and its
/// model chapter replicated under new page names, so refs, patches, routers
/// and tiers keep their real shapes.
pub fn write_scaled_book(sample: &Path, scale: usize, out: &Path) -> Result<()> {
    let dir = copy_book(sample, out)?;
    let src_rel = dir.config.book.src.clone();
    let data_rel = dir.agentx.data_dir.clone();
    let data_dir = out.join(&data_rel);
    let files = crate::data::data_files_in(&data_dir)?;
    let mut summary = String::from("# Summary\n\n[Introduction](intro.md)\n\n# Models\n\n");
    let src = out.join(&src_rel);
    std::fs::create_dir_all(src.join("scaled"))?;
    if !src.join("intro.md").exists() {
        std::fs::write(src.join("intro.md"), "# Introduction\n")?;
    }
    for f in &files {
        let text = std::fs::read_to_string(f)?;
        let (json, _) = crate::data::json_text(&text)?;
        let value: serde_json::Value = serde_json::from_str(&json)?;
        let model = value["model"].as_str().unwrap_or("Model").to_string();
        std::fs::remove_file(f)?;
        let checkpoints: Vec<String> = value["checkpoints"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["id"].as_str().map(str::to_string))
            .collect();
        for k in 1..=scale {
            // Each replica serves its own checkpoint, so its commands differ
            // from every other replica's and no cache can share their work.
            let mut replica = json.clone();
            if scale > 1 {
                for ckpt in &checkpoints {
                    replica = replica.replace(&format!("\"{ckpt}\""), &format!("\"{ckpt}-r{k}\""));
                }
            }
            let mut v: serde_json::Value = serde_json::from_str(&replica)?;
            let name = if scale == 1 {
                model.clone()
            } else {
                format!("{model} ({k})")
            };
            v["model"] = serde_json::Value::String(name.clone());
            let stem = format!("{}-{k}", crate::util::text::slug(&model));
            std::fs::write(
                data_dir.join(format!("{stem}.json")),
                serde_json::to_string(&v)?,
            )?;
            std::fs::write(
                src.join("scaled").join(format!("{stem}.md")),
                format!("# {name}\n\n<<agentx page=\"{name}\">>\n"),
            )?;
            summary.push_str(&format!("- [{name}](scaled/{stem}.md)\n"));
        }
    }
    std::fs::write(src.join("SUMMARY.md"), summary)?;
    Ok(())
}

/// Runs every measurement and returns the report as Markdown.
pub fn run(opts: &BenchOptions) -> Result<String> {
    let exe = std::env::current_exe()?;
    let book = std::fs::canonicalize(&opts.book)?;
    let scratch = std::env::temp_dir().join(format!("agentx-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let runs = opts.runs.max(1);
    let cpu_at_start = std::fs::read_to_string("/proc/stat").ok();
    let mut md = String::new();
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
    md.push_str(&format!(
        "Machine: {cpu}, {cores} cores. Release build. Medians of {runs} runs (min–max in brackets).\n\n"
    ));

    // 1. Decode.
    md.push_str("### Load + decode\n\n| Data file | Command sets | Median ms | Min–max ms |\n|---|---:|---:|---:|\n");
    let dir = crate::site::book::BookDir::open(&book)?;
    let mut data_files = opts.data.clone();
    data_files.extend(crate::data::data_files_in(
        &book.join(&dir.agentx.data_dir),
    )?);
    for f in &data_files {
        let mut sets = 0;
        let (med, min, max) = time_runs(runs.max(20), || {
            let loaded = crate::data::load_file(f)?;
            let page = crate::decode::decode_page(&loaded.data)?;
            sets = page.command_set_count();
            Ok(())
        })?;
        md.push_str(&format!(
            "| {} | {sets} | {} | {}–{} |\n",
            f.file_name().unwrap_or_default().to_string_lossy(),
            ms(med),
            ms(min),
            ms(max)
        ));
    }

    // 2. Full build: ours vs mdBook, as processes, in the same run.
    md.push_str("\n### Full build of the sample book\n\n| Command | Median ms | Min–max ms |\n|---|---:|---:|\n");
    let out_ours = scratch.join("ours");
    let ours = time_runs(runs, || {
        run_quiet(
            Command::new(&exe)
                .arg("build")
                .arg(&book)
                .arg("-d")
                .arg(&out_ours),
        )
    })?;
    md.push_str(&format!(
        "| `mdbook-agentx build` | {} | {}–{} |\n",
        ms(ours.0),
        ms(ours.1),
        ms(ours.2)
    ));
    let mdbook_ok = opts.mdbook
        && Command::new("mdbook")
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("mdbook v0.5"));
    if mdbook_ok {
        let out_md = scratch.join("mdbook");
        let theirs = time_runs(runs, || {
            run_quiet(
                Command::new("mdbook")
                    .arg("build")
                    .arg("-d")
                    .arg(&out_md)
                    .current_dir(&book)
                    .env("MDBOOK_PREPROCESSOR__AGENTX__COMMAND", &exe),
            )
        })?;
        md.push_str(&format!(
            "| `mdbook build` (0.5, this preprocessor) | {} | {}–{} |\n\nRatio (mdBook / ours, medians): **{:.1}×**.\n",
            ms(theirs.0),
            ms(theirs.1),
            ms(theirs.2),
            theirs.0.as_secs_f64() / ours.0.as_secs_f64()
        ));
    } else {
        md.push_str("\n`mdbook` 0.5 not on PATH: no comparison in this run.\n");
    }

    // 3. Incremental rebuild after one data-file edit (the engine of serve/watch).
    let live = scratch.join("live");
    copy_book(&book, &live)?;
    let mut engine = Engine::open(&live)?;
    engine.rebuild(&[Change::Content], &BuildOptions::default())?;
    let data_file = crate::data::data_files_in(&live.join(&dir.agentx.data_dir))?
        .into_iter()
        .find(|p| p.to_string_lossy().contains("muse"))
        .or_else(|| {
            crate::data::data_files_in(&live.join(&dir.agentx.data_dir))
                .ok()?
                .into_iter()
                .next()
        })
        .context("no data file to edit")?;
    let original = std::fs::read_to_string(&data_file)?;
    let mut pages_rerendered = 0;
    let mut pages_laid_out = 0;
    let mut toggle = false;
    let inc = time_runs(runs, || {
        toggle = !toggle;
        // A real edit: one concurrency's value changes, so its pages re-render.
        let edited = if toggle {
            original.replacen(
                "\"--max-running-requests\": [\"",
                "\"--max-running-requests\": [\"1",
                1,
            )
        } else {
            original.clone()
        };
        std::fs::write(&data_file, edited)?;
        let r = engine.rebuild(
            &[Change::Data(vec![data_file.clone()])],
            &BuildOptions::default(),
        )?;
        pages_rerendered = r.rendered.rerendered;
        pages_laid_out = r.rendered.laid_out;
        Ok(())
    })?;
    std::fs::write(&data_file, &original)?;
    md.push_str(&format!(
        "\n### Incremental rebuild after one data-file edit\n\n`{}` edited; per rebuild {} chapter body(ies) rendered and {} page(s) laid out again, the rest from cache, all kept in memory (as `serve` does). Median **{} ms** ({}–{}). `serve` adds its 100 ms debounce before this and sends the reload event right after.\n",
        data_file.file_name().unwrap_or_default().to_string_lossy(),
        pages_rerendered,
        pages_laid_out,
        ms(inc.0),
        ms(inc.1),
        ms(inc.2)
    ));

    // 4. Export and check.
    let out_export = scratch.join("export");
    let export = time_runs(runs, || {
        run_quiet(
            Command::new(&exe)
                .arg("export")
                .arg(&book)
                .arg("--offline")
                .arg(&out_export),
        )
    })?;
    let check = time_runs(runs, || {
        let out = Command::new(&exe).arg("check").arg(&book).output()?;
        if !out.status.success() {
            bail!("check failed:\n{}", String::from_utf8_lossy(&out.stdout));
        }
        Ok(())
    })?;
    md.push_str(&format!(
        "\n### Export and check\n\n| Command | Median ms | Min–max ms |\n|---|---:|---:|\n| `mdbook-agentx export --offline` | {} | {}–{} |\n| `mdbook-agentx check` | {} | {}–{} |\n",
        ms(export.0), ms(export.1), ms(export.2), ms(check.0), ms(check.1), ms(check.2)
    ));

    // 5. Scale.
    if !opts.scales.is_empty() {
        md.push_str("\n### Scale: synthetic books N× the sample\n\n| Scale | Pages | Command sets | Median build ms | Per command set µs | vs N × 1× | Added µs per added set | Peak memory MiB |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        let mut base: Option<f64> = None;
        let mut previous: Option<(f64, usize)> = None;
        for &n in &opts.scales {
            let dir_n = scratch.join(format!("scale-{n}"));
            write_scaled_book(&book, n, &dir_n)?;
            let out_n = scratch.join(format!("scale-{n}-out"));
            let build_n = || {
                let mut c = Command::new(&exe);
                c.arg("build").arg(&dir_n).arg("-d").arg(&out_n);
                c
            };
            let scale_runs = if n >= 50 { 3.min(runs) } else { runs };
            let t = time_runs(scale_runs, || run_quiet(&mut build_n()))?;
            let report = build_line_of(&mut build_n())?;
            let secs = t.0.as_secs_f64();
            let per = secs * 1e6 / report.command_sets.max(1) as f64;
            let b = *base.get_or_insert(secs / n as f64);
            // The cost of each set a scale adds over the previous one: constant
            // when the build is linear, whatever its fixed start-up cost.
            let added = previous
                .map(|(s0, c0)| {
                    format!(
                        "{:.0}",
                        (secs - s0) * 1e6 / report.command_sets.saturating_sub(c0).max(1) as f64
                    )
                })
                .unwrap_or_else(|| "–".into());
            previous = Some((secs, report.command_sets));
            md.push_str(&format!(
                "| {n}× | {} | {} | {} | {:.0} | {:.2} | {added} | {} |\n",
                report.pages,
                report.command_sets,
                ms(t.0),
                per,
                secs / (b * n as f64),
                report
                    .peak_mib
                    .map(|p| format!("{p:.0}"))
                    .unwrap_or_else(|| "n/a".into())
            ));
            let _ = std::fs::remove_dir_all(&out_n);
            let _ = std::fs::remove_dir_all(&dir_n);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // On a virtual machine, time the hypervisor gave to others inflates every
    // figure: say how much, so runs can be compared.
    let cpu_at_end = std::fs::read_to_string("/proc/stat").ok();
    if let (Some(a), Some(b)) = (cpu_at_start, cpu_at_end)
        && let Some(steal) = steal_share(&a, &b)
    {
        md.push_str(&format!(
            "\nCPU steal during this run (`/proc/stat`): {:.1}% of CPU time.\n",
            steal * 100.0
        ));
    }
    Ok(md)
}

/// The share of CPU time stolen by the hypervisor between two readings of
/// `/proc/stat` (fields of the `cpu` line: user nice system idle iowait irq
/// softirq steal …).
fn steal_share(before: &str, after: &str) -> Option<f64> {
    let fields = |s: &str| -> Option<Vec<u64>> {
        let line = s.lines().find(|l| l.starts_with("cpu "))?;
        line.split_whitespace()
            .skip(1)
            .take(8)
            .map(|v| v.parse().ok())
            .collect()
    };
    let (a, b) = (fields(before)?, fields(after)?);
    if a.len() < 8 || b.len() < 8 {
        return None;
    }
    let total: u64 = b.iter().zip(&a).map(|(x, y)| x.saturating_sub(*y)).sum();
    (total > 0).then(|| b[7].saturating_sub(a[7]) as f64 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_build_report_line() {
        let err = "warning: something\nbuilt 3401 pages (57600 command sets, 3410 files, 664682 KiB) \
                   into ./book in 12938 ms, peak memory 389 MiB\n";
        assert_eq!(
            parse_build_line(err),
            Some(BuildLine {
                pages: 3401,
                command_sets: 57600,
                peak_mib: Some(389.0)
            })
        );
        let no_peak = "built 1 pages (0 command sets, 4 files, 9 KiB) into b in 3 ms\n";
        assert_eq!(parse_build_line(no_peak).unwrap().peak_mib, None);
        assert_eq!(parse_build_line("error: nope\n"), None);
    }

    #[test]
    fn steal_share_from_two_proc_stat_readings() {
        let a = "cpu  684964 9481 63982 357326 2944 0 940 13164 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        let b = "cpu  685412 9481 64142 357606 2948 0 947 13398 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        // +448 user, +160 system, +280 idle, +4 iowait, +7 softirq, +234 steal.
        let share = steal_share(a, b).unwrap();
        assert!((share - 234.0 / 1133.0).abs() < 1e-9, "{share}");
        assert_eq!(steal_share(a, a), None);
        assert_eq!(steal_share("cpu 1 2\n", b), None);
    }
}
