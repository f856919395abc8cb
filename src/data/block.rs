//! Process blocks as stored: in full, or encoded against another block
//! (`ref`/`from` with drops, overrides and a diff), and a point's patches.

use std::fmt;

use anyhow::Result;
use indexmap::IndexMap;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::ids::{BlockKind, Role, Router};
use super::schema::Env;
use super::validate::{CheckedEnv, check_flag_name, env_keys, env_names, flag_keys};

/// One command-line argument: a flag and zero or more values
/// (`["--port", "30000"]`, `["--trust-remote-code"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The option (`--tp-size`).
    pub flag: String,
    /// Its values, none for a switch.
    pub values: Vec<String>,
}

impl Arg {
    /// An argument from a flag and its values.
    pub fn new(flag: &str, values: &[&str]) -> Arg {
        Arg {
            flag: flag.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Arg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Arg, D::Error> {
        struct ArgVisitor;
        impl<'de> Visitor<'de> for ArgVisitor {
            type Value = Arg;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an argument array [flag, value…] of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Arg, A::Error> {
                let flag: String = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                check_flag_name(&flag).map_err(de::Error::custom)?;
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<String>()? {
                    values.push(v);
                }
                Ok(Arg { flag, values })
            }
        }
        d.deserialize_seq(ArgVisitor)
    }
}

impl Serialize for Arg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(1 + self.values.len()))?;
        seq.serialize_element(&self.flag)?;
        for v in &self.values {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

/// A fully materialized process block.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Block {
    pub kind: BlockKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// Worker processes of this role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes_per_worker: Option<u32>,
    /// GPUs per worker when workers share nodes: `[["0,1"], ["2,3"]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_pinning: Option<Vec<Vec<String>>>,
    /// Number of instances (frontends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_nodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<String>>,
    /// Shell lines run before the command (`ulimit -n 1048576`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preamble: Vec<String>,
    pub cmd: String,
    #[serde(
        default,
        skip_serializing_if = "Env::is_empty",
        deserialize_with = "env_names"
    )]
    pub env: Env,
    /// Index into the file's `envs`; replaces `env` when the block is materialized.
    #[serde(default, rename = "envRef", skip_serializing_if = "Option::is_none")]
    pub env_ref: Option<usize>,
    #[serde(default)]
    pub args: Vec<Arg>,
}

impl Block {
    /// A block of `kind` running `cmd`, with nothing else set (`sync` builds
    /// blocks this way, and tests by hand).
    pub(crate) fn new(kind: BlockKind, cmd: &str) -> Block {
        Block {
            kind,
            role: None,
            workers: None,
            nodes_per_worker: None,
            gpu_pinning: None,
            count: None,
            count_nodes: None,
            ports: None,
            preamble: Vec::new(),
            cmd: cmd.to_string(),
            env: Env::new(),
            env_ref: None,
            args: Vec::new(),
        }
    }
}

/// A block as stored: in full, or encoded against another block.
#[derive(Debug, Clone)]
pub(crate) enum EncodedBlock {
    Full(Box<Block>),
    /// `{ref: [cellIdx, router, blockIdx], …}`: another cell's materialized block.
    Ref {
        cell: usize,
        router: Router,
        block: usize,
        edit: BlockEdit,
    },
    /// `{from: blockIdx, …}`: a block of this cell's submitted router.
    From {
        block: usize,
        edit: BlockEdit,
    },
}

/// How an encoded block changes its base: delete keys, set keys, then diff.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockEdit {
    pub drop: Vec<String>,
    /// Top-level keys that replace the base's (`cmd`, `workers`, `gpu_pinning`, …).
    pub overrides: Map<String, Value>,
    pub diff: Option<Diff>,
}

impl<'de> Deserialize<'de> for EncodedBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<EncodedBlock, D::Error> {
        let mut map = Map::deserialize(d)?;
        if let Some(r) = map.remove("ref") {
            let (cell, router, block) =
                from_value_at::<(usize, Router, usize)>(r, "ref").map_err(|e| {
                    de::Error::custom(format!("{e} (expected [cellIndex, router, blockIndex])"))
                })?;
            let edit = block_edit(map).map_err(de::Error::custom)?;
            Ok(EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            })
        } else if let Some(f) = map.remove("from") {
            let block = from_value_at::<usize>(f, "from").map_err(de::Error::custom)?;
            let edit = block_edit(map).map_err(de::Error::custom)?;
            Ok(EncodedBlock::From { block, edit })
        } else {
            from_value_at::<Block>(Value::Object(map), "")
                .map(|b| EncodedBlock::Full(Box::new(b)))
                .map_err(de::Error::custom)
        }
    }
}

/// What remains of an encoded block after `ref`/`from`: drop, diff, overrides.
/// Overridden `env` and `args` are checked here, at load, like a full block's.
fn block_edit(mut map: Map<String, Value>) -> Result<BlockEdit, String> {
    if let Some(env) = map.get("env") {
        from_value_at::<CheckedEnv>(env.clone(), "env")?;
    }
    if let Some(args) = map.get("args") {
        from_value_at::<Vec<Arg>>(args.clone(), "args")?;
    }
    let drop = match map.remove("drop") {
        Some(v) => from_value_at::<Vec<String>>(v, "drop")?,
        None => Vec::new(),
    };
    let diff = match map.remove("diff") {
        Some(v) => Some(from_value_at::<Diff>(v, "diff")?),
        None => None,
    };
    Ok(BlockEdit {
        drop,
        overrides: map,
        diff,
    })
}

/// Deserializes a nested value and names the path inside it on failure.
fn from_value_at<T: de::DeserializeOwned>(v: Value, key: &str) -> Result<T, String> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let inner = e.path().to_string();
        let path = match (key.is_empty(), inner == ".") {
            (true, true) => String::new(),
            (true, false) => inner,
            (false, true) => key.to_string(),
            (false, false) => format!("{key}.{inner}"),
        };
        if path.is_empty() {
            e.into_inner().to_string()
        } else {
            format!("{path}: {}", e.into_inner())
        }
    })
}

/// Changes to one block. `null` values delete.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct Diff {
    /// Replaces the whole block.
    #[serde(default)]
    pub block: Option<Box<Block>>,
    /// `flag → null` removes, `flag → [vals]` sets (`[]` = bare switch); new flags append.
    #[serde(default, deserialize_with = "flag_keys")]
    pub args: IndexMap<String, Option<Vec<String>>>,
    #[serde(default, deserialize_with = "env_keys")]
    pub env: IndexMap<String, Option<String>>,
}

/// A point's change to one router's blocks.
#[derive(Debug, Clone)]
pub(crate) enum Patch {
    /// `{replace: [blocks]}`: a whole new block list.
    Replace(Vec<EncodedBlock>),
    /// One diff (or `null`) per block of point 0.
    PerBlock(Vec<Option<Diff>>),
}

impl<'de> Deserialize<'de> for Patch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Patch, D::Error> {
        struct PatchVisitor;
        impl<'de> Visitor<'de> for PatchVisitor {
            type Value = Patch;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null, {\"replace\": [blocks]} or a list of per-block diffs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Patch, A::Error> {
                let mut diffs = Vec::new();
                while let Some(d) = seq.next_element::<Option<Diff>>()? {
                    diffs.push(d);
                }
                Ok(Patch::PerBlock(diffs))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Patch, A::Error> {
                let mut replace = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "replace" {
                        replace = Some(map.next_value::<Vec<EncodedBlock>>()?);
                    } else {
                        return Err(de::Error::unknown_field(&key, &["replace"]));
                    }
                }
                replace
                    .map(Patch::Replace)
                    .ok_or_else(|| de::Error::missing_field("replace"))
            }
        }
        d.deserialize_any(PatchVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_requires_a_flag() {
        let e = serde_json::from_str::<Arg>("[]").unwrap_err().to_string();
        assert!(e.contains("invalid length 0"), "{e}");
        for bad in ["", "-x", "--", "--a b", "--x;rm", "tp"] {
            let e = serde_json::from_str::<Arg>(&format!("[{bad:?}]")).unwrap_err();
            assert!(e.to_string().contains("is not a flag name"), "{bad}: {e}");
        }
        let a: Arg = serde_json::from_str(r#"["--tp", "4"]"#).unwrap();
        assert_eq!(a, Arg::new("--tp", &["4"]));
    }

    #[test]
    fn encoded_block_forms() {
        let b: EncodedBlock =
            serde_json::from_str(r#"{"ref": [2, "sglang", 0], "workers": 1, "drop": ["gpu_pinning"], "diff": {"args": {"--tp": ["4"]}}}"#)
                .unwrap();
        match b {
            EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            } => {
                assert_eq!((cell, router, block), (2, Router::Sglang, 0));
                assert_eq!(edit.drop, vec!["gpu_pinning"]);
                assert_eq!(edit.overrides.get("workers"), Some(&Value::from(1)));
                assert!(edit.diff.is_some());
            }
            other => panic!("{other:?}"),
        }
        let e = serde_json::from_str::<EncodedBlock>(r#"{"ref": [2, "vllm", 0]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `vllm`"), "{e}");
        let e =
            serde_json::from_str::<EncodedBlock>(r#"{"kind": "worker", "cmd": "x", "argz": []}"#)
                .unwrap_err()
                .to_string();
        assert!(e.contains("unknown field `argz`"), "{e}");
    }
}
