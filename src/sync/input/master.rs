//! A lane's entry in InferenceX's master config (`configs/nvidia-master.yaml`):
//! image, model, framework and the agentic search-space rows, typed. Rows the
//! generator cannot render are kept as [`RowKind::Bash`] so the caller can
//! refuse them or carry them over. Uses `sync::yaml`.

use super::yaml::Node;

/// Repository path of the NVIDIA master config (below the layout prefix).
pub(in crate::sync) const MASTER_PATH: &str = "configs/nvidia-master.yaml";

#[derive(Debug, Clone)]
pub(in crate::sync) struct MasterEntry {
    /// Where the entry was read, `path@commit:line`.
    pub at: String,
    pub image: String,
    /// Hugging Face id of the checkpoint.
    pub model: String,
    pub model_prefix: String,
    /// `cluster:<fleet>`.
    pub runner: String,
    /// `fp4`, `fp8`, … (the launcher's `PRECISION`; bash lanes name their script by it).
    pub precision: Option<String>,
    /// `sglang` or `dynamo-sglang`.
    pub framework: String,
    /// The agentic scenario's `dram-utilization`, as Python prints it (`0.8`).
    pub dram_utilization: Option<String>,
    pub rows: Vec<Row>,
}

/// One search-space row; `item` is its index, which the data records.
#[derive(Debug, Clone)]
pub(in crate::sync) struct Row {
    pub item: usize,
    pub concs: Vec<u32>,
    pub spec_decoding: Option<String>,
    /// `kv-offloading` as the row declares it (`none`, `dram`, …): rows of a
    /// lane that declare different tiers are different cells.
    pub kv_offloading: Option<String>,
    pub kind: RowKind,
}

#[derive(Debug, Clone)]
pub(in crate::sync) enum RowKind {
    /// A single-node row rendered from an srt-slurm recipe (`srt-recipe:`).
    SingleNode {
        tp: Option<i64>,
        ep: Option<i64>,
        /// `dp-attn: true`: the row runs attention data parallel.
        dp_attn: bool,
        recipe: String,
    },
    /// A multi-node row: `CONFIG_FILE=recipes/<path>[:<selector>]`.
    MultiNode {
        recipe: String,
        selector: Option<String>,
        settings: Vec<String>,
    },
    /// A single-node row without a recipe: InferenceX runs a bash script.
    Bash(BashRow),
}

/// What a bash row hands the launcher (docs/sync-bash-lanes.md, "The point's env").
#[derive(Debug, Clone, Default)]
pub(in crate::sync) struct BashRow {
    pub tp: Option<i64>,
    pub ep: Option<i64>,
    pub dp_attn: Option<bool>,
    pub kv_offloading: Option<String>,
    /// `kv-offload-backend.name`.
    pub kv_backend: Option<String>,
}

const ROW_KEYS: &[&str] = &[
    "conc-list",
    "decode",
    "dp-attn",
    "ep",
    "kv-offload-backend",
    "kv-offloading",
    "num-nodes",
    "prefill",
    // The router a row ran behind (`{ name: sglang-router, version }`): the
    // recipe's front door says the same and is what the commands follow.
    "router",
    "spec-decoding",
    "srt-recipe",
    "tp",
    "worker",
];

/// `pcp-size`: prefill context parallelism, which the recipe's flags carry.
const ROLE_KEYS: &[&str] = &[
    "additional-settings",
    "dp-attn",
    "ep",
    "num-worker",
    "pcp-size",
    "tp",
];

/// Finds and types `key` in a parsed master config. `Ok(None)`: no such entry.
pub(in crate::sync) fn entry(
    doc: &Node,
    key: &str,
    at: &str,
) -> Result<Option<MasterEntry>, String> {
    let Some(node) = doc.get(key) else {
        return Ok(None);
    };
    let here = format!("{at}:{}", node.line);
    let text = |k: &str| -> Result<String, String> {
        node.get(k)
            .and_then(|v| v.python_str())
            .filter(|s| !s.is_empty() && node.get(k).is_some_and(|v| !v.is_null()))
            .ok_or_else(|| format!("{here}: `{key}` has no `{k}`"))
    };
    // The front door itself comes from the recipe; the framework only says
    // whether the generator knows the lane's kind at all.
    let framework = text("framework")?;
    match framework.as_str() {
        "sglang" | "dynamo-sglang" => {}
        other => {
            return Err(format!(
                "{here}: framework `{other}` is not supported (only sglang and dynamo-sglang lanes)"
            ));
        }
    }
    let (rows, dram_utilization) = rows(node, &here)?;
    let precision = node.get("precision").and_then(|v| v.python_str());
    let (image, model, model_prefix, runner) = (
        text("image")?,
        text("model")?,
        text("model-prefix")?,
        text("runner")?,
    );
    Ok(Some(MasterEntry {
        at: here,
        image,
        model,
        model_prefix,
        runner,
        precision,
        framework,
        dram_utilization,
        rows,
    }))
}

type Rows = (Vec<Row>, Option<String>);

fn rows(node: &Node, here: &str) -> Result<Rows, String> {
    let scenarios = node
        .get("scenarios")
        .and_then(|s| s.get("agentic-coding"))
        .and_then(|s| s.as_seq())
        .ok_or_else(|| format!("{here}: no `scenarios.agentic-coding` list"))?;
    let [scenario] = scenarios else {
        return Err(format!(
            "{here}: {} agentic-coding scenarios; the generator numbers rows within one",
            scenarios.len()
        ));
    };
    let space = scenario
        .get("search-space")
        .and_then(|s| s.as_seq())
        .ok_or_else(|| format!("{here}: the agentic-coding scenario has no `search-space` list"))?;
    let dram = scenario
        .get("dram-utilization")
        .and_then(|d| d.python_str());
    let rows = space
        .iter()
        .enumerate()
        .map(|(item, r)| {
            row(item, r).map_err(|e| format!("{here}: search-space[{item}] (line {}): {e}", r.line))
        })
        .collect::<Result<_, String>>()?;
    Ok((rows, dram))
}

fn row(item: usize, r: &Node) -> Result<Row, String> {
    let map = r.as_map().ok_or("not a mapping")?;
    if let Some((k, _)) = map.iter().find(|(k, _)| !ROW_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key `{k}`"));
    }
    let concs = r
        .get("conc-list")
        .and_then(|c| c.as_seq())
        .ok_or("no `conc-list`")?
        .iter()
        .map(|c| {
            c.as_int()
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| format!("conc-list holds {}, not a concurrency", c.kind()))
        })
        .collect::<Result<Vec<u32>, String>>()?;
    let spec_decoding = r.get("spec-decoding").and_then(|s| s.python_str());
    let kind = if let Some(recipe) = r.get("srt-recipe") {
        RowKind::SingleNode {
            tp: r.get("tp").and_then(|v| v.as_int()),
            ep: r.get("ep").and_then(|v| v.as_int()),
            dp_attn: r.get("dp-attn").and_then(|v| v.as_bool()).unwrap_or(false),
            recipe: recipe
                .as_str()
                .ok_or("`srt-recipe` is not a string")?
                .to_string(),
        }
    } else if r.get("worker").is_some() || r.get("prefill").is_some() {
        multi_node(r)?
    } else {
        RowKind::Bash(BashRow {
            tp: r.get("tp").and_then(|v| v.as_int()),
            ep: r.get("ep").and_then(|v| v.as_int()),
            dp_attn: r.get("dp-attn").and_then(|v| v.as_bool()),
            kv_offloading: r.get("kv-offloading").and_then(|v| v.python_str()),
            kv_backend: r
                .get("kv-offload-backend")
                .and_then(|b| b.get("name"))
                .and_then(|n| n.python_str()),
        })
    };
    Ok(Row {
        item,
        concs,
        spec_decoding,
        kv_offloading: r.get("kv-offloading").and_then(|k| k.python_str()),
        kind,
    })
}

fn multi_node(r: &Node) -> Result<RowKind, String> {
    let mut config: Option<(String, Option<String>)> = None;
    let mut settings = Vec::new();
    for role in ["worker", "prefill", "decode"] {
        let Some(spec) = r.get(role) else { continue };
        let map = spec
            .as_map()
            .ok_or_else(|| format!("`{role}` is not a mapping"))?;
        if let Some((k, _)) = map.iter().find(|(k, _)| !ROLE_KEYS.contains(&k.as_str())) {
            return Err(format!("`{role}` has an unknown key `{k}`"));
        }
        let Some(list) = spec.get("additional-settings") else {
            continue;
        };
        for s in list.as_seq().ok_or("`additional-settings` is not a list")? {
            let s = s.as_str().ok_or("an additional setting is not a string")?;
            if let Some(v) = s.strip_prefix("CONFIG_FILE=") {
                let parsed = config_file(v)?;
                if config.as_ref().is_some_and(|c| *c != parsed) {
                    return Err(format!("`{role}` names another CONFIG_FILE (`{v}`)"));
                }
                config = Some(parsed);
            } else {
                settings.push(s.to_string());
            }
        }
    }
    let (recipe, selector) = config.ok_or("a multi-node row without CONFIG_FILE=")?;
    Ok(RowKind::MultiNode {
        recipe,
        selector,
        settings,
    })
}

/// `recipes/<path>.yaml[:override_x | :zip_override_x[i]]` → repo path and selector.
fn config_file(v: &str) -> Result<(String, Option<String>), String> {
    let (path, selector) = match v.rsplit_once(':') {
        Some((p, s)) if s.starts_with("override_") || s.starts_with("zip_override_") => {
            (p, Some(s.to_string()))
        }
        _ => (v, None),
    };
    let rel = path
        .strip_prefix("recipes/")
        .ok_or_else(|| format!("CONFIG_FILE `{v}` does not start with recipes/"))?;
    Ok((
        format!("benchmarks/multi_node/srt-slurm-recipes/{rel}"),
        selector,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::input::yaml;

    #[test]
    fn rows_of_each_kind() {
        let doc = yaml::parse(
            "k:\n  image: img\n  model: org/m\n  model-prefix: m\n  runner: cluster:gb300-nv\n  framework: dynamo-sglang\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 2, ep: 2, conc-list: [1, 2], srt-recipe: benchmarks/single_node/x.yaml }\n      - conc-list: [4]\n        worker: { num-worker: 1, additional-settings: [\"CONFIG_FILE=recipes/a/b.yaml:override_c4\", \"SYNTHETIC_ACCEPTANCE=true\"] }\n      - { tp: 8, conc-list: [1] }\n",
        )
        .unwrap();
        let e = entry(&doc, "k", "m.yaml@abc").unwrap().unwrap();
        assert_eq!(e.rows.len(), 3);
        assert!(matches!(
            &e.rows[0].kind,
            RowKind::SingleNode { tp: Some(2), .. }
        ));
        match &e.rows[1].kind {
            RowKind::MultiNode {
                recipe,
                selector,
                settings,
            } => {
                assert_eq!(recipe, "benchmarks/multi_node/srt-slurm-recipes/a/b.yaml");
                assert_eq!(selector.as_deref(), Some("override_c4"));
                assert_eq!(settings, &["SYNTHETIC_ACCEPTANCE=true"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&e.rows[2].kind, RowKind::Bash(b) if b.tp == Some(8)));
        assert!(entry(&doc, "nope", "m").unwrap().is_none());
        let vllm = yaml::parse(
            "k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: r\n  framework: vllm\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 2, conc-list: [1] }\n",
        )
        .unwrap();
        let e = entry(&vllm, "k", "m.yaml@abc").unwrap_err();
        assert!(e.contains("framework `vllm` is not supported"), "{e}");
    }

    #[test]
    fn unknown_row_keys_are_refused_with_the_line() {
        let doc = yaml::parse(
            "k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: r\n  framework: sglang\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 2, conc-list: [1], mystery: 1 }\n",
        )
        .unwrap();
        let e = entry(&doc, "k", "m.yaml@abc").unwrap_err();
        assert!(
            e.contains("search-space[0] (line 10): unknown key `mystery`"),
            "{e}"
        );
    }
}
