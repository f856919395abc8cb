//! `deployments`: books whose one model has N deployments, and the scale
//! figures of `docs/BENCHMARKS.md` for them (issue 12: build time and space
//! linear in the deployments of a model, site bytes per deployment
//! constant). Each deployment is a cell of the project's own sample data
//! file, copied round-robin, with its own checkpoint and config key so no
//! two deployments share a command (no cache can share their work) and each
//! gets its own page.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::measure::{BuildLine, build_line_of, ms};

/// The sample data file the deployments are copied from.
pub(crate) const SAMPLE: &str = "agentx/qwen3.8-flash-next.json";

/// Writes into `out` a book with one model page whose data file, made from
/// `sample`, has `n` deployments.
pub(crate) fn write_book(sample: &Path, n: usize, out: &Path) -> Result<()> {
    let text = std::fs::read_to_string(sample)
        .with_context(|| format!("cannot read {}", sample.display()))?;
    let mut data: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON data file", sample.display()))?;
    let model = data["model"].as_str().unwrap_or("Model").to_string();
    let (cells, checkpoints) = deployments(&data, n)?;
    data["cells"] = Value::Array(cells);
    data["checkpoints"] = Value::Array(checkpoints);
    for dir in ["src", "data"] {
        std::fs::create_dir_all(out.join(dir))?;
    }
    std::fs::write(
        out.join("book.toml"),
        format!(
            "[book]\ntitle = \"{n} deployments\"\nsrc = \"src\"\n\n\
             [preprocessor.agentx]\ndata-dir = \"data\"\n"
        ),
    )?;
    std::fs::write(
        out.join("src/SUMMARY.md"),
        "# Summary\n\n- [Model](model.md)\n",
    )?;
    std::fs::write(
        out.join("src/model.md"),
        format!("# {model}\n\n<<agentx page=\"{model}\">>\n"),
    )?;
    std::fs::write(out.join("data/model.json"), serde_json::to_string(&data)?)?;
    Ok(())
}

/// `n` cells copied round-robin from `data`'s, deployment `k` serving the
/// checkpoint `<ckpt>-d<k>` under the config key `<key>-d<k>`; and the
/// checkpoints they name.
fn deployments(data: &Value, n: usize) -> Result<(Vec<Value>, Vec<Value>)> {
    let templates = data["cells"]
        .as_array()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| anyhow!("the sample data file has no cells"))?;
    let mut cells = Vec::with_capacity(n);
    let mut checkpoints = Vec::with_capacity(n);
    for k in 0..n {
        let cell = &templates[k % templates.len()];
        let (ckpt, key) = (
            cell["ckpt"].as_str().unwrap_or_default(),
            cell["configKey"].as_str().unwrap_or_default(),
        );
        if ckpt.is_empty() || key.is_empty() {
            bail!("a sample cell has no ckpt or configKey");
        }
        // Quoted, so only whole values (and ids starting with the key) change.
        let text = serde_json::to_string(cell)?
            .replace(&format!("\"{ckpt}\""), &format!("\"{ckpt}-d{k}\""))
            .replace(&format!("\"{key}"), &format!("\"{key}-d{k}"));
        let mut cell: Value = serde_json::from_str(&text)?;
        let label = cell["label"].as_str().unwrap_or("Deployment").to_string();
        cell["label"] = Value::String(format!("{label} d{k}"));
        cells.push(cell);
        checkpoints.push(serde_json::json!({ "id": format!("{ckpt}-d{k}") }));
    }
    Ok((cells, checkpoints))
}

/// One count's figures over the runs.
struct Row {
    n: usize,
    times: Vec<Duration>,
    /// CPU time (user + system) of each build: less affected than the wall
    /// time by other work on the machine.
    cpus: Vec<Duration>,
    peaks: Vec<f64>,
    line: Option<BuildLine>,
    site_bytes: u64,
    data_bytes: u64,
}

/// Builds the book of each count in `counts` `runs` times, interleaved (run
/// 1 of every count, then run 2, …) so a slow spell of the machine hits all
/// counts alike; prints a Markdown table.
pub(crate) fn measure(exe: &Path, sample: &Path, counts: &[usize], runs: usize) -> Result<String> {
    let scratch = std::env::temp_dir().join(format!("agentx-deployments-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let mut rows = Vec::new();
    for &n in counts {
        let book = scratch.join(format!("n{n}"));
        write_book(sample, n, &book)?;
        rows.push(Row {
            n,
            times: Vec::new(),
            cpus: Vec::new(),
            peaks: Vec::new(),
            line: None,
            site_bytes: 0,
            data_bytes: std::fs::metadata(book.join("data/model.json"))?.len(),
        });
    }
    for _ in 0..runs.max(1) {
        for row in &mut rows {
            let book = scratch.join(format!("n{}", row.n));
            let mut cmd = Command::new(exe);
            cmd.arg("build").arg(&book);
            let (t, cpu) = (Instant::now(), children_cpu());
            let line = build_line_of(&mut cmd)?;
            row.times.push(t.elapsed());
            row.cpus.push(children_cpu().saturating_sub(cpu));
            row.peaks.push(line.peak_mib.unwrap_or(f64::NAN));
            row.line = Some(line);
            row.site_bytes = bytes_under(&book.join("book"))?;
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(table(&rows))
}

/// User + system CPU time of this process's finished children so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage; RUSAGE_CHILDREN is a valid `who`.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Total size of the files under `dir` (the output symlink followed).
fn bytes_under(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for e in walkdir::WalkDir::new(dir).follow_root_links(true) {
        let e = e?;
        if e.file_type().is_file() {
            total += e.metadata()?.len();
        }
    }
    Ok(total)
}

fn median<T: Copy + PartialOrd>(v: &[T]) -> (T, T, T) {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn table(rows: &[Row]) -> String {
    let mut md = String::from(
        "| Deployments | Pages | Command sets | Data file MiB | Wall ms | CPU ms | \
         Peak RSS MiB | Site MiB | Site KiB per deployment | Added CPU ms per added deployment | \
         Added RSS KiB per added deployment | Site bytes per deployment vs first row |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let mut first_site: Option<f64> = None;
    let mut previous: Option<(usize, f64, f64)> = None;
    for r in rows {
        let (t, t0, t1) = median(&r.times);
        let (c, c0, c1) = median(&r.cpus);
        let (p, p0, p1) = median(&r.peaks);
        let line = r.line.expect("at least one run");
        let site = r.site_bytes as f64 / r.n as f64;
        let base = *first_site.get_or_insert(site);
        // What each deployment a row adds over the previous row costs:
        // constant when the build is linear, whatever its fixed start-up.
        let cpu_ms = c.as_secs_f64() * 1000.0;
        let added = previous
            .map(|(n0, c0, p0)| {
                let dn = r.n.saturating_sub(n0).max(1) as f64;
                format!("{:.1} | {:.0}", (cpu_ms - c0) / dn, (p - p0) * 1024.0 / dn)
            })
            .unwrap_or_else(|| "– | –".into());
        previous = Some((r.n, cpu_ms, p));
        md.push_str(&format!(
            "| {} | {} | {} | {:.1} | {} ({}–{}) | {} ({}–{}) | {p:.0} ({p0:.0}–{p1:.0}) | \
             {:.1} | {:.1} | {added} | {:.2} |\n",
            r.n,
            line.pages,
            line.command_sets,
            mib(r.data_bytes),
            ms(t),
            ms(t0),
            ms(t1),
            ms(c),
            ms(c0),
            ms(c1),
            mib(r.site_bytes),
            site / 1024.0,
            site / base,
        ));
    }
    md
}
