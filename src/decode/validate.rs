//! A cell's own consistency, checked before it is decoded.

use anyhow::{Result, bail};

use super::decoder::router_list;
use crate::data::{AgentxData, KvTier};

/// Checks a cell's own consistency before decoding it.
pub(super) fn validate_cell(data: &AgentxData, ci: usize) -> Result<()> {
    let cell = &data.cells[ci];
    let at = |rest: &str| format!("cells[{ci}]{rest}");
    if cell.points.is_empty() {
        bail!("{}: no points; expected at least one", at(".points"));
    }
    if !cell.routers.contains_key(&cell.submitted) {
        bail!(
            "{}: submitted router `{}` is not among the cell's routers ({})",
            at(".submitted"),
            cell.submitted,
            router_list(cell)
        );
    }
    if cell.kv.available.is_empty() {
        bail!(
            "{}: no available tier; expected at least the measured one",
            at(".kv.available")
        );
    }
    for (pi, p) in cell.points.iter().enumerate() {
        if !cell.kv.available.contains(&p.kv) {
            bail!(
                "{}: measured tier `{}` is not in kv.available ({})",
                at(&format!(".points[{pi}].kv")),
                p.kv,
                tier_list(&cell.kv.available)
            );
        }
        if p.concs.is_empty() {
            bail!(
                "{}: empty; expected one or more concurrencies",
                at(&format!(".points[{pi}].concs"))
            );
        }
    }
    if cell.kv.available.contains(&KvTier::Hicache) && cell.kv.hicache.is_none() {
        let measured_hicache = cell.points.iter().all(|p| p.kv == KvTier::Hicache);
        if !measured_hicache {
            bail!(
                "{}: `hicache` is available but the cell gives no kv.hicache settings to derive it from",
                at(".kv")
            );
        }
    }
    if cell.kv.available.contains(&KvTier::Mooncake) {
        let measured_mooncake = cell.points.iter().all(|p| p.kv == KvTier::Mooncake);
        if !measured_mooncake {
            let Some(km) = &data.kv_mooncake else {
                bail!(
                    "{}: `mooncake` is available but the file has no top-level kvMooncake to derive it from",
                    at(".kv.available")
                );
            };
            for r in cell.routers.keys() {
                if !km.master.contains_key(r) {
                    bail!(
                        "kvMooncake.master: no `{r}` block, needed by {} for the derived Mooncake tier",
                        at("")
                    );
                }
            }
        }
    }
    Ok(())
}

fn tier_list(t: &[KvTier]) -> String {
    t.iter().map(|t| t.id()).collect::<Vec<_>>().join(", ")
}
