//! srt-slurm recipe variants: `base` + `override_<x>` / `zip_override_<x>`,
//! resolved with srt-slurm's deep-merge (dicts merge, lists and scalars are
//! replaced, `null` deletes; a top-level `schema` is copied into each variant;
//! zip groups slice list leaves by index, length-1 lists broadcast), and the
//! binding of single-node rows to their variant. Uses `sync::yaml`.

pub(in crate::sync) mod v1;

use super::yaml::{Node, Value};

/// One resolved variant.
#[derive(Debug, Clone)]
pub(in crate::sync) struct Variant {
    /// `override_tp2_c1`, `zip_override_x[3]`, or `None` for a flat recipe.
    pub name: Option<String>,
    pub node: Node,
}

impl Variant {
    pub(in crate::sync) fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("(flat recipe)")
    }
}

/// `deep_merge(base, override)` exactly as srt-slurm's `core/config.py`.
pub(in crate::sync) fn deep_merge(base: &Node, over: &Node) -> Node {
    let (Value::Map(b), Value::Map(o)) = (&base.value, &over.value) else {
        return over.clone();
    };
    let mut out = b.clone();
    for (k, v) in o {
        let pos = out.iter().position(|(ek, _)| ek == k);
        if v.is_null() {
            if let Some(i) = pos {
                out.remove(i);
            }
            continue;
        }
        match pos {
            Some(i)
                if matches!(out[i].1.value, Value::Map(_)) && matches!(v.value, Value::Map(_)) =>
            {
                out[i].1 = deep_merge(&out[i].1, v);
            }
            Some(i) => out[i].1 = v.clone(),
            None => out.push((k.clone(), v.clone())),
        }
    }
    Node::new(Value::Map(out), base.line)
}

/// Whether the recipe is in `base` + overrides form.
pub(in crate::sync) fn is_override_form(doc: &Node) -> bool {
    doc.get("base").is_some()
}

/// Every variant of a recipe, in srt-slurm's order (overrides sorted by name,
/// then zip groups). A flat recipe is its own single variant.
pub(in crate::sync) fn variants(doc: &Node) -> Result<Vec<Variant>, String> {
    if !is_override_form(doc) {
        return Ok(vec![Variant {
            name: None,
            node: doc.clone(),
        }]);
    }
    let map = doc.as_map().ok_or("the recipe is not a mapping")?;
    let mut names: Vec<&String> = map
        .iter()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("override_"))
        .collect();
    names.sort();
    let mut zips: Vec<&String> = map
        .iter()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("zip_override_"))
        .collect();
    zips.sort();
    let mut out = Vec::new();
    for n in names {
        out.push(select(doc, n)?);
    }
    for z in zips {
        let n = zip_len(doc.get(z).unwrap_or(doc)).map_err(|e| format!("{z}: {e}"))?;
        for i in 0..n {
            out.push(select(doc, &format!("{z}[{i}]"))?);
        }
    }
    Ok(out)
}

/// The variant a selector names (`override_x`, `zip_override_x[i]`), or the
/// flat recipe itself when `selector` is `None`.
pub(in crate::sync) fn select(doc: &Node, selector: &str) -> Result<Variant, String> {
    let base = doc
        .get("base")
        .ok_or_else(|| format!("selector `{selector}` given, but the recipe has no `base`"))?;
    let merged = if let Some(rest) = selector.strip_prefix("zip_override_") {
        let (group, index) = parse_zip(rest).ok_or_else(|| {
            format!("`{selector}`: a zip selector needs an index, `zip_override_<name>[i]`")
        })?;
        let key = format!("zip_override_{group}");
        let zip = doc.get(&key).ok_or_else(|| missing(doc, selector))?;
        let n = zip_len(zip).map_err(|e| format!("{key}: {e}"))?;
        if index >= n {
            return Err(format!("`{selector}`: the zip group has {n} variants"));
        }
        deep_merge(base, &zip_slice(zip, index))
    } else {
        let over = doc.get(selector).ok_or_else(|| missing(doc, selector))?;
        deep_merge(base, over)
    };
    let mut merged = merged;
    if let (Some(schema), Value::Map(entries)) = (doc.get("schema"), &mut merged.value)
        && !entries.iter().any(|(k, _)| k == "schema")
    {
        entries.insert(0, ("schema".to_string(), schema.clone()));
    }
    Ok(Variant {
        name: Some(selector.to_string()),
        node: merged,
    })
}

fn missing(doc: &Node, selector: &str) -> String {
    let names: Vec<&str> = doc
        .as_map()
        .unwrap_or(&[])
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| k.starts_with("override_") || k.starts_with("zip_override_"))
        .collect();
    format!(
        "the recipe has no variant `{selector}` (it has: {})",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    )
}

fn parse_zip(rest: &str) -> Option<(&str, usize)> {
    let open = rest.find('[')?;
    let index = rest[open + 1..].strip_suffix(']')?.parse().ok()?;
    Some((&rest[..open], index))
}

fn list_lengths(node: &Node, out: &mut Vec<usize>) {
    if let Value::Map(entries) = &node.value {
        for (_, v) in entries {
            match &v.value {
                Value::Seq(items) => out.push(items.len()),
                Value::Map(_) => list_lengths(v, out),
                _ => {}
            }
        }
    }
}

/// N of a zip group: every list leaf has length N or 1.
fn zip_len(zip: &Node) -> Result<usize, String> {
    let mut lengths = Vec::new();
    list_lengths(zip, &mut lengths);
    if lengths.is_empty() {
        return Err("no list values: nothing to zip".into());
    }
    if lengths.contains(&0) {
        return Err("an empty list cannot be zipped".into());
    }
    let mut others: Vec<usize> = lengths.into_iter().filter(|n| *n != 1).collect();
    others.dedup();
    others.sort_unstable();
    others.dedup();
    match others.as_slice() {
        [] => Ok(1),
        [n] => Ok(*n),
        many => Err(format!("incompatible zip lengths {many:?}")),
    }
}

fn zip_slice(node: &Node, index: usize) -> Node {
    let Value::Map(entries) = &node.value else {
        return node.clone();
    };
    let sliced = entries
        .iter()
        .map(|(k, v)| {
            let v = match &v.value {
                Value::Seq(items) if items.len() == 1 => items[0].clone(),
                Value::Seq(items) => items[index].clone(),
                Value::Map(_) => zip_slice(v, index),
                _ => v.clone(),
            };
            (k.clone(), v)
        })
        .collect();
    Node::new(Value::Map(sliced), node.line)
}

/// A worker argument of a role, by any of its spellings.
pub(in crate::sync) fn role_arg<'a>(
    variant: &'a Node,
    role: &str,
    names: &[&str],
) -> Option<&'a Node> {
    let args = variant.get("roles")?.get(role)?.get("args")?;
    names.iter().find_map(|n| args.get(n))
}

pub(in crate::sync) const TP_NAMES: &[&str] = &["tensor-parallel-size", "tp-size", "tp"];
pub(in crate::sync) const EP_NAMES: &[&str] = &["expert-parallel-size", "ep-size", "ep"];

/// The single-node binding: the variant whose `benchmark.env.CONC` is `conc`,
/// whose agg tensor/expert parallel sizes are the row's `tp`/`ep` (a size the
/// variant leaves unset counts as 1, and so does a row without `ep`), and
/// whose DP attention is the row's `dp-attn`; a variant that names its KV
/// offload (`benchmark.env.KV_OFFLOADING`) must name the row's
/// `kv-offloading` (docs/sync.md, "Points").
pub(in crate::sync) fn bind_single_node(
    all: &[Variant],
    conc: u32,
    (tp, ep, dp_attn): (Option<i64>, Option<i64>, bool),
    kv_offloading: Option<&str>,
) -> Result<Variant, String> {
    let ep = Some(ep.unwrap_or(1));
    if let [only] = all
        && only.name.is_none()
    {
        return Ok(only.clone());
    }
    let size = |v: &Variant, names: &[&str]| {
        role_arg(&v.node, "agg", names)
            .and_then(|n| n.as_int())
            .unwrap_or(1)
    };
    let matches: Vec<&Variant> = all
        .iter()
        .filter(|v| {
            let c = v
                .node
                .get("benchmark")
                .and_then(|b| b.get("env"))
                .and_then(|e| e.get("CONC"))
                .and_then(|c| c.python_str());
            let dp = role_arg(&v.node, "agg", &["enable-dp-attention"])
                .and_then(|n| n.as_bool())
                .unwrap_or(false);
            // A variant that names its KV offload must name the row's.
            let kv = v
                .node
                .get("benchmark")
                .and_then(|b| b.get("env"))
                .and_then(|e| e.get("KV_OFFLOADING"))
                .and_then(|k| k.python_str());
            c.as_deref() == Some(conc.to_string().as_str())
                && tp.is_none_or(|t| size(v, TP_NAMES) == t)
                && ep.is_none_or(|e| size(v, EP_NAMES) == e)
                && dp == dp_attn
                && kv.is_none_or(|k| kv_offloading.is_none_or(|r| r == k))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!(
            "no variant has benchmark.env.CONC = {conc} with tp {}, ep {} and dp-attn {dp_attn}",
            tp.map_or("-".into(), |t| t.to_string()),
            ep.map_or("-".into(), |e| e.to_string())
        )),
        many => Err(format!(
            "several variants fit conc {conc}: {}",
            many.iter()
                .map(|v| v.label())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::input::yaml;

    #[test]
    fn deep_merge_follows_srt_slurm() {
        let base = yaml::parse("a: {x: 1, y: [1, 2], z: 3}\nb: 1\n").unwrap();
        let over = yaml::parse("a: {y: [9], z: null, w: 4}\nc: 2\n").unwrap();
        let m = deep_merge(&base, &over);
        let a = m.get("a").unwrap();
        assert_eq!(a.get("x").unwrap().as_int(), Some(1));
        assert_eq!(
            a.get("y").unwrap().as_seq().unwrap().len(),
            1,
            "lists are replaced"
        );
        assert!(a.get("z").is_none(), "null deletes");
        let keys: Vec<&str> = a
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(
            keys,
            ["x", "y", "w"],
            "order: base keys first, new keys appended"
        );
        assert_eq!(m.get("c").unwrap().as_int(), Some(2));
    }

    #[test]
    fn selectors_zip_groups_and_schema() {
        let doc = yaml::parse(
            "schema: 2\nbase: {roles: {agg: {args: {tp: 1}}}}\noverride_b: {roles: {agg: {args: {tp: 2}}}}\noverride_a: {x: 1}\nzip_override_z:\n  roles: {agg: {args: {tp: [4, 8], ep: [1]}}}\n",
        )
        .unwrap();
        let all = variants(&doc).unwrap();
        let names: Vec<&str> = all.iter().map(|v| v.label()).collect();
        assert_eq!(
            names,
            [
                "override_a",
                "override_b",
                "zip_override_z[0]",
                "zip_override_z[1]"
            ]
        );
        let z1 = select(&doc, "zip_override_z[1]").unwrap();
        assert_eq!(
            role_arg(&z1.node, "agg", TP_NAMES).unwrap().as_int(),
            Some(8)
        );
        assert_eq!(
            role_arg(&z1.node, "agg", EP_NAMES).unwrap().as_int(),
            Some(1)
        );
        assert_eq!(z1.node.get("schema").unwrap().as_int(), Some(2));
        assert!(
            select(&doc, "override_c")
                .unwrap_err()
                .contains("it has: override_b, override_a")
        );
        assert!(
            select(&doc, "zip_override_z[2]")
                .unwrap_err()
                .contains("2 variants")
        );
    }

    #[test]
    fn single_node_binding_by_conc_and_parallelism() {
        let doc = yaml::parse(
            "base: {roles: {agg: {args: {x: 1}}}}\noverride_tp2_c1: {roles: {agg: {args: {tensor-parallel-size: 2}}}, benchmark: {env: {CONC: '1'}}}\noverride_tp4_c1: {roles: {agg: {args: {tensor-parallel-size: 4}}}, benchmark: {env: {CONC: '1'}}}\n",
        )
        .unwrap();
        let all = variants(&doc).unwrap();
        let v = bind_single_node(&all, 1, (Some(4), None, false), None).unwrap();
        assert_eq!(v.label(), "override_tp4_c1");
        assert!(
            bind_single_node(&all, 1, (None, None, false), None)
                .unwrap_err()
                .contains("several")
        );
        assert!(
            bind_single_node(&all, 2, (Some(2), None, false), None)
                .unwrap_err()
                .contains("CONC = 2")
        );
        // A row without `ep` means EP 1, and DP attention must agree: the
        // DSV4 B300 recipe's TP8 and DEP8 variants share conc 32.
        let dep = yaml::parse(
            "base: {roles: {agg: {args: {tensor-parallel-size: 8}}}}\noverride_tp8_c32: {benchmark: {env: {CONC: '32'}}}\noverride_dep8_c32: {roles: {agg: {args: {expert-parallel-size: 8, enable-dp-attention: true}}}, benchmark: {env: {CONC: '32'}}}\n",
        )
        .unwrap();
        let all = variants(&dep).unwrap();
        let pick = |ep, dp| bind_single_node(&all, 32, (Some(8), ep, dp), None).unwrap();
        assert_eq!(pick(None, false).label(), "override_tp8_c32");
        assert_eq!(pick(Some(8), true).label(), "override_dep8_c32");
    }
}
