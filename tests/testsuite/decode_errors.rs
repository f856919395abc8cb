//! Decoding errors: each mutation of the hand-written fixture
//! `tests/fixtures/data/mini.json` fails with a message naming the JSON path
//! and what was expected; malformed JSON names line and column.

use std::path::Path;

use mdbook_agentx::decode_str;
use serde_json::{Value, json};

use crate::support;

fn mini_text() -> String {
    support::read(&support::fixture("data/mini.json"))
}

/// A change that makes the fixture invalid.
type Mutation = fn(&mut Value);

/// (what, the mutation, what the message must say: the JSON path and what
/// was expected).
const BAD_INPUT: &[(&str, Mutation, &[&str])] = &[
    (
        "ref to a missing cell",
        |v| v["cells"][2]["routers"]["sglang"]["blocks"][0]["ref"][0] = json!(9),
        &[
            "cells[2].routers.sglang.blocks[0]",
            "names cells[9], but the file has 3 cells",
        ],
    ),
    (
        "ref to a missing router",
        |v| {
            v["cells"][0]["routers"]
                .as_object_mut()
                .unwrap()
                .remove("dynamo");
            v["cells"][0]["points"][1]["patch"]
                .as_object_mut()
                .unwrap()
                .remove("dynamo");
            v["cells"][0]["points"][2]["patch"]
                .as_object_mut()
                .unwrap()
                .remove("dynamo");
        },
        &[
            "cells[2].routers.dynamo.blocks[0]",
            "has no router `dynamo`",
        ],
    ),
    (
        "ref to a missing block",
        |v| v["cells"][2]["routers"]["dynamo"]["blocks"][1]["ref"][2] = json!(7),
        &[
            "cells[2].routers.dynamo.blocks[1]",
            "names block 7",
            "has 3 blocks",
        ],
    ),
    (
        "from past the end",
        |v| v["cells"][1]["routers"]["sglang"]["blocks"][0]["from"] = json!(12),
        &[
            "cells[1].routers.sglang.blocks[0]",
            "from: 12",
            "has 8 blocks",
        ],
    ),
    (
        "cycle of refs",
        |v| v["cells"][0]["routers"]["sglang"]["blocks"][0] = json!({"ref": [2, "sglang", 0]}),
        &[
            "cycle of refs",
            "cells[0].routers.sglang → cells[2].routers.sglang → cells[0].routers.sglang",
        ],
    ),
    (
        "unknown tier",
        |v| v["cells"][0]["points"][1]["kv"] = json!("disk"),
        &[
            "cells[0].points[1].kv",
            "unknown variant `disk`",
            "expected one of `none`, `hicache`, `mooncake`",
        ],
    ),
    (
        "unknown router",
        |v| v["cells"][0]["submitted"] = json!("vllm"),
        &["cells[0].submitted", "unknown variant `vllm`"],
    ),
    (
        "unknown router in a patch",
        |v| v["cells"][0]["points"][1]["patch"]["trtllm"] = json!(null),
        &["cells[0].points[1].patch", "unknown variant `trtllm`"],
    ),
    (
        "patch longer than the block list",
        |v| v["cells"][0]["points"][1]["patch"]["sglang"] = json!([null, null]),
        &[
            "cells[0].points[1].patch.sglang",
            "2 entries but point 0 has 1 blocks",
        ],
    ),
    (
        "measured tier not available",
        |v| v["cells"][2]["points"][0]["kv"] = json!("mooncake"),
        &[
            "cells[2].points[0].kv",
            "measured tier `mooncake` is not in kv.available (none, hicache)",
        ],
    ),
    (
        "envRef out of range",
        |v| v["cells"][0]["routers"]["sglang"]["blocks"][0]["envRef"] = json!(4),
        &[
            "cells[0].routers.sglang.blocks[0].envRef",
            "envRef 4 points past the end of `envs` (1 entries)",
        ],
    ),
    (
        "unknown block key",
        |v| v["cells"][0]["routers"]["sglang"]["blocks"][0]["cwd"] = json!("/x"),
        &["cells[0].routers.sglang.blocks[0]", "unknown field `cwd`"],
    ),
    (
        "bad override",
        |v| v["cells"][1]["routers"]["sglang"]["blocks"][2]["workers"] = json!("two"),
        &[
            "cells[1].routers.sglang.blocks[2]",
            "workers",
            "expected u32",
        ],
    ),
    (
        "missing file",
        |v| v["cells"][1]["routers"]["dynamo"]["files"][0] = json!("nats.conf#ffffffff"),
        &[
            "cells[1].routers.dynamo",
            "`nats.conf#ffffffff` is not in the top-level `files` map",
        ],
    ),
    (
        "worker without role",
        |v| {
            v["cells"][0]["routers"]["sglang"]["blocks"][0]
                .as_object_mut()
                .unwrap()
                .remove("role");
        },
        &["worker block has no `role`"],
    ),
    (
        "string where a number belongs",
        |v| v["cells"][0]["gpus"] = json!("4"),
        &["cells[0].gpus", "expected u32"],
    ),
    (
        "no status anywhere",
        |v| {
            v["cells"][2].as_object_mut().unwrap().remove("prov");
        },
        &["cells[2].points[0]: no status", "prov.status"],
    ),
    (
        "hicache offered without settings",
        |v| {
            v["cells"][0]["kv"]
                .as_object_mut()
                .unwrap()
                .remove("hicache");
        },
        &["cells[0].kv", "no kv.hicache settings"],
    ),
];

/// Bad input: each mutation of the fixture must fail with a message naming the
/// JSON path and what was expected.
#[test]
fn bad_input_is_reported_with_its_path() {
    let base: Value = serde_json::from_str(&mini_text()).unwrap();
    for (what, mutate, needles) in BAD_INPUT {
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

#[test]
fn malformed_json_has_line_and_column() {
    let text = mini_text().replacen("\"hw\": \"h200\",", "\"hw\": \"h200\" ", 1);
    let err = decode_str(&text, Path::new("content/agentx/mini.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("content/agentx/mini.json:34:18: malformed JSON: expected `,` or `}`"),
        "{err}"
    );
}
