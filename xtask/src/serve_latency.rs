//! `serve-latency`: how long a reader waits for the reload after saving a
//! data file. Starts `mdbook-agentx serve` on a copy of the sample book (one
//! server per binary compared, each on a free port), listens on its live-reload
//! stream (`/__agentx/events`) like a page does, then edits a data file again
//! and again, timing from the write to the `reload` event. The servers are
//! edited in turn (A, B, A, B …), so a busy machine slows both alike.
//!
//! Each server also reports (`--message-format json`), per rebuild, how long
//! the rebuild took and how long after the first file event it sent the
//! reload; both are reported. Binaries compared must have that option.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use crate::measure::{Timing, ms};
use crate::scaled::{DataEdit, copy_book};

/// How long to wait for a server's answer before giving up.
const PATIENCE: Duration = Duration::from_secs(20);
/// Pause between edits, well above the debounce, so bursts never merge.
const PAUSE: Duration = Duration::from_millis(400);

/// What `cargo xtask serve-latency` measures.
pub(crate) struct LatencyOptions {
    /// The book to copy (the sample book).
    pub(crate) book: PathBuf,
    /// Edits per binary.
    pub(crate) runs: usize,
    /// (name, binary) pairs; each gets its own server.
    pub(crate) binaries: Vec<(String, PathBuf)>,
}

/// One running server and what a run needs of it.
struct Server {
    name: String,
    child: Child,
    /// The server's messages (JSON, one per line on its stdout).
    log: Receiver<serde_json::Value>,
    events: BufReader<TcpStream>,
    data_file: PathBuf,
    original: String,
    edited: String,
    /// Samples: write → reload event; first file event → reload sent
    /// (server's log); rebuild (server's log).
    to_reload: Vec<Duration>,
    from_event: Vec<Duration>,
    rebuild: Vec<Duration>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::write(&self.data_file, &self.original);
    }
}

/// Runs the measurement and prints a Markdown section on stdout.
pub(crate) fn run(opts: &LatencyOptions) -> Result<()> {
    let scratch = std::env::temp_dir().join(format!("agentx-serve-latency-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let mut servers = Vec::new();
    for (name, exe) in &opts.binaries {
        servers.push(start(name, exe, &opts.book, &scratch.join(name))?);
    }
    let runs = opts.runs.max(1);
    for run in 0..runs {
        for s in &mut servers {
            let text = if run % 2 == 0 { &s.edited } else { &s.original };
            let t = Instant::now();
            std::fs::write(&s.data_file, text)?;
            wait_for_reload(&mut s.events)?;
            s.to_reload.push(t.elapsed());
            let (rebuild, after_event) = rebuilt_line(&s.log)?;
            s.rebuild.push(rebuild);
            s.from_event.push(after_event);
            std::thread::sleep(PAUSE);
        }
    }
    let mut md = format!(
        "\n### Live reload after one data-file edit (`serve`)\n\n`{}` edited {runs} times per \
         server, servers edited in turn; from the write to the `reload` event on the \
         live-reload stream, including the {} ms debounce. The server's own log gives the \
         time from the first file event to the reload sent, and the rebuild alone.\n\n\
         | Binary | Write → reload event, median ms (min–max) | First event → reload sent | Rebuild |\n\
         |---|---:|---:|---:|\n",
        servers
            .first()
            .and_then(|s| s.data_file.file_name())
            .unwrap_or_default()
            .to_string_lossy(),
        DEBOUNCE_MS
    );
    for s in &servers {
        md.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            s.name,
            cell(&s.to_reload),
            cell(&s.from_event),
            cell(&s.rebuild)
        ));
    }
    drop(servers);
    let _ = std::fs::remove_dir_all(&scratch);
    std::io::stdout().lock().write_all(md.as_bytes())?;
    Ok(())
}

/// `serve`'s quiet time that ends a burst of file events (src/serve/watcher.rs).
const DEBOUNCE_MS: u64 = 100;

fn cell(samples: &[Duration]) -> String {
    let mut v = samples.to_vec();
    v.sort();
    let t = Timing {
        median: v[v.len() / 2],
        min: v[0],
        max: v[v.len() - 1],
    };
    format!("{} ({}–{})", ms(t.median), ms(t.min), ms(t.max))
}

/// Copies the book, starts `exe serve` on it on a free port and opens the
/// live-reload stream.
fn start(name: &str, exe: &Path, sample: &Path, dir: &Path) -> Result<Server> {
    let layout = copy_book(sample, dir)?;
    let DataEdit {
        path: data_file,
        original,
        edited,
    } = DataEdit::of(dir, &layout)?;
    let mut child = Command::new(exe)
        .arg("serve")
        .arg(dir)
        .args(["--port", "0", "--message-format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", exe.display()))?;
    let stdout = child.stdout.take().expect("piped");
    let (tx, log) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if tx.send(message).is_err() {
                break;
            }
        }
    });
    let port = loop {
        let message = log
            .recv_timeout(PATIENCE)
            .map_err(|_| anyhow!("{name}: the server did not start"))?;
        if message["reason"] == "serving" {
            break port_of(&message).with_context(|| message.to_string())?;
        }
    };
    let stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(PATIENCE))?;
    (&stream).write_all(
        format!("GET /__agentx/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes(),
    )?;
    let mut events = BufReader::new(stream);
    wait_for_event(&mut events, "hello")?;
    Ok(Server {
        name: name.to_string(),
        child,
        log,
        events,
        data_file,
        original,
        edited,
        to_reload: Vec::new(),
        from_event: Vec::new(),
        rebuild: Vec::new(),
    })
}

fn wait_for_reload(events: &mut BufReader<TcpStream>) -> Result<()> {
    wait_for_event(events, "reload")
}

/// Reads the stream up to the line `event: <name>`; a build error fails.
fn wait_for_event(events: &mut BufReader<TcpStream>, name: &str) -> Result<()> {
    let mut line = String::new();
    loop {
        line.clear();
        if events.read_line(&mut line)? == 0 {
            bail!("the live-reload stream closed");
        }
        match line.trim_end().strip_prefix("event: ") {
            Some(n) if n == name => return Ok(()),
            Some("build-error") => bail!("the rebuild failed"),
            _ => {}
        }
    }
}

/// The port of a `serving` message's URL (`http://127.0.0.1:PORT/`).
fn port_of(serving: &serde_json::Value) -> Option<u16> {
    let url = serving["url"].as_str()?;
    url.trim_end_matches('/').rsplit(':').next()?.parse().ok()
}

/// The rebuild's message in the server's log → (rebuild, first file event
/// to reload sent).
fn rebuilt_line(log: &Receiver<serde_json::Value>) -> Result<(Duration, Duration)> {
    loop {
        let message = log
            .recv_timeout(PATIENCE)
            .map_err(|_| anyhow!("no rebuild message in the server's log"))?;
        if let Some(parsed) = parse_rebuilt(&message) {
            return Ok(parsed);
        }
    }
}

fn parse_rebuilt(message: &serde_json::Value) -> Option<(Duration, Duration)> {
    if message["reason"] != "rebuilt" {
        return None;
    }
    let rebuild = message["elapsed_ms"].as_u64()?;
    let after = message["after_change_ms"].as_u64()?;
    Some((Duration::from_millis(rebuild), Duration::from_millis(after)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebuilt_messages() {
        let rebuilt = serde_json::json!({
            "reason": "rebuilt", "changes": ["data agentx/muse-spark-open.json"],
            "elapsed_ms": 12, "after_change_ms": 114, "pages_rerendered": 1, "pages": 36,
        });
        assert_eq!(
            parse_rebuilt(&rebuilt),
            Some((Duration::from_millis(12), Duration::from_millis(114)))
        );
        let first =
            serde_json::json!({"reason": "rebuilt", "elapsed_ms": 3, "after_change_ms": null});
        assert_eq!(parse_rebuilt(&first), None);
        let serving = serde_json::json!({"reason": "serving", "url": "http://[::1]:40123/"});
        assert_eq!(port_of(&serving), Some(40123));
    }
}
