//! `mdbook-agentx sync` over this repository's invented fixture
//! (`tests/fixtures/sync/`: lane manifests, a snapshot folder, the same files
//! as a git directory, previous data), and the refusals, each naming where.
//! The acceptance test over `../shared` is in `sync_acceptance`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mdbook_agentx::decode_file;
use serde_json::Value;

use crate::support;

/// `tests/fixtures/sync/<rel>`.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    support::fixture(&format!("sync/{rel}"))
}

/// Runs `mdbook-agentx sync`.
pub(crate) fn sync(manifest: &Path, src: &Path, previous: Option<&Path>, out: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"));
    cmd.arg("sync")
        .arg("--manifest")
        .arg(manifest)
        .arg("--inferencex")
        .arg(src)
        .arg("--out")
        .arg(out);
    if let Some(p) = previous {
        cmd.arg("--previous").arg(p);
    }
    cmd.output().expect("run mdbook-agentx")
}

/// A fresh, empty scratch directory.
pub(crate) fn scratch_dir(name: &str) -> support::Scratch {
    let dir = support::temp(name);
    std::fs::create_dir(&dir).unwrap();
    dir
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A command set's key: (cell, concurrencies as JSON, tier, router).
pub(crate) type Key = (String, String, String, String);

/// Every command set of a data file in the shape `decode --json` prints
/// ([`mdbook_agentx::CommandSet::json`]), by key.
pub(crate) fn decoded(file: &Path) -> BTreeMap<Key, Value> {
    let page = decode_file(file)
        .unwrap_or_else(|e| panic!("decode {}: {e:#}", file.display()))
        .page;
    page.command_sets()
        .map(|s| {
            let key = (
                s.cell_id.clone(),
                serde_json::to_string(&s.concs).unwrap(),
                s.tier.id().to_string(),
                s.router.id().to_string(),
            );
            (key, s.json(&page.model))
        })
        .collect()
}

/// A data file's JSON, as written.
pub(crate) fn raw(path: &Path) -> Value {
    serde_json::from_str(&support::read(path)).unwrap()
}

/// Syncs the invented fixture (`demo-lanes.toml` over `snapshot/`, previous data in `previous/`).
fn fixture_sync(name: &str) -> (support::Scratch, Output) {
    let out = support::temp(name);
    let previous = fixture("previous");
    let o = sync(
        &fixture("demo-lanes.toml"),
        &fixture("snapshot"),
        Some(&previous),
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    (out, o)
}

fn key(cell: &str, concs: &str, kv: &str, router: &str) -> Key {
    (cell.into(), concs.into(), kv.into(), router.into())
}

/// Expected commands written by hand from the fixture recipe (rules:
/// `enable-metrics` and `HF_HUB_CACHE`/`PYTHONUNBUFFERED` dropped, `false`
/// omitted, the list flag spread, the cluster env added, lead flags first and
/// the rest sorted; the PD router lists decode workers, then prefill, descending).
#[test]
fn fixture_sync_renders_both_routers() {
    let (out, o) = fixture_sync("fixture");
    let err = stderr(&o);
    assert!(
        err.contains("sync: lane 1/3 `demo-fp8-b200-sglang-agentic-mtp` (Demo-30B)"),
        "{err}"
    );
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        report.contains("| Demo-30B | 3 | 4 | 6 | b200, h200 | 28 |"),
        "{report}"
    );
    assert!(report.contains("| Demo-30B | 4 | 24 | 0 | 0 |"), "{report}");
    assert!(
        report.contains("`demo-fp8-b200-sglang-agentic-unclassified`: its recipe uses"),
        "{report}"
    );
    let sets = decoded(&out.join("agentx-demo.json"));
    let c4 = &sets[&key(
        "demo-fp8-b200-sglang-agentic-mtp#0",
        "[4]",
        "none",
        "sglang",
    )];
    assert_eq!(c4["status"], "verified");
    assert_eq!(
        c4["blocks"][0],
        "NCCL_NVLS_ENABLE=1 \\\nSGLANG_TIMEOUT_KEEP_ALIVE=900 \\\npython3 -m sglang.launch_server \\\n  \
         --model-path example-org/Demo-30B-FP8 \\\n  --served-model-name example-org/Demo-30B-FP8 \\\n  \
         --host 0.0.0.0 \\\n  --port 30000 \\\n  --cuda-graph-bs-decode 1 2 4 \\\n  \
         --max-running-requests 8 \\\n  --mem-fraction-static 0.85 \\\n  --speculative-algorithm EAGLE \\\n  \
         --speculative-eagle-topk 1 \\\n  --speculative-num-draft-tokens 4 \\\n  --speculative-num-steps 3 \\\n  \
         --tensor-parallel-size 2 \\\n  --trust-remote-code"
    );
    let dynamo = &sets[&key(
        "demo-fp8-b200-sglang-agentic-mtp#0",
        "[1]",
        "none",
        "dynamo",
    )];
    assert_eq!(
        (&dynamo["titles"], &dynamo["status"]),
        (
            &serde_json::json!(["etcd", "Frontend", "Worker"]),
            &serde_json::json!("derived")
        )
    );
    let pd = &sets[&key(
        "demo-fp8-b200-dynamo-sglang-agentic-disagg#0",
        "[64]",
        "hicache",
        "dynamo",
    )];
    assert_eq!(pd["status"], "in-progress");
    assert_eq!(
        pd["titles"],
        serde_json::json!(["etcd", "NATS", "Frontend", "Prefill", "Decode ×2"])
    );
    // Mooncake: the previous file's donor block, allowed by the image's registry.
    let mc = &sets[&key(
        "demo-fp8-b200-dynamo-sglang-agentic-disagg#0",
        "[64]",
        "mooncake",
        "dynamo",
    )];
    assert_eq!(mc["titles"][3], "Mooncake master");
    let router = &sets[&key(
        "demo-fp8-b200-dynamo-sglang-agentic-disagg#0",
        "[32]",
        "none",
        "sglang",
    )];
    assert_eq!(
        router["blocks"][2],
        "python3 -m sglang_router.launch_router \\\n  --decode \"http://$DECODE_1_HEAD_IP:30000\" \\\n  \
         --decode \"http://$DECODE_0_HEAD_IP:30000\" \\\n  --prefill \"http://$PREFILL_0_HEAD_IP:30000\" 8998 \\\n  \
         --pd-disaggregation \\\n  --host 0.0.0.0 \\\n  --port 8000 \\\n  --policy cache_aware"
    );
}

/// A bash lane's cells come over unchanged, the second one's `ref` renumbered.
#[test]
fn fixture_sync_carries_over_bash_lanes() {
    let (out, _) = fixture_sync("carry");
    let sets = decoded(&out.join("agentx-demo.json"));
    for (k, v) in &decoded(&fixture("previous/agentx-demo.json")) {
        assert_eq!(&sets[k], v, "{k:?}");
    }
    let data = raw(&out.join("agentx-demo.json"));
    let cells = data["cells"].as_array().unwrap();
    let ids: Vec<&str> = cells.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "demo-fp8-b200-sglang-agentic-mtp#0",
            "demo-fp8-b200-dynamo-sglang-agentic-disagg#0",
            "demo-fp8-h200-sglang-agentic-mtp#0",
            "demo-fp8-h200-sglang-agentic-mtp#1"
        ]
    );
    assert_eq!(cells[0]["points"][1]["job"], "1234/job/5678");
    let donor = &cells[0]["kv"]["hicache"];
    assert_eq!(
        (&donor["donor"], &donor["donorHardware"]),
        (
            &Value::from("demo-fp8-b200-dynamo-sglang-agentic-disagg"),
            &Value::from("b200")
        )
    );
}

/// Data files are staged in temporary files, but published with the mode any
/// new file gets, as `std::fs::write` would give it (not tempfile's 0600).
#[cfg(unix)]
#[test]
fn written_files_get_the_mode_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let (out, _) = fixture_sync("mode");
    let mode = |p: &Path| format!("{:o}", std::fs::metadata(p).unwrap().permissions().mode());
    std::fs::write(out.join("plain"), "x").unwrap();
    assert_eq!(
        mode(&out.join("agentx-demo.json")),
        mode(&out.join("plain"))
    );
    let leftovers: Vec<_> = std::fs::read_dir(&*out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Commits `work_tree` as the one commit of a new bare repository
/// `git_dir`; its id.
pub(crate) fn commit_to_bare_git(work_tree: &Path, git_dir: &Path) -> String {
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .arg("--git-dir")
            .arg(git_dir)
            .arg("--work-tree")
            .arg(work_tree)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    let init = Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(git_dir)
        .output()
        .unwrap();
    assert!(init.status.success(), "git init: {}", stderr(&init));
    git(&["add", "-A"]);
    git(&["commit", "-qm", "fixture"]);
    git(&["rev-parse", "HEAD"])
}

/// A git directory serves the same files as the snapshot folder. The test
/// repository's work tree is the fixture snapshot itself; only `.git` is new.
#[test]
fn git_directory_source() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("SKIPPED: git is not installed");
        return;
    }
    let dir = scratch_dir("git");
    let git_dir = dir.join("inferencex.git");
    let sha = commit_to_bare_git(&fixture("snapshot/a1b2c3d4"), &git_dir);
    let manifest = std::fs::read_to_string(fixture("demo-lanes.toml"))
        .unwrap()
        .replace("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", &sha)
        .replace(
            "../../../flags/",
            &format!("{}/flags/", support::repo().display()),
        );
    let mpath = dir.join("lanes.toml");
    std::fs::write(&mpath, manifest).unwrap();
    let o = sync(
        &mpath,
        &git_dir,
        Some(&fixture("previous")),
        &dir.join("out"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let from_git = decoded(&dir.join("out/agentx-demo.json"));
    let (snap, _) = fixture_sync("git-snapshot");
    let from_snapshot = decoded(&snap.join("agentx-demo.json"));
    assert_eq!(from_git.len(), 28);
    for (k, v) in &from_snapshot {
        assert_eq!(from_git[k]["blocks"], v["blocks"], "{k:?}");
    }
}

const HEAD: &str = "[source]\nrepo = \"SemiAnalysisAI/InferenceX\"\nmain = \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"\ngenerated-on = 2026-10-01\n";

/// Runs a sync of `lanes` (appended to a valid `[source]`) over the fixture
/// snapshot, expects it to fail, and returns stderr. Nothing may be written.
fn refused(name: &str, lanes: &str) -> String {
    let dir = scratch_dir(name);
    let manifest = dir.join("lanes.toml");
    std::fs::write(&manifest, format!("{HEAD}{lanes}")).unwrap();
    let out = dir.join("out");
    let o = sync(&manifest, &fixture("snapshot"), None, &out);
    assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
    assert!(
        !out.exists(),
        "{name}: a failed sync wrote {}",
        out.display()
    );
    stderr(&o).replace(&format!("{}/", dir.display()), "")
}

/// Syncs `manifest` (written to `dir/lanes.toml`) over the fixture snapshot
/// into `dir/out`, without `--previous`; it must succeed.
fn sync_in(dir: &Path, manifest: &str) {
    std::fs::write(dir.join("lanes.toml"), manifest).unwrap();
    let o = sync(
        &dir.join("lanes.toml"),
        &fixture("snapshot"),
        None,
        &dir.join("out"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

const SHA: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";

/// An in-progress lane (its `[[lane]]` header is manifest line 6) plus `extra` lines.
fn lane(key: &str, commit: &str, extra: &str) -> String {
    format!(
        "\n[[lane]]\npage = \"Demo-30B\"\nstatus = \"in-progress\"\npr = 1\nconfig-key = \"{key}\"\ncommit = \"{commit}\"\n{extra}"
    )
}

#[test]
fn unclassified_argument_names_file_variant_and_key() {
    let err = refused(
        "unclassified",
        &lane("demo-fp8-b200-sglang-agentic-unclassified", SHA, ""),
    );
    // Every name of the run at once, each with its recipe line, lane, point and key.
    let file = "inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/demo/sglang/b200-fp8-mtp/unclassified.yaml@a1b2c3d4";
    let at = "lanes.toml:6: lane `demo-fp8-b200-sglang-agentic-unclassified`";
    for (line, what) in [
        (20, "worker argument `mystery-speedup`"),
        (21, "worker argument `another-mystery`"),
        (23, "environment variable `MYSTERY_SWITCH`"),
    ] {
        let want = format!(
            "error: {file}:{line}: {at}: {what} is not in the rules table (used by \
             search-space[0] c1 (flat recipe)); classify it"
        );
        assert!(err.contains(&want), "{want}\n{err}");
    }
    assert!(
        err.contains("sync: 3 names are not in the rules table (all of this run are listed above)"),
        "{err}"
    );
    assert!(err.contains("sync: nothing written"), "{err}");
    // Classified in the manifest's `[rules]`, the same lane syncs and keeps the flag.
    let dir = scratch_dir("rules");
    let rules = "\n[defaults]\nkv-mooncake = \"none\"\n\
                 [rules.worker-args]\nkeep = [\"mystery-speedup\", \"another-mystery\"]\n\
                 [rules.env]\ndrop.harness = [\"MYSTERY_SWITCH\"]\n";
    let lanes = lane("demo-fp8-b200-sglang-agentic-unclassified", SHA, "");
    sync_in(&dir, &format!("{HEAD}{rules}{lanes}"));
    let text = std::fs::read_to_string(dir.join("out/agentx-demo-30b.json")).unwrap();
    assert!(text.contains("[\"--mystery-speedup\"]"), "{text}");
}

#[test]
fn missing_commit_names_the_commit_and_the_manifest_line() {
    let missing = "ffffffffe5f60718293a4b5c6d7e8f9012345678";
    let err = refused(
        "commit",
        &lane("demo-fp8-b200-sglang-agentic-mtp", missing, ""),
    );
    let want = format!(
        "lanes.toml:6: lane `demo-fp8-b200-sglang-agentic-mtp`: commit {missing} is not in the snapshot folder"
    );
    assert!(err.contains(&want), "{err}");
}

#[test]
fn config_key_absent_at_its_commit() {
    let err = refused("key", &lane("demo-fp8-b300-sglang-agentic-mtp", SHA, ""));
    let want = "lanes.toml:6: lane `demo-fp8-b300-sglang-agentic-mtp`: config key \
        `demo-fp8-b300-sglang-agentic-mtp` is not in inferencex-e2e/configs/nvidia-master.yaml@a1b2c3d4";
    assert!(err.contains(want), "{err}");
}

/// A bash lane is interpreted (src/sync/bash); when its script is not at the
/// commit, the error names the scripts the launcher would run and the way out.
#[test]
fn bash_lane_without_its_script_names_it_and_carry_over() {
    let err = refused("bash", &lane("demo-fp8-h200-sglang-agentic-mtp", SHA, ""));
    let want = "lanes.toml:6: lane `demo-fp8-h200-sglang-agentic-mtp`: a bash-script lane: none of \
        benchmarks/single_node/agentic/demo_fp8_h200_sglang_mtp.sh, \
        benchmarks/single_node/agentic/demo_fp8_h200_mtp.sh is at commit";
    assert!(err.contains(want), "{err}");
    assert!(err.contains("set `carry-over = true`"), "{err}");
    let carry = lane(
        "demo-fp8-h200-sglang-agentic-mtp",
        SHA,
        "carry-over = true\n",
    );
    let err = refused("bash-no-previous", &carry);
    assert!(
        err.contains(
            "lanes.toml:6: lane `demo-fp8-h200-sglang-agentic-mtp`: carry-over needs --previous"
        ),
        "{err}"
    );
}

#[test]
fn malformed_manifests_name_the_line() {
    let err = refused("syntax", "\n[[lane]]\npage = \"Demo-30B\"\nconfig-key = \n");
    assert!(
        err.contains("error: lanes.toml:8: string values must be quoted"),
        "{err}"
    );
    let err = refused("unknown-key", &lane("k", SHA, "runn = 5\n"));
    assert!(
        err.contains("error: lanes.toml:12: unknown field `runn`"),
        "{err}"
    );
    let verified = lane("k", SHA, "").replace("in-progress", "verified") + "run = 5\n";
    let err = refused("status", &verified);
    assert!(
        err.contains("lanes.toml:6: lane `k`: status verified needs `date`"),
        "{err}"
    );
    let err = refused("short-commit", &lane("k", "a1b2c3d4", ""));
    assert!(
        err.contains(
            "lanes.toml:6: lane `k`: commit = \"a1b2c3d4\": write the full 40-digit commit id"
        ),
        "{err}"
    );
}

/// Regression (issue 25): the snapshot folder's master config replaced by
/// a symlink to a file elsewhere, by a symlink to `/dev/zero`, and by a
/// FIFO: each sync fails within 60 s, naming the file, and writes nothing
/// (it followed the links, and hung on the FIFO).
#[cfg(unix)]
#[test]
fn snapshot_symlinks_and_fifos_are_refused() {
    let master = "a1b2c3d4/inferencex-e2e/configs/nvidia-master.yaml";
    for (name, make, want) in [
        (
            "link",
            "ln -s \"$1\" \"$0\"",
            "nvidia-master.yaml in the snapshot folder",
        ),
        (
            "zero",
            "ln -s /dev/zero \"$0\"",
            "nvidia-master.yaml in the snapshot folder",
        ),
        (
            "fifo",
            "mkfifo \"$0\"",
            "nvidia-master.yaml is a FIFO, not a regular file",
        ),
    ] {
        let snapshot = support::temp(&format!("snapshot-{name}"));
        support::copy_dir(&fixture("snapshot"), &snapshot);
        let real = snapshot.with_file_name("elsewhere.yaml");
        std::fs::rename(snapshot.join(master), &real).unwrap();
        let made = Command::new("sh")
            .args(["-c", make])
            .arg(snapshot.join(master))
            .arg(&real)
            .status()
            .unwrap();
        assert!(made.success(), "{name}");
        let out = support::temp(&format!("snapshot-{name}-out"));
        let manifest = fixture("demo-lanes.toml");
        let child = std::thread::spawn(move || {
            let o = sync(&manifest, &snapshot, Some(&fixture("previous")), &out);
            (o, out.exists())
        });
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !child.is_finished() {
            assert!(
                std::time::Instant::now() < deadline,
                "{name}: sync still running after 60 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let (o, wrote) = child.join().unwrap();
        assert!(!o.status.success(), "{name}");
        assert!(
            stderr(&o).contains(want),
            "{name}: want {want:?} in {}",
            stderr(&o)
        );
        assert!(!wrote, "{name}: nothing written");
    }
}

/// Twins: cells of one lane a reader could not otherwise tell apart. A row
/// repeating a concurrency of another row of the same label starts its own
/// cell; twins are named by the tier they measured when it differs (here the
/// rows declare no offload and HiCache), else by the first worker flag that
/// differs.
#[test]
fn twin_cells_say_what_differs() {
    let dir = scratch_dir("twins");
    let lanes = format!(
        "{HEAD}\n[defaults]\nkv-mooncake = \"none\"\n[cluster.b200-example]\nenv = {{}}\n{}{}",
        lane("demo-fp8-b200-sglang-agentic-twins", SHA, ""),
        lane("demo-fp8-b200-dynamo-sglang-agentic-twins", SHA, ""),
    );
    sync_in(&dir, &lanes);
    let data = raw(&dir.join("out/agentx-demo-30b.json"));
    let cells: Vec<String> = data["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} | {} | {}",
                c["id"].as_str().unwrap(),
                c["detail"].as_str().unwrap(),
                c["points"].as_array().unwrap().len()
            )
        })
        .collect();
    assert_eq!(
        cells,
        [
            "demo-fp8-b200-sglang-agentic-twins#0 | MTP 3-1-4 \u{b7} measured with no KV offload | 2",
            "demo-fp8-b200-sglang-agentic-twins#1 | MTP 3-1-4 \u{b7} measured with HiCache | 2",
            "demo-fp8-b200-dynamo-sglang-agentic-twins#0 | MTP 1-1-2 \u{b7} --max-running-requests 16 | 1",
            "demo-fp8-b200-dynamo-sglang-agentic-twins#1 | MTP 1-1-2 \u{b7} --max-running-requests 8 | 1",
        ]
    );
}
