//! Bash-script lanes synced from `../shared/reference/inferencex/sync/`
//! through the per-page manifests (`tests/fixtures/sync/manifests/`), run
//! exactly as a maintainer would (`sync --manifest M --inferencex … --previous
//! ../shared/reference/sglang-cookbook-pages --out DIR`). GLM-5.2's command
//! sets are compared with the real page's own decoding; Qwen3.5's page is not
//! in ../shared, so its output must decode, pass `check`, and be reproducible.
//! Skipped, saying so, when ../shared is missing; CI requires it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support;
use crate::sync::{decoded, raw, stderr, sync};

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

/// The lanes GLM-5.2's manifest syncs: every command set they emit equals
/// the real page's decoding (commands, titles, placeholders, notes, status,
/// image), none differs, none of the page's sets of these cells is missing.
#[test]
fn glm_bash_lanes_equal_the_real_page() {
    let out = support::temp("sync-bash-glm");
    let Some(report) = sync_page("glm-5.2.toml", &out) else {
        return;
    };
    let ours = decoded(&out.join("glm-5.2.json"));
    let page = support::shared("reference/sglang-cookbook-pages/glm-5.2.jsx").unwrap();
    let real = decoded(&page);
    let cells: BTreeSet<&str> = ours.keys().map(|k| k.0.as_str()).collect();
    assert_eq!(
        cells,
        BTreeSet::from([
            "glm5.2-fp4-b300-sglang-agentic-mtp#0",
            "glm5.2-fp8-b300-sglang-agentic-mtp#0"
        ])
    );
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
        .filter(|k| cells.contains(k.0.as_str()) && !ours.contains_key(*k))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
    eprintln!(
        "GLM-5.2 bash lanes: FP4 B300 {} identical, FP8 B300 {} identical, 0 differing",
        per_lane[0], per_lane[1]
    );
    assert_eq!(per_lane, [44, 30]);
    assert!(
        report.contains("| GLM-5.2 | 74 | 0 | 208 | 0 |"),
        "{report}"
    );
    // The scripts' `awk` range check of HICACHE_SIZE is computed (a numeric
    // test), not assumed by the guard rule: no point needs the rule.
    assert!(!report.contains("(guard rule)"), "{report}");
    assert_cell_facts(&out.join("glm-5.2.json"), &page);
}

/// Cell facts equal the real page's, except the HiCache donor of the FP8
/// cell: it measured HiCache itself, so the rules make it its own donor
/// (same flags), where the page names the FP4 lane.
fn assert_cell_facts(ours: &Path, real: &Path) {
    let text = support::read(real);
    let json = &text[text.find('{').unwrap()..=text.rfind('}').unwrap()];
    let real: serde_json::Value = serde_json::from_str(json).unwrap();
    for c in raw(ours)["cells"].as_array().unwrap() {
        let r = real["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == c["id"])
            .unwrap();
        for k in crate::sync_acceptance::CELL_KEYS {
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

/// Qwen3.5: no real page to compare with. The output decodes, every point's
/// cell is what the coverage table counts, `check` passes against the
/// registries of the images' releases, and two syncs give the same bytes.
#[test]
fn qwen_bash_lanes_decode_and_pass_check() {
    let out = support::temp("sync-bash-qwen");
    let Some(report) = sync_page("qwen3.5.toml", &out.join("a")) else {
        return;
    };
    let file = out.join("a/agentx-qwen3.5.json");
    let sets = decoded(&file);
    let count = |lane: &str| sets.keys().filter(|k| k.0.starts_with(lane)).count();
    let cells = |lane: &str| {
        sets.keys()
            .filter(|k| k.0.starts_with(lane))
            .map(|k| k.0.clone())
            .collect::<BTreeSet<_>>()
            .len()
    };
    // Cells / command sets per lane (points × 2 routers × {none, HiCache}).
    for (lane, c, n) in [
        ("qwen3.5-fp8-b300-sglang-agentic-mtp#", 3, 136),
        ("qwen3.5-fp4-b300-sglang-agentic-mtp#", 3, 136),
        ("qwen3.5-fp4-b200-sglang-agentic-mtp#", 3, 132),
        ("qwen3.5-fp8-h100-sglang-agentic-mtp#", 2, 36),
    ] {
        assert_eq!((cells(lane), count(lane)), (c, n), "{lane}");
    }
    assert!(
        report.contains("| Qwen3.5 | 4 | 11 | 110 | b300, b200, h100 | 440 |"),
        "{report}"
    );
    let o = sync(
        &manifest("qwen3.5.toml"),
        &support::shared("reference/inferencex/sync").unwrap(),
        Some(&support::shared("reference/sglang-cookbook-pages").unwrap()),
        &out.join("b"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read(&file).unwrap() == std::fs::read(out.join("b/agentx-qwen3.5.json")).unwrap()
    );
    check_book(&file);
}

/// A book of the synced page; every command line parses with the registry
/// of the release its image names (v0.5.16; the H100 nightly gets the newest).
fn check_book(file: &Path) {
    let Some(flags) = support::shared("reference/flags") else {
        return;
    };
    let dir = support::temp("sync-bash-check");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(file, dir.join("data/agentx-qwen3.5.json")).unwrap();
    std::fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Qwen3.5](q.md)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/q.md"),
        "# Qwen3.5\n\n<<agentx page=\"Qwen3.5\">>\n",
    )
    .unwrap();
    let f = |name: &str| flags.join(name).display().to_string();
    let toml = format!(
        "[book]\nsrc = \"src\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\nallow-outside = true\n\n\
         [preprocessor.agentx.registries]\n\
         default = {{ \"sglang.launch_server\" = \"{}\", \"dynamo.sglang\" = \"{}\", \"dynamo.frontend\" = \"{}\" }}\n\
         \"lmsysorg/sglang:v0.5.16-cu130\" = \"{}\"\n",
        f("sglang.launch_server@v0.5.23.json"),
        f("dynamo.sglang@v1.6.1.json"),
        f("dynamo.frontend@v1.6.1.json"),
        f("sglang.launch_server@v0.5.16.json"),
    );
    std::fs::write(dir.join("book.toml"), toml).unwrap();
    let report = mdbook_agentx::check(&dir).unwrap();
    // Every SGLang line parses. The derived Dynamo lines of the v0.5.16
    // image fail on one flag, as Qwen3.8-Flash-Next's do (check.rs):
    // dynamo.sglang v1.6.1 bundles a newer SGLang, where `--cuda-graph-max-bs`
    // is an ambiguous prefix. A real finding: those derived commands need a
    // Dynamo built against the image's own SGLang.
    let failures: BTreeSet<String> = report
        .failures
        .iter()
        .map(|f| format!("{} {} {} {}", f.image, f.entrypoint, f.flag, f.message))
        .collect();
    assert_eq!(
        failures,
        BTreeSet::from(["lmsysorg/sglang:v0.5.16-cu130 dynamo.sglang --cuda-graph-max-bs ambiguous option: could match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill".to_string()])
    );
    for t in &report.images {
        eprintln!(
            "image {} · {} ({}): {}/{} command lines parse",
            t.image, t.entrypoint, t.registry, t.parsed, t.lines
        );
        if t.entrypoint != "dynamo.sglang" || !t.image.ends_with("v0.5.16-cu130") {
            assert_eq!(t.parsed, t.lines, "{} {}", t.image, t.entrypoint);
        }
    }
    assert!(report.tiers.is_empty());
    assert!(report.links.problems.is_empty(), "{:?}", report.links);
    let lines: usize = report.images.iter().map(|t| t.lines).sum();
    assert!(lines > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

const FIXTURE_LANE: &str = "[source]\nrepo = \"SemiAnalysisAI/InferenceX\"\nmain = \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"\ngenerated-on = 2026-10-01\n\n[[lane]]\npage = \"Demo-30B\"\nstatus = \"in-progress\"\npr = 1\nconfig-key = \"demo-fp8-b300-sglang-agentic-script\"\ncommit = \"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\"\n";

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
    let rules = "\n[rules.env]\nkeep = [\"DEMO_GREETING\"]\n";
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
    let want = "DEMO_GREETING='grüß dich' \\\npython3 -m sglang.launch_server \\\n  \
        --model-path example-org/Demo-30B-FP8 \\\n  --served-model-name Demo-30B-FP8 \\\n  \
        --host 0.0.0.0 \\\n  --port 30000 \\\n  --cuda-graph-max-bs 8 \\\n  \
        --enable-hierarchical-cache \\\n  --hicache-size 65 \\\n  --max-running-requests 8 \\\n  \
        --speculative-algorithm EAGLE \\\n  --speculative-eagle-topk 1 \\\n  \
        --speculative-num-draft-tokens 4 \\\n  --speculative-num-steps 3 \\\n  --tp 2";
    assert_eq!(c4.as_str().unwrap(), want);
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

/// An unclassified name in a bash lane's launch stops the sync, naming the
/// manifest line, the lane, the row and concurrency, and the script's line.
#[test]
fn fixture_bash_lane_refusal_names_lane_point_and_line() {
    let dir = support::temp("sync-bash-refused");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lanes.toml"), FIXTURE_LANE).unwrap();
    let o = sync(
        &dir.join("lanes.toml"),
        &crate::sync::fixture("snapshot"),
        None,
        &dir.join("out"),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o).replace(&format!("{}/", dir.display()), "");
    let want = "lanes.toml:6: lane `demo-fp8-b300-sglang-agentic-script`: search-space[0] c1: \
        inferencex-e2e/benchmarks/single_node/agentic/demo_fp8_b300_sglang_mtp.sh@a1b2c3d4:41: \
        variant (flat recipe): environment variable `DEMO_GREETING` is not in the rules table";
    assert!(err.contains(want), "{err}");
    assert!(!dir.join("out").exists());
}
