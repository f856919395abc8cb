//! A captured launch → the typed model the recipe path uses: its argv and
//! env become a one-worker schema-2 recipe (`frontend.type: sglang`, one
//! `agg` role), which `spec::parse` types and the shared builders turn into
//! worker blocks, both routers, KV tiers and the golden AL
//! (docs/sync-bash-lanes.md, "From the launch to the cell"). A value the
//! interpreter could not know goes in as a stand-in text: the rules may drop
//! it (a path of the harness, a disclosed chat template); if the stand-in
//! survives anywhere in the point, the page would show it, and the point is
//! refused ([`Unknowns::check`]). Uses `sync::*`.

use super::super::generate::lane::LanePoint;
use super::super::input::yaml::{Node, Value};
use super::commands::SERVER_MODULE;
use super::interp::Launch;
use super::state::Val;

/// Worker flags the generator writes itself: several copies in a script
/// are harmless (argparse keeps the last), the rules drop them anyway.
const LEAD: &[&str] = &["model-path", "served-model-name", "host", "port"];

/// One flag of the server's argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Flag {
    pub name: String,
    pub values: Vec<Val>,
}

/// The server's flags, in argv order: `--name value…` and `--name=value`.
/// Flags must be known. A value may be a path known in part (in the
/// checkout, or a program's): it cannot start with `-`, so it is a value.
/// Any other word not known statically could be a flag as well as a value,
/// so it is refused: were it taken as the value of a flag the rules drop,
/// a flag the page should show would vanish with it.
pub(super) fn flags(argv: &[Val]) -> Result<Vec<Flag>, String> {
    let head: Vec<&str> = argv.iter().take(3).filter_map(|v| v.text().ok()).collect();
    let rest = match head.as_slice() {
        [py, "-m", SERVER_MODULE] if py.starts_with("python") => &argv[3..],
        _ => {
            let shown: Vec<String> = argv.iter().map(Val::shown).collect();
            return Err(format!(
                "`{}` is not a launch of {SERVER_MODULE}",
                shown.join(" ")
            ));
        }
    };
    let mut out: Vec<Flag> = Vec::new();
    for v in rest {
        let tok = match v {
            Val::Known(tok) => tok,
            path @ (Val::InCheckout(_) | Val::PathOf(_)) => match out.last_mut() {
                Some(last) => {
                    last.values.push(path.clone());
                    continue;
                }
                None => return Err(format!("`{}` comes before any flag", path.shown())),
            },
            unknown => {
                return Err(format!(
                    "a word of the launch is not known statically ({}), so neither is whether \
                     it is a flag or a value",
                    unknown.why()
                ));
            }
        };
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
                values: value.map(Val::known).into_iter().collect(),
            });
        } else if tok.starts_with('-') && !is_number(tok) {
            return Err(format!("the short option `{tok}` is not interpreted"));
        } else if let Some(last) = out.last_mut() {
            last.values.push(v.clone());
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

/// The values of a launch the interpreter could not know, by the stand-in
/// text the recipe holds for each: `(stand-in, what it is, why unknown)`.
#[derive(Debug, Default)]
pub(super) struct Unknowns(Vec<(String, String, String)>);

impl Unknowns {
    /// The text for `v`: its own, or a fresh stand-in (letters, digits and
    /// dashes only, so no quoting rule of the renderers changes it).
    fn text(&mut self, v: &Val, what: &str) -> String {
        match v {
            Val::Known(s) => s.clone(),
            other => {
                let stand_in = format!("agentx-unknown-value-{}-7f3c9a", self.0.len());
                self.0
                    .push((stand_in.clone(), what.to_string(), other.why()));
                stand_in
            }
        }
    }

    /// A message of the shared builders with each stand-in it quotes
    /// replaced by what the value is (a rule that reads a value, such as a
    /// parallel size, refuses a stand-in as it would any bad text).
    pub(super) fn explain(&self, message: &str) -> String {
        self.0
            .iter()
            .fold(message.to_string(), |m, (stand_in, what, why)| {
                m.replace(stand_in, &format!("<{what}, not known statically: {why}>"))
            })
    }

    /// Refuses the point when a stand-in survived into it: the page would
    /// show a value nobody knows. Every field of the point is searched (its
    /// `Debug` form), so a field added later is covered too.
    pub(super) fn check(&self, point: &LanePoint, at: &str) -> Result<(), String> {
        if self.0.is_empty() {
            return Ok(());
        }
        let text = format!("{point:?}");
        match self.0.iter().find(|(s, ..)| text.contains(s.as_str())) {
            None => Ok(()),
            Some((_, what, why)) => Err(format!(
                "{at}: {what} is not known statically ({why}), and the page would show it"
            )),
        }
    }
}

/// The one-worker recipe of a launch, and the values it holds stand-ins for.
pub(super) fn recipe(launch: &Launch, shape: &Shape<'_>) -> Result<(Node, Unknowns), String> {
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
    let mut unknowns = Unknowns::default();
    let mut args = Vec::new();
    for f in flags(&launch.argv)? {
        let what = format!("the value of `--{}`", f.name);
        let mut values: Vec<Node> = f
            .values
            .iter()
            .map(|v| scalar(&unknowns.text(v, &what), line))
            .collect();
        let v = match values.len() {
            0 => n(Value::Bool(true)),
            1 => values.remove(0),
            _ => n(Value::Seq(values)),
        };
        args.push((f.name, v));
    }
    let env = launch
        .env
        .iter()
        .map(|(k, v)| {
            let text = unknowns.text(v, &format!("the exported `{k}`"));
            (k.clone(), n(Value::Str(text)))
        })
        .collect();
    let agg = map(vec![
        ("nodes", n(Value::Int(1))),
        ("workers", n(Value::Int(1))),
        ("gpus", n(Value::Int(i64::from(shape.gpus)))),
        ("args", n(Value::Map(args))),
        ("env", n(Value::Map(env))),
    ]);
    let recipe = map(vec![
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
    ]);
    Ok((recipe, unknowns))
}

/// The golden AL the script pins (`SGLANG_SIMULATE_ACC_LEN`) must be the
/// curve's: the page discloses the curve's value as what the run simulated.
pub(super) fn check_golden_al(launch: &Launch, curve: Option<&str>) -> Result<(), String> {
    let pinned = match launch.env.get("SGLANG_SIMULATE_ACC_LEN") {
        None => None,
        Some(v) => Some(
            v.text()
                .map_err(|e| format!("{}: SGLANG_SIMULATE_ACC_LEN: {e}", launch.at))?,
        ),
    };
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

    fn argv(s: &str) -> Vec<Val> {
        s.split(' ').map(Val::known).collect()
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
            argv("Qwen/é"),
            "the last copy of a lead flag wins"
        );
        assert_eq!(ok[4].values, argv("http://x 8998"));
        assert_eq!(ok[5].values, argv("-1"));
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

    /// Words known in part: a path (it cannot be a flag) is a value; any
    /// other unknown word could be a flag, so it is refused; a message that
    /// quotes a stand-in says what the value is instead.
    #[test]
    fn unknown_words_of_the_launch() {
        let mut words = argv("python3 -m sglang.launch_server --chat-template");
        words.push(Val::InCheckout("/é.jinja".into()));
        words.push(Val::known("--tp"));
        let ok = flags(&words).unwrap();
        assert_eq!(ok[0].values, [Val::InCheckout("/é.jinja".into())]);
        for unknown in [
            Val::Unknown("what `$(date)` prints".into()),
            Val::NonEmpty("ü".into()),
            Val::MaybeUnset("ü".into()),
        ] {
            let mut words = argv("python3 -m sglang.launch_server --enable-metrics");
            words.push(unknown);
            let e = flags(&words).unwrap_err();
            assert!(e.contains("whether it is a flag or a value"), "{e}");
        }
        let mut u = Unknowns::default();
        let stand_in = u.text(&Val::Unknown("ü".into()), "the value of `--tp`");
        assert_eq!(
            u.explain(&format!("`{stand_in}` is not a number")),
            "`<the value of `--tp`, not known statically: ü>` is not a number"
        );
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
