//! Timing helpers: medians with min–max, child processes, and the report line
//! of a `build` child.

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

/// What a finished `build` child reported on its last line:
/// "built P pages (S command sets, …) … peak memory M MiB".
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BuildLine {
    pub(crate) pages: usize,
    pub(crate) command_sets: usize,
    pub(crate) peak_mib: Option<f64>,
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
pub(crate) fn build_line_of(cmd: &mut Command) -> Result<BuildLine> {
    let out = cmd.output()?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let err = String::from_utf8_lossy(&out.stderr);
    parse_build_line(&err).ok_or_else(|| anyhow!("{cmd:?} printed no report line: {err}"))
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
