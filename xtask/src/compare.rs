//! Interleaved comparisons of commands run as child processes: each round
//! runs every command once, in turn (A, B, A, B …), so a machine that speeds
//! up or slows down during the run affects all of them alike. Per command:
//! wall time, CPU time (user + system of the child and of the children it
//! waited for, from `wait4`) and peak resident memory (the largest single
//! process of that tree, `ru_maxrss`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::measure::{Timing, ms};

/// One command of a comparison.
pub(crate) struct Contender<'a> {
    /// How the report names it (Markdown).
    pub(crate) label: String,
    /// A fresh command for each run.
    pub(crate) command: Box<dyn Fn() -> Command + 'a>,
}

impl<'a> Contender<'a> {
    pub(crate) fn new(label: impl Into<String>, command: impl Fn() -> Command + 'a) -> Self {
        Contender {
            label: label.into(),
            command: Box::new(command),
        }
    }
}

/// What one run of a child process used.
#[derive(Debug, Clone, Copy)]
struct Usage {
    wall: Duration,
    cpu: Duration,
    peak_rss_kib: u64,
}

/// Medians and ranges of one contender's runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measured {
    pub(crate) wall: Timing,
    pub(crate) cpu: Timing,
    /// Median and largest peak RSS, MiB.
    pub(crate) rss_mib: (f64, f64),
}

impl Measured {
    /// `self / other` on the medians: (wall, CPU).
    pub(crate) fn ratio_to(&self, other: &Measured) -> (f64, f64) {
        let r = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
        (
            r(self.wall.median, other.wall.median),
            r(self.cpu.median, other.cpu.median),
        )
    }
}

/// Runs `cmd` to completion with stdin and stdout closed and stderr in
/// `stderr_file`; fails with that stderr when the child fails.
///
/// Through a fresh `xtask measure-child` process: Linux records the memory
/// a child shared with its parent before `exec` in its peak RSS (`exec`
/// keeps the old address space's high-water mark), so a child spawned by
/// this process, which holds tens of MiB by the time the large books are
/// measured, would report at least that. The launcher is a few MiB.
fn run_measured(cmd: &mut Command, stderr_file: &Path) -> Result<Usage> {
    let mut launcher = Command::new(std::env::current_exe()?);
    launcher
        .arg("measure-child")
        .arg("--stderr")
        .arg(stderr_file)
        .arg("--")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => launcher.env(k, v),
            None => launcher.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        launcher.current_dir(dir);
    }
    let out = launcher
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running {cmd:?}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let nums: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [wall_us, cpu_us, peak_rss_kib, code] = nums[..] else {
        bail!("measure-child for {cmd:?} said {text:?}");
    };
    if code != 0 {
        let err = std::fs::read_to_string(stderr_file).unwrap_or_default();
        bail!("{cmd:?} failed (status {code}): {err}");
    }
    Ok(Usage {
        wall: Duration::from_micros(wall_us),
        cpu: Duration::from_micros(cpu_us),
        peak_rss_kib,
    })
}

/// `xtask measure-child --stderr FILE -- PROGRAM ARGS…`: runs the program
/// (stdin and stdout closed, stderr to FILE) and prints
/// `wall_µs cpu_µs peak_rss_KiB status` (status 0 = success, else the exit
/// code, or 1000 + the signal).
pub(crate) fn measure_child(stderr_file: &Path, program: &[std::ffi::OsString]) -> Result<()> {
    let Some((program, args)) = program.split_first() else {
        bail!("measure-child: no program given");
    };
    let err = std::fs::File::create(stderr_file)?;
    let started = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .with_context(|| format!("running {program:?}"))?;
    let pid = libc::pid_t::try_from(child.id())?;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid for writes; `pid` is our
        // child, not yet reaped (`Child` is never waited on, and dropping
        // it does not wait).
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).context("wait4");
        }
    }
    let wall = started.elapsed();
    drop(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        1000 + libc::WTERMSIG(status)
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    println!(
        "{} {} {} {code}",
        wall.as_micros(),
        micros(usage.ru_utime) + micros(usage.ru_stime),
        usage.ru_maxrss
    );
    Ok(())
}

/// Runs every contender once untimed (caches warm, outputs exist), then
/// `runs` rounds of one run each, in turn.
pub(crate) fn interleaved(
    runs: usize,
    contenders: &[Contender<'_>],
    scratch: &Path,
) -> Result<Vec<Measured>> {
    let stderr_file = scratch.join("child-stderr.txt");
    for c in contenders {
        run_measured(&mut (c.command)(), &stderr_file)?;
    }
    let mut samples: Vec<Vec<Usage>> = contenders.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs.max(1) {
        for (c, s) in contenders.iter().zip(&mut samples) {
            s.push(run_measured(&mut (c.command)(), &stderr_file)?);
        }
    }
    Ok(samples
        .into_iter()
        .map(|s| {
            let mut rss: Vec<f64> = s.iter().map(|u| u.peak_rss_kib as f64 / 1024.0).collect();
            rss.sort_by(f64::total_cmp);
            Measured {
                wall: Timing::of(s.iter().map(|u| u.wall).collect()),
                cpu: Timing::of(s.iter().map(|u| u.cpu).collect()),
                rss_mib: (rss[rss.len() / 2], rss[rss.len() - 1]),
            }
        })
        .collect())
}

/// The table of an interleaved comparison.
pub(crate) fn table(contenders: &[Contender<'_>], measured: &[Measured]) -> String {
    let mut md = String::from(
        "| Command | Wall ms | Wall min–max | CPU ms | CPU min–max | Peak RSS MiB (max) |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for (c, m) in contenders.iter().zip(measured) {
        md.push_str(&format!(
            "| {} | {} | {}–{} | {} | {}–{} | {:.0} ({:.0}) |\n",
            c.label,
            ms(m.wall.median),
            ms(m.wall.min),
            ms(m.wall.max),
            ms(m.cpu.median),
            ms(m.cpu.min),
            ms(m.cpu.max),
            m.rss_mib.0,
            m.rss_mib.1
        ));
    }
    md
}

/// "- what: **W×** wall, **C×** CPU." for `slower / faster` (medians), a list item.
pub(crate) fn ratio_line(what: &str, slower: &Measured, faster: &Measured) -> String {
    let (wall, cpu) = slower.ratio_to(faster);
    format!("- {what}: **{wall:.2}×** wall, **{cpu:.2}×** CPU\n")
}

/// The first line `--version` prints, or why there is none.
pub(crate) fn version_of(exe: &Path) -> String {
    match Command::new(exe).arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        Ok(o) => format!("--version failed ({})", o.status),
        Err(e) => format!("cannot run: {e}"),
    }
}
