//! The `sync` acceptance test over `../shared/reference/inferencex/sync/`:
//! the lanes whose sources are stored, synced, against the real cookbook data
//! in `../shared/reference/sglang-cookbook/`. Skipped, saying so, when
//! `../shared` is absent; CI (`AGENTX_REQUIRE_SHARED=1`) requires it.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support;
use crate::sync::{decoded, fixture, raw, stderr, sync};

/// The 11 cells whose sources are stored (research/generator.md §1.2), per file.
const CELLS: [(&str, &[&str]); 3] = [
    (
        "agentx-deepseek-v4_1",
        &[
            "dsv41flash-fp4-gb300-dynamo-sglang-agentic-agg#0",
            "dsv41flash-fp4-gb300-dynamo-sglang-agentic-agg#1",
            "dsv41flash-fp4-gb300-dynamo-sglang-agentic-disagg#0",
            "dsv41flash-fp4-gb300-dynamo-sglang-agentic-disagg#3",
            "dsv41flash-fp4-gb300-dynamo-sglang-agentic-disagg#5",
            "dsv41flash-fp4-gb300-sglang-agentic-dspark#0",
            "dsv41flash-fp4-gb300-sglang-agentic-dspark#1",
            "dsv41flash-fp4-gb300-sglang-agentic-dspark#2",
        ],
    ),
    (
        "agentx-qwen3.8-flash-next",
        &["qwen3.8next-fp4-gb300-sglang-agentic-mtp#0"],
    ),
    (
        "agentx-glm-5.2.excerpt",
        &[
            "glm5.2-fp4-gb300-dynamo-sglang-agentic-agg#0",
            "glm5.2-fp4-gb300-dynamo-sglang-agentic-disagg#1",
        ],
    ),
];

/// The acceptance test: the lanes whose sources are stored sync, and for the
/// 11 cells `decode --json` of the output (its shape, `CommandSet::json`,
/// taken in process) equals `decode --json` of the real cookbook files for
/// every (cell, concurrencies, tier, router) — 210 command
/// sets, each compared whole (commands, titles, placeholders, notes, status,
/// image). The real files have 216 for these cells: the GLM-5.2 agg c4 point's
/// recipe (agg-tp8-c4-mtp.yaml) is not stored, so the manifest leaves its row
/// out and its 6 command sets are the only ones missing. Where a stored master
/// entry or recipe is missing, the manifest's header says what the lane takes instead.
#[test]
fn acceptance_stored_lanes_reproduce_the_real_command_sets() {
    let (Some(src), Some(real_dir)) = (
        support::shared("reference/inferencex/sync"),
        support::shared("reference/sglang-cookbook"),
    ) else {
        return;
    };
    let out = support::temp("acceptance");
    let o = sync(
        &fixture("agentx-lanes.toml"),
        &src,
        Some(&real_dir),
        &out.join("data"),
    );
    assert!(o.status.success(), "sync failed:\n{}", stderr(&o));
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        report.contains("| **Total** | 6 | 11 | 35 | gb300 | 210 |"),
        "{report}"
    );
    assert!(
        report.contains("| GLM-5.2 | `glm5.2-fp4-gb300-dynamo-sglang-agentic-agg` | `e79239ba` | verified-pr | 1 | 2 | 2 |"),
        "the report says the GLM agg c4 row is left out:\n{report}"
    );
    let mut identical = 0;
    let mut missing = Vec::new();
    for (file, cells) in CELLS {
        let ours = decoded(&out.join(format!("data/{file}.json")));
        let real = decoded(&real_dir.join(format!("{file}.json")));
        let got: BTreeSet<&str> = ours.keys().map(|k| k.0.as_str()).collect();
        assert_eq!(
            got,
            cells.iter().copied().collect(),
            "{file}: the cells synced"
        );
        for (key, want) in real.iter().filter(|(k, _)| cells.contains(&k.0.as_str())) {
            match ours.get(key) {
                Some(got) => {
                    assert_eq!(got, want, "{file} {key:?}");
                    identical += 1;
                }
                None => missing.push(key.clone()),
            }
        }
        assert_cell_facts(
            &out.join(format!("data/{file}.json")),
            &real_dir.join(format!("{file}.json")),
        );
    }
    assert_eq!(identical, 210);
    assert_eq!(missing.len(), 6, "{missing:?}");
    assert!(missing.iter().all(|(cell, concs, _, _)| cell
        == "glm5.2-fp4-gb300-dynamo-sglang-agentic-agg#0"
        && concs == "[4]"));

    assert_same_bytes(&src, &real_dir, &out);
}

/// Same inputs, same bytes.
fn assert_same_bytes(src: &Path, real_dir: &Path, out: &Path) {
    let again = sync(
        &fixture("agentx-lanes.toml"),
        src,
        Some(real_dir),
        &out.join("again"),
    );
    assert!(again.status.success(), "{}", stderr(&again));
    for file in [
        "agentx-deepseek-v4_1",
        "agentx-qwen3.8-flash-next",
        "agentx-glm-5.2.excerpt",
    ] {
        let a = std::fs::read(out.join(format!("data/{file}.json"))).unwrap();
        let b = std::fs::read(out.join(format!("again/{file}.json"))).unwrap();
        assert!(a == b, "{file}: two syncs differ");
    }
}

/// The cells of a data file, as written.
fn cells(path: &Path) -> Vec<Value> {
    raw(path)["cells"].as_array().unwrap().clone()
}

/// Cell facts of every generated cell equal the real cell's, key by key as
/// the files write them (a key neither file writes is equal too).
fn assert_cell_facts(ours: &Path, real: &Path) {
    let real = cells(real);
    for c in &cells(ours) {
        let id = c["id"].as_str().unwrap();
        let r = real.iter().find(|r| r["id"] == c["id"]).unwrap();
        let same = |a: &Value, b: &Value, keys: &[&str], what: &str| {
            for k in keys {
                assert_eq!(a.get(k), b.get(k), "{id}: {what}{k}");
            }
        };
        same(c, r, &CELL_KEYS, "");
        same(
            &c["kv"],
            &r["kv"],
            &["available", "unavailable", "hicache"],
            "kv.",
        );
        // Points by concurrencies: the GLM agg c4 point is left out (above).
        let real_points = r["points"].as_array().unwrap();
        for p in c["points"].as_array().unwrap() {
            let rp = real_points.iter().find(|rp| rp["concs"] == p["concs"]);
            let rp = rp.unwrap_or_else(|| panic!("{id}: no real point {}", p["concs"]));
            same(p, rp, &["item", "override", "goldenAL", "kv"], "point ");
        }
        // The newer-schema files record provenance on the cell; GLM's excerpt is older.
        if r.get("prov").is_some() {
            same(&c["prov"], &r["prov"], &PROV_KEYS, "prov.");
        }
    }
}

/// The facts of a cell compared whole.
pub(crate) const CELL_KEYS: [&str; 11] = [
    "label",
    "detail",
    "gpus",
    "ckpt",
    "configKey",
    "image",
    "imageStatus",
    "imageCommit",
    "submitted",
    "hw",
    "disclosures",
];

const PROV_KEYS: [&str; 7] = ["sha", "recipe", "run", "pr", "comment", "status", "date"];
