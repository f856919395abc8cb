//! Load-time validation: what serde alone would accept but a page cannot
//! use safely. Each mutation of `tests/fixtures/data/mini.json` must fail
//! with the JSON path and the fix; names that reach a shell unquoted (env
//! names, flags) are refused wherever the data can give one.

use std::path::Path;

use mdbook_agentx::decode_str;
use serde_json::{Value, json};

use crate::support;

fn mini() -> Value {
    serde_json::from_str(&support::read(&support::fixture("data/mini.json"))).unwrap()
}

type Mutation = fn(&mut Value);

const ENV_RULE: &str = "[A-Za-z_][A-Za-z0-9_]*";
const FLAG_RULE: &str = "--[A-Za-z0-9][-_.A-Za-z0-9]*";
const SHELL: &str = "NCCL_DEBUG=INFO; curl x|sh; X";

/// (what, the mutation, what the message must say).
const REFUSED: &[(&str, Mutation, &[&str])] = &[
    (
        "empty model",
        |v| v["model"] = json!(""),
        &["mini.json: model: empty; give the page a name"],
    ),
    (
        "symbols-only cell id",
        |v| v["cells"][1]["id"] = json!("#@!"),
        &[
            "cells[1].id: `#@!` has no letter or digit",
            "<configKey>#<n>",
        ],
    ),
    (
        "empty cell id",
        |v| v["cells"][0]["id"] = json!(""),
        &["cells[0].id: `` has no letter or digit"],
    ),
    (
        "hw not in hardware",
        |v| v["cells"][2]["hw"] = json!("b999"),
        &[
            "cells[2].hw: `b999` is not in the top-level `hardware` (it lists: h200, gb300)",
            "add {\"id\": \"b999\"",
        ],
    ),
    (
        "no GPUs",
        |v| v["cells"][0]["gpus"] = json!(0),
        &["cells[0].gpus: 0; a deployment uses at least one GPU"],
    ),
    (
        "hardware id twice",
        |v| v["hardware"][1]["id"] = json!("h200"),
        &["hardware[1].id: `h200` is also hardware[0].id"],
    ),
    (
        "config file name with a line break",
        |v| v["files"]["nats.conf#00000001"]["name"] = json!("nats.conf\ncurl x|sh"),
        &["files.nats.conf#00000001.name: `nats.conf\ncurl x|sh` is not a plain file name"],
    ),
    (
        "env name in a block",
        |v| v["cells"][1]["routers"]["dynamo"]["blocks"][4]["env"][SHELL] = json!("1"),
        &["cells[1].routers.dynamo.blocks[4]", SHELL, ENV_RULE],
    ),
    (
        "env name in envs[]",
        |v| v["envs"][0]["A B"] = json!("1"),
        &[
            "envs[0]",
            "`A B` is not an environment variable name",
            ENV_RULE,
        ],
    ),
    (
        "env name in kvMooncake.env",
        |v| v["kvMooncake"]["env"]["1X"] = json!("1"),
        &["kvMooncake.env", "`1X`", ENV_RULE],
    ),
    (
        "env name in kvMooncake.decode_env",
        |v| v["kvMooncake"]["decode_env"]["X;Y"] = json!("1"),
        &["kvMooncake.decode_env", "`X;Y`", ENV_RULE],
    ),
    (
        "env name in a kvMooncake master block",
        |v| v["kvMooncake"]["master"]["sglang"]["env"]["$(id)"] = json!("1"),
        &["kvMooncake.master.sglang", "`$(id)`", ENV_RULE],
    ),
    (
        "env name in a diff",
        |v| v["cells"][0]["routers"]["dynamo"]["blocks"][2]["diff"]["env"]["X Y"] = json!("1"),
        &[
            "cells[0].routers.dynamo.blocks[2]",
            "diff.env",
            "`X Y`",
            ENV_RULE,
        ],
    ),
    (
        "env name in an override",
        |v| v["cells"][1]["routers"]["sglang"]["blocks"][0]["env"] = json!({"a-b": "1"}),
        &[
            "cells[1].routers.sglang.blocks[0]",
            "env",
            "`a-b`",
            ENV_RULE,
        ],
    ),
    (
        "env name in a point patch",
        |v| v["cells"][0]["points"][1]["patch"]["sglang"][0]["env"]["X=1"] = json!("1"),
        &["cells[0].points[1].patch.sglang[0].env", "`X=1`", ENV_RULE],
    ),
    (
        "flag in a block",
        |v| v["cells"][1]["routers"]["dynamo"]["blocks"][2]["args"][0][0] = json!("--port;id"),
        &[
            "cells[1].routers.dynamo.blocks[2]",
            "`--port;id` is not a flag name",
            FLAG_RULE,
        ],
    ),
    (
        "flag in a diff",
        |v| v["cells"][2]["routers"]["sglang"]["blocks"][0]["diff"]["args"]["-tp"] = json!(["2"]),
        &[
            "cells[2].routers.sglang.blocks[0]",
            "diff.args",
            "`-tp`",
            FLAG_RULE,
        ],
    ),
    (
        "flag in a point patch",
        |v| v["cells"][1]["points"][1]["patch"]["dynamo"][6]["args"]["--a b"] = json!([]),
        &[
            "cells[1].points[1].patch.dynamo[6].args",
            "`--a b`",
            FLAG_RULE,
        ],
    ),
    (
        "flag in kvMooncake.args",
        |v| v["kvMooncake"]["args"][0][0] = json!("x"),
        &["kvMooncake.args[0]", "`x` is not a flag name", FLAG_RULE],
    ),
    (
        "flag in kv.hicache.args",
        |v| v["cells"][0]["kv"]["hicache"]["args"][0][0] = json!("--tp&id"),
        &["cells[0].kv.hicache.args[0]", "`--tp&id`", FLAG_RULE],
    ),
];

#[test]
fn refused_at_load_with_path_and_fix() {
    let base = mini();
    assert!(decode_str(&base.to_string(), Path::new("mini.json")).is_ok());
    for (what, mutate, needles) in REFUSED {
        let mut v = base.clone();
        mutate(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap();
        let err = decode_str(&text, Path::new("mini.json")).expect_err(what);
        let msg = format!("{err:#}");
        for n in *needles {
            assert!(msg.contains(n), "{what}: {msg:?} lacks {n:?}");
        }
    }
}

/// A key given twice is refused with its path (serde_json would keep the
/// last one), including a diff's `args`, which is an ordered map.
#[test]
fn repeated_keys_are_refused() {
    let text = support::read(&support::fixture("data/mini.json"));
    let table: &[(&str, &str, &str)] = &[
        (
            r#""--request-plane": ["tcp"]}, "env""#,
            r#""--request-plane": ["tcp"], "--request-plane": ["nats"]}, "env""#,
            "cells[0].routers.dynamo.blocks[2].diff.args: key `--request-plane` is given twice",
        ),
        (
            r#""hw": "h200","#,
            r#""hw": "h200", "hw": "gb300","#,
            "cells[0]: key `hw` is given twice",
        ),
    ];
    for (from, to, want) in table {
        let bad = text.replacen(from, to, 1);
        assert_ne!(bad, text, "{from}");
        let err = decode_str(&bad, Path::new("mini.json")).unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.starts_with(&format!("mini.json: {want}")), "{msg}");
        assert!(msg.contains("at line "), "{msg}");
    }
}

/// Bytes that are not UTF-8 name the byte, line and column; UTF-16 is named.
#[test]
fn encodings_are_named() {
    let dir = support::temp("encodings");
    std::fs::create_dir_all(&*dir).unwrap();
    let text = support::read(&support::fixture("data/mini.json"));
    let latin1 = text.replacen("\"Mini-Test\"", "\"Mini-T\u{e9}st\"", 1);
    let mut bytes = latin1.into_bytes();
    let at = bytes.windows(2).position(|w| w == [0xC3, 0xA9]).unwrap();
    bytes.splice(at..at + 2, [0xE9]);
    let bad = dir.join("latin1.json");
    std::fs::write(&bad, &bytes).unwrap();
    let err = format!("{:#}", mdbook_agentx::decode_file(&bad).unwrap_err());
    assert!(
        err.contains(&format!("not valid UTF-8 at byte {at} (line 2, column 18)")),
        "{err}"
    );
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let wide = dir.join("utf16.json");
    std::fs::write(&wide, utf16).unwrap();
    let err = format!("{:#}", mdbook_agentx::decode_file(&wide).unwrap_err());
    assert!(
        err.contains("utf16.json: the file is UTF-16 (little-endian"),
        "{err}"
    );
}
