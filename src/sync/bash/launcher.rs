//! What InferenceX's launcher hands a bash script for one point
//! (docs/sync-bash-lanes.md, "The point's env"): the master entry's fields,
//! the search-space row's parallelism and KV offloading, the concurrency,
//! fixed workflow inputs, and the DRAM budget behind `--hicache-size`,
//! computed from `runners.yaml` as InferenceX's sweep generator does. Also
//! which script the launcher runs. Uses `sync::*`.

use std::collections::BTreeMap;

use super::super::generate::cells::HARDWARE_ORDER;
use super::super::input::master::{BashRow, MasterEntry};
use super::super::input::yaml::Node;

/// The cap InferenceX puts on a node's DRAM before scaling (3 TB decimal, in MiB).
const MAX_AVAILABLE_DRAM_MIB: u128 = 2_861_022;

/// A fleet's hardware facts (`runners.yaml` `hardware.<runner>`, or the manifest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hardware {
    pub available_dram_mib: Option<u64>,
    pub gpus_per_node: u32,
}

/// The hardware id of a runner label: `cluster:b300-nv` → `b300`.
pub(super) fn hardware_id(runner: &str) -> Result<String, String> {
    let fleet = runner.strip_prefix("cluster:").unwrap_or(runner);
    let hw = fleet
        .split(['-', '_'])
        .next()
        .unwrap_or(fleet)
        .to_ascii_lowercase();
    if HARDWARE_ORDER.contains(&hw.as_str()) {
        Ok(hw)
    } else {
        Err(format!(
            "runner `{runner}`: `{hw}` is not a hardware id the pages know ({})",
            HARDWARE_ORDER.join(", ")
        ))
    }
}

/// The scripts the launcher tries, in order: the framework-tagged name, then
/// the older name without it.
pub(super) fn script_candidates(
    entry: &MasterEntry,
    hw: &str,
    spec: &str,
) -> Result<Vec<String>, String> {
    let precision = entry
        .precision
        .as_deref()
        .ok_or("the master entry has no `precision`; the launcher names the script by it")?;
    let suffix = if spec == "mtp" { "_mtp" } else { "" };
    let base = format!(
        "benchmarks/single_node/agentic/{}_{precision}_{hw}",
        entry.model_prefix
    );
    Ok(vec![
        format!("{base}_{}{suffix}.sh", entry.framework),
        format!("{base}{suffix}.sh"),
    ])
}

/// `hardware.<runner>` of a parsed `runners.yaml`.
pub(super) fn runners_hardware(doc: &Node, runner: &str) -> Option<Result<Hardware, String>> {
    let h = doc.get("hardware")?.get(runner)?;
    let mib = h.get("available-cpu-dram-mib").map(|m| {
        m.as_int()
            .and_then(|i| u64::try_from(i).ok())
            .ok_or_else(|| format!("`available-cpu-dram-mib` (line {}) is not a size", m.line))
    });
    let gpn = h
        .get("gpus-per-node")
        .and_then(|g| g.as_int())
        .and_then(|g| u32::try_from(g).ok())
        .filter(|g| (1..=64).contains(g));
    Some(match (mib.transpose(), gpn) {
        (Ok(available_dram_mib), Some(gpus_per_node)) => Ok(Hardware {
            available_dram_mib,
            gpus_per_node,
        }),
        (Err(e), _) => Err(e),
        (_, None) => Err(format!(
            "`hardware.{runner}` (line {}) has no `gpus-per-node`",
            h.line
        )),
    })
}

/// `TOTAL_CPU_DRAM_GB` for a single-node point: the node's available DRAM
/// (capped at 3 TB), times the scenario's utilization, times the share of
/// the node's GPUs the server uses, in decimal GB, rounded down. Exact
/// integer arithmetic, as InferenceX's `Decimal` computation.
pub(super) fn dram_budget_gb(hw: &Hardware, utilization: &str, gpus: u32) -> Result<u64, String> {
    let mib = hw
        .available_dram_mib
        .ok_or("the runner's `available-cpu-dram-mib` is not known")?;
    if gpus > hw.gpus_per_node {
        return Err(format!(
            "{gpus} GPUs exceed the node's {}",
            hw.gpus_per_node
        ));
    }
    let (num, den) = decimal(utilization)?;
    let bytes_num =
        u128::from(mib).min(MAX_AVAILABLE_DRAM_MIB) * 1024 * 1024 * num * u128::from(gpus);
    let bytes_den = den * u128::from(hw.gpus_per_node) * 1_000_000_000;
    u64::try_from(bytes_num / bytes_den).map_err(|_| "the DRAM budget overflows".to_string())
}

/// `0.80` → (80, 100): a non-negative decimal as an exact fraction.
fn decimal(s: &str) -> Result<(u128, u128), String> {
    let bad = || format!("dram-utilization `{s}` is not a decimal number");
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 12 || int.len() > 6 {
        return Err(bad());
    }
    let digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    if !digits(int) || !digits(frac) {
        return Err(bad());
    }
    let den = 10u128.pow(u32::try_from(frac.len()).map_err(|_| bad())?);
    let num = format!("{int}{frac}").parse::<u128>().map_err(|_| bad())?;
    Ok((num, den))
}

/// What the launcher exports for one point (docs/sync-bash-lanes.md).
pub(super) fn point_env(
    entry: &MasterEntry,
    row: &BashRow,
    spec: &str,
    conc: u32,
    dram_gb: u64,
) -> Result<BTreeMap<&'static str, String>, String> {
    let tp = row.tp.ok_or("the row has no `tp`")?;
    let kv = row
        .kv_offloading
        .clone()
        .ok_or("the row has no `kv-offloading`")?;
    let fixed = [
        ("DURATION", "3600"),
        ("RESULT_DIR", "/workspace/results"),
        ("PORT", "8888"),
        ("EVAL_ONLY", "false"),
        ("RUN_EVAL", "false"),
        ("IS_AGENTIC", "1"),
        ("SCENARIO_TYPE", "agentic-coding"),
        ("ISL", "0"),
        ("OSL", "0"),
        ("MAX_MODEL_LEN", "0"),
        ("PP_SIZE", "1"),
        ("DCP_SIZE", "1"),
        ("PCP_SIZE", "1"),
        ("DISAGG", "false"),
    ];
    let mut env: BTreeMap<&'static str, String> =
        fixed.iter().map(|(k, v)| (*k, (*v).to_string())).collect();
    env.insert("MODEL", entry.model.clone());
    env.insert("MODEL_PREFIX", entry.model_prefix.clone());
    env.insert("PRECISION", entry.precision.clone().unwrap_or_default());
    env.insert("FRAMEWORK", entry.framework.clone());
    env.insert("IMAGE", entry.image.clone());
    env.insert("TP", tp.to_string());
    env.insert("EP_SIZE", row.ep.unwrap_or(1).to_string());
    env.insert("DP_ATTENTION", row.dp_attn.unwrap_or(false).to_string());
    env.insert("CONC", conc.to_string());
    env.insert("SPEC_DECODING", spec.to_string());
    env.insert(
        "KV_OFFLOAD_BACKEND",
        row.kv_backend.clone().unwrap_or_default(),
    );
    env.insert("KV_OFFLOADING", kv);
    env.insert("TOTAL_CPU_DRAM_GB", dram_gb.to_string());
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dram_budgets_match_inferencex() {
        let b300 = Hardware {
            available_dram_mib: Some(2_964_436),
            gpus_per_node: 8,
        };
        let h100 = Hardware {
            available_dram_mib: Some(2_063_837),
            gpus_per_node: 8,
        };
        let b200 = Hardware {
            available_dram_mib: Some(2_063_920),
            gpus_per_node: 8,
        };
        // B300's DRAM is above the 3 TB cap: 2,861,022 MiB × 0.8 × 2/8 = 599.9998 GB.
        assert_eq!(dram_budget_gb(&b300, "0.8", 2).unwrap(), 599);
        assert_eq!(dram_budget_gb(&h100, "0.8", 8).unwrap(), 1731);
        assert_eq!(dram_budget_gb(&b200, "0.80", 2).unwrap(), 432);
        assert!(dram_budget_gb(&h100, "0.8", 16).is_err());
        assert!(dram_budget_gb(&h100, "eighty", 8).is_err());
        assert!(
            dram_budget_gb(
                &Hardware {
                    available_dram_mib: None,
                    gpus_per_node: 8
                },
                "0.8",
                8
            )
            .is_err()
        );
    }

    #[test]
    fn hardware_ids() {
        assert_eq!(hardware_id("cluster:b300-nv").unwrap(), "b300");
        assert_eq!(hardware_id("cluster:h100-dgxc").unwrap(), "h100");
        assert_eq!(hardware_id("b200-nscale").unwrap(), "b200");
        assert!(hardware_id("cluster:mi355x-amds").is_err());
    }
}
