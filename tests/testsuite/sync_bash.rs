//! Bash-script lanes synced from `../shared/reference/inferencex/sync/`
//! through the per-page manifests (`tests/fixtures/sync/manifests/`), run
//! exactly as a maintainer would (`sync --manifest M --inferencex … --previous
//! ../shared/reference/sglang-cookbook-pages --out DIR`), beside the recipe
//! lanes of the same pages. The acceptance harness (`sync_acceptance`)
//! compares whole pages and checks Qwen3.5's; this file pins what the bash
//! lanes themselves give: GLM-5.2's B300 lanes equal the real page, lane by
//! lane, and Qwen3.5's make the cells and command sets the coverage table
//! counts. Skipped, saying so, when ../shared is missing; CI requires it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support;
use crate::sync::{decoded, raw, stderr, sync};
use crate::sync_acceptance::{CELL_KEYS, object};

fn manifest(name: &str) -> PathBuf {
    support::fixture(&format!("sync/manifests/{name}"))
}

/// Syncs a page manifest; the report (stdout) and the output directory.
fn sync_page(name: &str, out: &Path) -> Option<String> {
    let src = support::shared("reference/inferencex/sync")?;
    let pages = support::shared("reference/sglang-cookbook-pages")?;
    let o = sync(&manifest(name), &src, Some(&pages), out);
    assert!(o.status.success(), "{name}: sync failed:\n{}", stderr(&o));
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The bash lanes GLM-5.2's manifest syncs (beside its recipe lanes): every
/// command set of their cells equals the real page's decoding (commands,
/// titles, placeholders, notes, status, image), none differs, none of the
/// page's sets of these cells is missing.
#[test]
fn glm_bash_lanes_equal_the_real_page() {
    let out = support::temp("sync-bash-glm");
    let Some(report) = sync_page("glm-5.2.toml", &out) else {
        return;
    };
    // --previous holds the page as a .jsx module, so it stays one.
    let file = out.join("glm-5.2.jsx");
    let bash_cells = [
        "glm5.2-fp4-b300-sglang-agentic-mtp#0",
        "glm5.2-fp8-b300-sglang-agentic-mtp#0",
    ];
    let ours: Vec<_> = decoded(&file)
        .into_iter()
        .filter(|(k, _)| bash_cells.contains(&k.0.as_str()))
        .collect();
    let page = support::shared("reference/sglang-cookbook-pages/glm-5.2.jsx").unwrap();
    let real = decoded(&page);
    let cells: BTreeSet<&str> = ours.iter().map(|(k, _)| k.0.as_str()).collect();
    assert_eq!(cells, BTreeSet::from(bash_cells));
    let mut per_lane = [0usize; 2];
    for (key, got) in &ours {
        assert_eq!(
            Some(got),
            real.get(key),
            "{key:?} differs from the real page"
        );
        per_lane[usize::from(key.0.starts_with("glm5.2-fp8"))] += 1;
    }
    let missing: Vec<_> = real
        .keys()
        .filter(|k| cells.contains(k.0.as_str()) && !ours.iter().any(|(o, _)| o == *k))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
    eprintln!(
        "GLM-5.2 bash lanes: FP4 B300 {} identical, FP8 B300 {} identical, 0 differing",
        per_lane[0], per_lane[1]
    );
    assert_eq!(per_lane, [44, 30]);
    for row in [
        "| GLM-5.2 | `glm5.2-fp4-b300-sglang-agentic-mtp` | `674946f3` | verified | 1 | 11 |  |",
        "| GLM-5.2 | `glm5.2-fp8-b300-sglang-agentic-mtp` | `de588b62` | verified | 1 | 5 |  |",
    ] {
        assert!(report.contains(row), "{row}\n{report}");
    }
    // The scripts' `awk` range check of HICACHE_SIZE is computed (a numeric
    // test), not assumed by the guard rule: no point needs the rule.
    assert!(!report.contains("(guard rule)"), "{report}");
    assert_cell_facts(&file, &page, &bash_cells);
}

/// Cell facts of the bash cells equal the real page's (the detail too: no
/// twin beside them), except the HiCache donor of the FP8 cell: it measured
/// HiCache itself, so the rules make it its own donor (same flags), where
/// the page names the FP4 lane.
fn assert_cell_facts(ours: &Path, real: &Path, ids: &[&str]) {
    let real = object(real);
    for c in object(ours)["cells"].as_array().unwrap() {
        if !ids.contains(&c["id"].as_str().unwrap()) {
            continue;
        }
        let r = real["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == c["id"])
            .unwrap();
        for k in CELL_KEYS.iter().chain(&["detail"]) {
            assert_eq!(c.get(k), r.get(k), "{}: {k}", c["id"]);
        }
        for k in ["available", "unavailable"] {
            assert_eq!(c["kv"][k], r["kv"][k], "{}: kv.{k}", c["id"]);
        }
        assert_eq!(c["kv"]["hicache"]["args"], r["kv"]["hicache"]["args"]);
        for (p, rp) in c["points"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["points"].as_array().unwrap())
        {
            for k in ["concs", "item", "goldenAL", "kv"] {
                assert_eq!(p.get(k), rp.get(k), "{} point {}: {k}", c["id"], p["concs"]);
            }
        }
    }
}

/// Qwen3.5's bash lanes (no real page to compare with; the acceptance
/// harness checks the page): every lane makes the cells and command sets the
/// coverage table counts. The H100 lane's image has the external linker and
/// the Mooncake donor block comes from a page of --previous, so its points
/// offer three tiers; the v0.5.16 image's registry lacks the linker, so the
/// other lanes' points offer two. Rows whose concurrencies meet are twins,
/// named by the tier they measured.
#[test]
fn qwen_bash_lanes_make_the_counted_cells() {
    let out = support::temp("sync-bash-qwen");
    let Some(report) = sync_page("qwen3.5.toml", &out) else {
        return;
    };
    let file = out.join("agentx-qwen3.5.json");
    let sets = decoded(&file);
    let count = |lane: &str| sets.keys().filter(|k| k.0.starts_with(lane)).count();
    let cells = |lane: &str| {
        sets.keys()
            .filter(|k| k.0.starts_with(lane))
            .map(|k| k.0.clone())
            .collect::<BTreeSet<_>>()
            .len()
    };
    // Cells / command sets per lane: points × 2 routers × tiers.
    for (lane, c, n) in [
        ("qwen3.5-fp8-b300-sglang-agentic-mtp#", 3, 34 * 2 * 2),
        ("qwen3.5-fp4-b300-sglang-agentic-mtp#", 3, 34 * 2 * 2),
        ("qwen3.5-fp4-b200-sglang-agentic-mtp#", 3, 33 * 2 * 2),
        ("qwen3.5-fp8-h100-sglang-agentic-mtp#", 2, 9 * 2 * 3),
    ] {
        assert_eq!((cells(lane), count(lane)), (c, n), "{lane}");
    }
    let page = object(&file);
    let details: Vec<String> = page["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["configKey"] == "qwen3.5-fp8-h100-sglang-agentic-mtp")
        .map(|c| {
            format!(
                "{} {}",
                c["id"].as_str().unwrap(),
                c["detail"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        details,
        [
            "qwen3.5-fp8-h100-sglang-agentic-mtp#0 MTP 3-1-4 \u{b7} measured with no KV offload",
            "qwen3.5-fp8-h100-sglang-agentic-mtp#1 MTP 3-1-4 \u{b7} measured with HiCache",
        ]
    );
    let dsv4 = support::shared("reference/sglang-cookbook-pages/deepseek-v4.jsx").unwrap();
    assert_eq!(page["kvMooncake"], object(&dsv4)["kvMooncake"]);
    assert!(
        report.contains("the Mooncake donor block is carried from"),
        "{report}"
    );
}

pub(crate) const FIXTURE_LANE: &str = "[source]\nrepo = \"SemiAnalysisAI/InferenceX\"\nmain = \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"\ngenerated-on = 2026-10-01\n\n[[lane]]\npage = \"Demo-30B\"\nstatus = \"in-progress\"\npr = 1\nconfig-key = \"demo-fp8-b300-sglang-agentic-script\"\ncommit = \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"\n";

/// The fixture lane's c4 HiCache SGLang block, expected by hand (below).
pub(crate) const FIXTURE_C4: &str = "DEMO_GREETING='grüß dich' \\\npython3 -m sglang.launch_server \\\n  \
    --model-path example-org/Demo-30B-FP8 \\\n  --served-model-name Demo-30B-FP8 \\\n  \
    --host 0.0.0.0 \\\n  --port 30000 \\\n  --cuda-graph-max-bs 8 \\\n  \
    --enable-hierarchical-cache \\\n  --hicache-size 65 \\\n  --max-running-requests 8 \\\n  \
    --speculative-algorithm EAGLE \\\n  --speculative-eagle-topk 1 \\\n  \
    --speculative-num-draft-tokens 4 \\\n  --speculative-num-steps 3 \\\n  --tp 2";

/// The invented bash lane of the fixture snapshot
/// (`benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh` and its
/// library), synced. Expected by hand from the script: the DRAM budget is
/// 1,000,000 MiB × 1,048,576 × 0.5 × 2/8 GPUs / 10⁹ = 131 GB, so
/// `--hicache-size` is 131 / TP 2 = 65; c4 gives 2 × 4 = 8 running requests
/// and graph batch 8 (c8: 16 and the cap 12); `--enable-metrics`,
/// `PYTHONUNBUFFERED`, `PORT` and the simulated-acceptance env are dropped by
/// the rules, `DEMO_GREETING` is kept by the manifest's `[rules]`; the lead
/// flags come first, the rest sorted.
#[test]
fn fixture_bash_lane_renders_its_launch() {
    let dir = support::temp("sync-bash-fixture");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("lanes.toml");
    // The image's SGLang has the external linker, and neither this run nor a
    // --previous page holds a Mooncake donor block: the tier is left out, as
    // the maintainer must say.
    let rules = "\n[defaults]\nkv-mooncake = \"none\"\n\n[rules.env]\nkeep = [\"DEMO_GREETING\"]\n";
    std::fs::write(&manifest, format!("{FIXTURE_LANE}{rules}")).unwrap();
    let o = sync(
        &manifest,
        &crate::sync::fixture("snapshot"),
        None,
        &dir.join("out"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let sets = decoded(&dir.join("out/agentx-demo-30b.json"));
    let cell = "demo-fp8-b300-sglang-agentic-script#0";
    let key = |c: &str, kv: &str| {
        (
            cell.to_string(),
            c.to_string(),
            kv.to_string(),
            "sglang".to_string(),
        )
    };
    let c4 = &sets[&key("[4]", "hicache")]["blocks"][0];
    assert_eq!(c4.as_str().unwrap(), FIXTURE_C4);
    let c8 = sets[&key("[8]", "hicache")]["blocks"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        c8.contains("--cuda-graph-max-bs 12 ") && c8.contains("--max-running-requests 16 "),
        "{c8}"
    );
    let c1 = sets[&key("[1]", "none")]["blocks"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!c1.contains("hicache"), "{c1}");
    let data = raw(&dir.join("out/agentx-demo-30b.json"));
    let points = data["cells"][0]["points"].as_array().unwrap();
    let al: Vec<&str> = points
        .iter()
        .map(|p| p["goldenAL"].as_str().unwrap())
        .collect();
    assert_eq!(al, ["2.6", "2.6", "2.6"]);
}

/// An unclassified name in a bash lane's launch stops the sync, reported
/// with every other unclassified name of the run at once (here a recipe
/// lane's three): the script's `file:line`, the manifest line and lane, and
/// every row and concurrency that used it; then nothing is written.
#[test]
fn fixture_bash_lane_refusal_names_lane_point_and_line() {
    let dir = support::temp("sync-bash-refused");
    std::fs::create_dir_all(&dir).unwrap();
    let recipe_lane = "\n[[lane]]\npage = \"Demo-30B\"\nstatus = \"in-progress\"\npr = 1\n\
        config-key = \"demo-fp8-b200-sglang-agentic-unclassified\"\n\
        commit = \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"\n";
    std::fs::write(
        dir.join("lanes.toml"),
        format!("{FIXTURE_LANE}{recipe_lane}"),
    )
    .unwrap();
    let o = sync(
        &dir.join("lanes.toml"),
        &crate::sync::fixture("snapshot"),
        None,
        &dir.join("out"),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o).replace(&format!("{}/", dir.display()), "");
    let want = "error: inferencex-e2e/benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh@a1b2c3d4:41: \
        lanes.toml:6: lane `demo-fp8-b300-sglang-agentic-script`: environment variable \
        `DEMO_GREETING` is not in the rules table (used by search-space[0] c1 (bash script), \
        search-space[1] c4 (bash script), search-space[1] c8 (bash script)); classify it";
    assert!(err.contains(want), "{want}\n{err}");
    let recipe = "inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/demo/sglang/b200-fp8-mtp/unclassified.yaml@a1b2c3d4";
    for (line, what) in [
        (20, "worker argument `mystery-speedup`"),
        (21, "worker argument `another-mystery`"),
        (23, "environment variable `MYSTERY_SWITCH`"),
    ] {
        let want = format!(
            "error: {recipe}:{line}: lanes.toml:13: lane \
             `demo-fp8-b200-sglang-agentic-unclassified`: {what} is not in the rules table"
        );
        assert!(err.contains(&want), "{want}\n{err}");
    }
    assert!(
        err.contains("sync: 4 names are not in the rules table (all of this run are listed above)"),
        "{err}"
    );
    assert!(!dir.join("out").exists());
}

/// What the bash side writes into the report, which is Markdown for a pull
/// request, goes through the escaping module (issue 25): a runner name, the
/// `[cluster."…"]` table its hardware came from, the path of the file a
/// guard-rule note points to and the guard's program name, each holding
/// backticks and HTML, stay whole in their code spans or text, and nothing
/// becomes HTML (they were written raw between backticks).
#[test]
fn bash_notes_keep_hostile_names_in_code_spans() {
    use pulldown_cmark::{Event, Parser};
    let dir = support::temp("sync-bash-markup");
    let snapshot = dir.join("snapshot");
    support::copy_dir(&crate::sync::fixture("snapshot"), &snapshot);
    let root = snapshot.join("a1b2c3d4/inferencex-e2e");
    let fleet = "b300-ex`<img src=x onerror=alert(1)>`";
    let library = "lib`<img src=x onerror=alert(2)>`.sh";
    let probe = "probe`<img src=x onerror=alert(3)>`";
    // The lane's runner is hostile, and runners.yaml has no entry for it.
    let master = root.join("configs/nvidia-master.yaml");
    let text = support::read(&master).replacen(
        "  runner: cluster:b300-example\n",
        &format!("  runner: \"cluster:{fleet}\"\n"),
        1,
    );
    std::fs::write(&master, text).unwrap();
    // The script sources a library (hostile name) whose guard runs a program
    // (hostile name) to decide an error exit.
    std::fs::write(
        root.join("benchmarks").join(library),
        "if \"probe\\`<img src=x onerror=alert(3)>\\`\"; then\n    exit 1\nfi\n",
    )
    .unwrap();
    let script = root.join("benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh");
    let text = support::read(&script).replacen(
        "mkdir -p \"$RESULT_DIR\"\n",
        "mkdir -p \"$RESULT_DIR\"\nsource \"$(dirname \"$0\")/../../lib\\`<img src=x onerror=alert(2)>\\`.sh\"\n",
        1,
    );
    std::fs::write(&script, text).unwrap();
    let extra = format!(
        "\n[defaults]\nkv-mooncake = \"none\"\n\n[rules.env]\nkeep = [\"DEMO_GREETING\"]\n\n\
         [cluster.\"{fleet}\"]\ngpus-per-node = 8\navailable-cpu-dram-mib = 1000000\n"
    );
    std::fs::write(dir.join("lanes.toml"), format!("{FIXTURE_LANE}{extra}")).unwrap();
    let o = sync(&dir.join("lanes.toml"), &snapshot, None, &dir.join("out"));
    assert!(o.status.success(), "{}", stderr(&o));
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    let (mut spans, mut texts) = (Vec::new(), String::new());
    for event in Parser::new(&report) {
        match event {
            Event::Code(c) => spans.push(c.into_string()),
            Event::Text(t) => texts.push_str(&t),
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML {h:?} in:\n{report}"),
            _ => {}
        }
    }
    for want in [
        format!("cluster:{fleet}"),
        format!("[cluster.\"{fleet}\"]"),
        format!("inferencex-e2e/benchmarks/{library}@a1b2c3d4:1"),
    ] {
        assert!(spans.contains(&want), "{want}\n{spans:?}\n{report}");
    }
    let guard = format!("`{probe}` would have to run to decide the condition");
    assert!(texts.contains(&guard), "{guard}\n{texts}\n{report}");
}

/// Issue 25, second round: a recipe script nesting bash keywords deeply
/// (here 3,000 `if`s in a function the script never calls, 52 KB) made
/// brush's parser recurse past the stack, and `sync` aborted (exit 134, no
/// message). Now sync parses and interprets on a thread of its own whose
/// stack holds the bound (a debug build needs about 16 MB for these 3,000
/// levels, twice the main thread's 8 MiB), and past the bound the script is
/// refused with its name and the bound, nothing written.
#[test]
fn deeply_nested_keywords_are_parsed_or_refused_not_a_crash() {
    let dir = support::temp("sync-bash-nesting");
    let snapshot = dir.join("snapshot");
    support::copy_dir(&crate::sync::fixture("snapshot"), &snapshot);
    let script = snapshot
        .join("a1b2c3d4/inferencex-e2e/benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh");
    let original = support::read(&script);
    let rules = "\n[defaults]\nkv-mooncake = \"none\"\n\n[rules.env]\nkeep = [\"DEMO_GREETING\"]\n";
    std::fs::write(dir.join("lanes.toml"), format!("{FIXTURE_LANE}{rules}")).unwrap();
    for (levels, refused) in [(3_000, false), (5_000, true)] {
        let unused = format!(
            "unused() {{\n{}:{}\n}}\n",
            "if true; then ".repeat(levels),
            "; fi".repeat(levels)
        );
        let text = original.replacen("CACHE_ARGS=()\n", &format!("{unused}CACHE_ARGS=()\n"), 1);
        std::fs::write(&script, text).unwrap();
        let out = dir.join(format!("out-{levels}"));
        let o = sync(&dir.join("lanes.toml"), &snapshot, None, &out);
        let err = stderr(&o);
        if refused {
            assert_eq!(o.status.code(), Some(1), "{levels}: {err}");
            let want = "demo_fp8_b300_sglang_mtp.sh@a1b2c3d4: 50";
            assert!(
                err.contains(want) && err.contains(" openers ("),
                "{want}\n{err}"
            );
            assert!(err.contains("more than 4096 are not read"), "{err}");
            assert!(!out.exists());
        } else {
            assert!(o.status.success(), "{levels}: {err}");
            let sets = decoded(&out.join("agentx-demo-30b.json"));
            assert!(!sets.is_empty());
        }
    }
}
