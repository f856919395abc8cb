//! The fixture bash lane with what the DeepSeek-V4 scripts of InferenceX
//! main `843c6254` do before their launch: the checkout's folder from
//! `$(cd … && pwd)`, the server's interpreter from `$(command -v python3)`,
//! a `find` of the image read without running it, and an `if` no rule can
//! decide, read both ways (docs/sync-bash-lanes.md, "The either-way rule").
//! What the page shows stays exactly what the script launches; a value
//! nobody can know that the page would show is refused with the line.

use crate::support;
use crate::sync::{decoded, stderr, sync};
use crate::sync_bash::{FIXTURE_C4, FIXTURE_LANE};

const SCRIPT: &str =
    "a1b2c3d4/inferencex-e2e/benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh";

/// Syncs the fixture lane with `prelude` inserted before the launch array
/// (whose `python3` becomes `"$SERVER_PY"`); the sync's output.
fn sync_with_prelude(name: &str, prelude: &str) -> (support::Scratch, std::process::Output) {
    let dir = support::temp(name);
    let snapshot = dir.join("snapshot");
    support::copy_dir(&crate::sync::fixture("snapshot"), &snapshot);
    let script = snapshot.join(SCRIPT);
    let text = support::read(&script)
        .replacen("CMD=(\n", &format!("{prelude}CMD=(\n"), 1)
        .replacen("    python3 -m sglang", "    \"$SERVER_PY\" -m sglang", 1);
    std::fs::write(&script, text).unwrap();
    let extra = "\n[defaults]\nkv-mooncake = \"none\"\n\n[rules.env]\nkeep = [\"DEMO_GREETING\"]\n";
    std::fs::write(dir.join("lanes.toml"), format!("{FIXTURE_LANE}{extra}")).unwrap();
    let o = sync(&dir.join("lanes.toml"), &snapshot, None, &dir.join("out"));
    (dir, o)
}

const PRELUDE: &str = "SCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n\
    SERVER_PY=\"$(command -v python3)\"\n\
    PTX=$(find /usr/local/cuda* -name ptxas -print -quit 2>/dev/null || true)\n";

/// Nothing the undecided `if` sets reaches the launch: the lane syncs, its
/// commands are the plain fixture's (checked by hand there), and the report
/// names the `if` and what it leaves unknown.
#[test]
fn an_undecided_if_that_changes_nothing_shown_syncs() {
    let prelude = format!("{PRELUDE}if [ -n \"$PTX\" ]; then NOTE=\"é $SCRIPT_DIR\"; fi\n");
    let (dir, o) = sync_with_prelude("sync-bash-either", &prelude);
    assert!(o.status.success(), "{}", stderr(&o));
    let sets = decoded(&dir.join("out/agentx-demo-30b.json"));
    let key = (
        "demo-fp8-b300-sglang-agentic-script#0".to_string(),
        "[4]".to_string(),
        "hicache".to_string(),
        "sglang".to_string(),
    );
    assert_eq!(sets[&key]["blocks"][0].as_str().unwrap(), FIXTURE_C4);
    let report = String::from_utf8_lossy(&o.stdout);
    let note = "read both ways, it leaves `NOTE` unknown (either-way rule)";
    assert!(report.contains(note), "{report}");
}

/// The same `if` exporting a variable the server reads: the page would
/// have to show a value only the image could tell, so the point is refused
/// at the launch's line, naming the `if`; nothing is written.
#[test]
fn an_unknown_value_the_page_would_show_is_refused() {
    let prelude = format!("{PRELUDE}if [ -n \"$PTX\" ]; then export DEMO_GREETING=\"$PTX\"; fi\n");
    let (dir, o) = sync_with_prelude("sync-bash-either-refused", &prelude);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let want = "demo_fp8_b300_sglang_mtp.sh@a1b2c3d4:45: the exported `DEMO_GREETING` is not \
        known statically (set either way of the `if` at \
        inferencex-e2e/benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh@a1b2c3d4:29, \
        undecided: an operand would have to be known to decide the condition (what `$(find \
        /usr/local/cuda* -name ptxas -print -quit 2>/dev/null || true)` prints, which would \
        have to run)), and the page would show it";
    assert!(err.contains(want), "{want}\n{err}");
    assert!(!dir.join("out").exists());
}
