//! Block edits: a `ref`/`from` base with keys dropped and set, and diffs of
//! args and env; worker flags in their fixed order.

use anyhow::Result;
use serde_json::Value;

use crate::data::{Arg, Block, BlockEdit, BlockKind, Diff};

/// Worker flags that always lead, in this order; the rest follow alphabetically.
pub(crate) const LEAD_FLAGS: [&str; 11] = [
    "--model-path",
    "--served-model-name",
    "--host",
    "--port",
    "--disaggregation-mode",
    "--disaggregation-bootstrap-port",
    "--dist-init-addr",
    "--nnodes",
    "--node-rank",
    "--request-plane",
    "--kv-events-config",
];

/// Copies a base block, deletes `drop` keys, sets overrides, then applies the diff.
pub(super) fn apply_edit(base: &Block, edit: &BlockEdit) -> Result<Block> {
    let mut b = if edit.drop.is_empty() && edit.overrides.is_empty() {
        base.clone()
    } else {
        let Value::Object(mut map) = serde_json::to_value(base)? else {
            unreachable!("a block serializes to an object");
        };
        for k in &edit.drop {
            map.remove(k);
        }
        for (k, v) in &edit.overrides {
            map.insert(k.clone(), v.clone());
        }
        serde_path_to_error::deserialize::<_, Block>(Value::Object(map)).map_err(|e| {
            let at = format!("after drop/overrides: {}", e.path());
            anyhow::Error::new(e.into_inner()).context(at)
        })?
    };
    if let Some(d) = &edit.diff {
        apply_diff(&mut b, d);
    }
    Ok(b)
}

/// Applies one diff: `block` replaces, `args`/`env` set or (with null) delete.
pub(crate) fn apply_diff(block: &mut Block, diff: &Diff) {
    if let Some(b) = &diff.block {
        *block = (**b).clone();
    }
    for (flag, values) in &diff.args {
        match values {
            None => block.args.retain(|a| &a.flag != flag),
            Some(vals) => match block.args.iter_mut().find(|a| &a.flag == flag) {
                Some(a) => a.values = vals.clone(),
                None => block.args.push(Arg {
                    flag: flag.clone(),
                    values: vals.clone(),
                }),
            },
        }
    }
    if block.kind == BlockKind::Worker {
        sort_worker_args(&mut block.args);
    }
    for (k, v) in &diff.env {
        match v {
            None => {
                block.env.remove(k);
            }
            Some(v) => {
                block.env.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Lead flags in their fixed order, then the rest alphabetically (stable).
pub(crate) fn sort_worker_args(args: &mut [Arg]) {
    args.sort_by(|a, b| worker_arg_key(&a.flag).cmp(&worker_arg_key(&b.flag)));
}

fn worker_arg_key(flag: &str) -> (usize, &str) {
    match LEAD_FLAGS.iter().position(|f| *f == flag) {
        Some(i) => (i, ""),
        None => (LEAD_FLAGS.len(), flag),
    }
}
