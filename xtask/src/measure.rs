//! Timing helpers: medians with min–max, child processes, and the report of
//! a `build` child (its `--message-format json` line).

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

/// Median, minimum and maximum of some runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    pub(crate) median: Duration,
    pub(crate) min: Duration,
    pub(crate) max: Duration,
}

impl Timing {
    /// The median, minimum and maximum of `samples` (at least one).
    pub(crate) fn of(mut samples: Vec<Duration>) -> Timing {
        samples.sort();
        Timing {
            median: samples[samples.len() / 2],
            min: samples[0],
            max: samples[samples.len() - 1],
        }
    }

    /// `median | min–max` in milliseconds, as table cells.
    pub(crate) fn cells(&self) -> String {
        format!("{} | {}–{}", ms(self.median), ms(self.min), ms(self.max))
    }
}

/// Milliseconds with one decimal.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// Runs `f` `runs` times (at least once) and times each run.
pub(crate) fn time_runs(runs: usize, mut f: impl FnMut() -> Result<()>) -> Result<Timing> {
    let mut v = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed());
    }
    Ok(Timing::of(v))
}

/// Runs a command, failing with its stderr when it fails.
pub(crate) fn run_quiet(cmd: &mut Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// What a finished `build` child reported (`"reason": "built"`): pages,
/// command sets and peak memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BuildLine {
    pub(crate) pages: usize,
    pub(crate) command_sets: usize,
    pub(crate) peak_mib: Option<f64>,
}

/// The `built` message among a child's `--message-format json` lines.
fn parse_build_line(out: &str) -> Option<BuildLine> {
    let built = json_lines(out).rfind(|v| v["reason"] == "built")?;
    let count = |key: &str| built[key].as_u64().map(|n| n as usize);
    Some(BuildLine {
        pages: count("pages")?,
        command_sets: count("command_sets")?,
        peak_mib: built["peak_rss_mib"].as_f64(),
    })
}

/// The JSON objects of `--message-format json` output, one per line.
pub(crate) fn json_lines(out: &str) -> impl DoubleEndedIterator<Item = serde_json::Value> + '_ {
    out.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
}

/// Runs a `build` child with `--message-format json` and reads its report.
pub(crate) fn build_line_of(cmd: &mut Command) -> Result<BuildLine> {
    let out = cmd.args(["--message-format", "json"]).output()?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    parse_build_line(&text).ok_or_else(|| anyhow!("{cmd:?} printed no `built` message: {text}"))
}

/// The share of CPU time stolen by the hypervisor between two readings of
/// `/proc/stat` (fields of the `cpu` line: user nice system idle iowait irq
/// softirq steal …).
pub(crate) fn steal_share(before: &str, after: &str) -> Option<f64> {
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
    fn reads_the_build_report() {
        let out = r#"{"reason":"notice","level":"warning","message":"something"}
{"reason":"built","pages":3401,"command_sets":57600,"files":3410,"bytes":680634368,"out_dir":"./book","elapsed_ms":12938,"peak_rss_mib":389.2}
"#;
        assert_eq!(
            parse_build_line(out),
            Some(BuildLine {
                pages: 3401,
                command_sets: 57600,
                peak_mib: Some(389.2)
            })
        );
        let no_peak = r#"{"reason":"built","pages":1,"command_sets":0,"peak_rss_mib":null}"#;
        assert_eq!(parse_build_line(no_peak).unwrap().peak_mib, None);
        assert_eq!(parse_build_line("built 1 pages\n"), None);
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
