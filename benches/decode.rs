//! `cargo bench --bench decode`: load + decode of AgentX data files.
//!
//! Times reading, parsing and decoding every command set of each file, many
//! times, and prints the median, min and max, plus the process's peak memory.
//! Uses the real files in `../shared` when present, and the sample book's data.

use std::path::{Path, PathBuf};
use std::time::Instant;

use mdbook_agentx::data::load_file;
use mdbook_agentx::decode::decode_page;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    let shared = root.join("../shared/reference/sglang-cookbook");
    for f in [
        "agentx-deepseek-v4_1.json",
        "agentx-qwen3.8-flash-next.json",
    ] {
        if shared.join(f).exists() {
            files.push(shared.join(f));
        } else {
            eprintln!("note: {} not present; skipped", shared.join(f).display());
        }
    }
    files.push(root.join("content/agentx/deepseek-v4.json"));
    files.push(root.join("content/agentx/muse-spark-open.json"));
    let iterations = 60;
    println!("| file | command sets | median ms | min ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for f in &files {
        let mut times = Vec::with_capacity(iterations);
        let mut sets = 0;
        for _ in 0..iterations {
            let t = Instant::now();
            let loaded = load_file(f).expect("loads");
            let page = decode_page(&loaded.data).expect("decodes");
            sets = page.command_set_count();
            std::hint::black_box(&page);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} |",
            name(f),
            sets,
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
    }
    if let Some(kib) = peak_rss_kib() {
        println!(
            "\npeak RSS of the benchmark process: {:.1} MiB",
            kib as f64 / 1024.0
        );
    }
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}
