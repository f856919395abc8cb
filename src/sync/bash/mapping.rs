//! A captured launch → the typed model the recipe path uses: its argv and
//! env become a one-worker schema-2 recipe (`frontend.type: sglang`, one
//! `agg` role), which `spec::parse` types and the shared builders turn into
//! worker blocks, both routers, KV tiers and the golden AL
//! (docs/sync-bash-lanes.md, "From the launch to the cell").
//! Uses `sync::*`.

use super::super::input::yaml::{Node, Value};
use super::commands::SERVER_MODULE;
use super::interp::Launch;

/// Worker flags the generator writes itself: several copies in a script
/// are harmless (argparse keeps the last), the rules drop them anyway.
const LEAD: &[&str] = &["model-path", "served-model-name", "host", "port"];

/// One flag of the server's argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Flag {
    pub name: String,
    pub values: Vec<String>,
}

/// The server's flags, in argv order: `--name value…` and `--name=value`.
pub(super) fn flags(argv: &[String]) -> Result<Vec<Flag>, String> {
    let rest = match argv {
        [py, m, module, rest @ ..]
            if m == "-m" && module == SERVER_MODULE && py.starts_with("python") =>
        {
            rest
        }
        _ => {
            return Err(format!(
                "`{}` is not a launch of {SERVER_MODULE}",
                argv.join(" ")
            ));
        }
    };
    let mut out: Vec<Flag> = Vec::new();
    for tok in rest {
        if let Some(long) = tok.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if name.is_empty()
                || name.contains('_')
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                return Err(format!(
                    "the server flag `--{name}` is not of the form `--lower-case-words`"
                ));
            }
            out.push(Flag {
                name: name.to_string(),
                values: value.map(str::to_string).into_iter().collect(),
            });
        } else if tok.starts_with('-') && !is_number(tok) {
            return Err(format!("the short option `{tok}` is not interpreted"));
        } else if let Some(last) = out.last_mut() {
            last.values.push(tok.clone());
        } else {
            return Err(format!("`{tok}` comes before any flag"));
        }
    }
    dedupe(out)
}

fn is_number(s: &str) -> bool {
    s.trim_start_matches('-').parse::<f64>().is_ok()
}

/// Lead flags keep their last copy; any other flag given twice is refused
/// (argparse would keep one or append, depending on the flag).
fn dedupe(flags: Vec<Flag>) -> Result<Vec<Flag>, String> {
    let mut out: Vec<Flag> = Vec::new();
    for f in flags {
        match out.iter().position(|o| o.name == f.name) {
            Some(i) if LEAD.contains(&f.name.as_str()) => out[i] = f,
            Some(_) => return Err(format!("the server flag `--{}` is given twice", f.name)),
            None => out.push(f),
        }
    }
    Ok(out)
}

/// A value as the recipe path would hold it: canonical integers as
/// integers (their text is the same), everything else as the exact string.
fn scalar(text: &str, line: usize) -> Node {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && text != "-0";
    match text.parse::<i64>() {
        Ok(i) if canonical => Node::new(Value::Int(i), line),
        _ => Node::new(Value::Str(text.to_string()), line),
    }
}

/// What the recipe needs besides the launch.
pub(super) struct Shape<'a> {
    pub hw: &'a str,
    pub gpus_per_node: u32,
    /// GPUs the server uses (`TP`).
    pub gpus: u32,
}

/// The one-worker recipe of a launch.
pub(super) fn recipe(launch: &Launch, shape: &Shape<'_>) -> Result<Node, String> {
    let line = launch
        .at
        .rsplit_once(':')
        .and_then(|(_, l)| l.parse().ok())
        .unwrap_or(0);
    let n = |v: Value| Node::new(v, line);
    let map = |pairs: Vec<(&str, Node)>| {
        Node::new(
            Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
            line,
        )
    };
    let args = flags(&launch.argv)?
        .into_iter()
        .map(|f| {
            let v = match f.values.as_slice() {
                [] => n(Value::Bool(true)),
                [one] => scalar(one, line),
                many => n(Value::Seq(many.iter().map(|v| scalar(v, line)).collect())),
            };
            (f.name, v)
        })
        .collect();
    let env = launch
        .env
        .iter()
        .map(|(k, v)| (k.clone(), n(Value::Str(v.clone()))))
        .collect();
    let agg = map(vec![
        ("nodes", n(Value::Int(1))),
        ("workers", n(Value::Int(1))),
        ("gpus", n(Value::Int(i64::from(shape.gpus)))),
        ("args", n(Value::Map(args))),
        ("env", n(Value::Map(env))),
    ]);
    Ok(map(vec![
        ("schema", n(Value::Int(2))),
        ("engine", n(Value::Str("sglang".into()))),
        (
            "resources",
            map(vec![
                ("gpu_type", n(Value::Str(shape.hw.to_string()))),
                (
                    "gpus_per_node",
                    n(Value::Int(i64::from(shape.gpus_per_node))),
                ),
            ]),
        ),
        (
            "frontend",
            map(vec![("type", n(Value::Str("sglang".into())))]),
        ),
        ("roles", map(vec![("agg", agg)])),
    ]))
}

/// The golden AL the script pins (`SGLANG_SIMULATE_ACC_LEN`) must be the
/// curve's: the page discloses the curve's value as what the run simulated.
pub(super) fn check_golden_al(launch: &Launch, curve: Option<&str>) -> Result<(), String> {
    let pinned = launch.env.get("SGLANG_SIMULATE_ACC_LEN");
    let same = |a: &str, b: &str| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    match (curve, pinned) {
        (Some(c), Some(p)) if same(c, p) => Ok(()),
        (None, None) => Ok(()),
        (Some(c), Some(p)) => Err(format!(
            "{}: the script pins SGLANG_SIMULATE_ACC_LEN={p}, but the golden-AL curve gives {c}",
            launch.at
        )),
        (Some(c), None) => Err(format!(
            "{}: the row speculates (golden AL {c}), but the script exports no \
             SGLANG_SIMULATE_ACC_LEN: the run did not simulate acceptance",
            launch.at
        )),
        (None, Some(p)) => Err(format!(
            "{}: the script simulates acceptance (SGLANG_SIMULATE_ACC_LEN={p}) on a row without \
             speculative decoding",
            launch.at
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn flags_table() {
        let ok = flags(&argv(
            "python3 -m sglang.launch_server --model-path=m --served-model-name=m --tp 8 --trust-remote-code --served-model-name Qwen/é --prefill http://x 8998 --delta -1",
        ))
        .unwrap();
        let names: Vec<&str> = ok.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "model-path",
                "served-model-name",
                "tp",
                "trust-remote-code",
                "prefill",
                "delta"
            ]
        );
        assert_eq!(
            ok[1].values,
            ["Qwen/é"],
            "the last copy of a lead flag wins"
        );
        assert_eq!(ok[4].values, ["http://x", "8998"]);
        assert_eq!(ok[5].values, ["-1"]);
        for (bad, why) in [
            (
                "python3 -m sglang.launch_server --tp 1 --tp 2",
                "given twice",
            ),
            ("python3 -m sglang.launch_server -x", "short option"),
            ("python3 -m sglang.launch_server value", "before any flag"),
            (
                "python3 -m sglang.launch_server --snake_case 1",
                "--snake_case",
            ),
            ("python3 -m vllm.entrypoints", "not a launch"),
        ] {
            let e = flags(&argv(bad)).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn scalars_keep_their_text() {
        for (t, int) in [
            ("8", true),
            ("0.80", false),
            ("08", false),
            ("-1", true),
            ("-0", false),
            ("日本", false),
        ] {
            let n = scalar(t, 1);
            assert_eq!(n.python_str().unwrap(), t);
            assert_eq!(n.as_int().is_some(), int, "{t}");
        }
    }
}
