//! Flag registries: the options one entry point accepts at one version, in the
//! JSON shape `{entrypoint, source, flags: [{name, aliases, takes_value,
//! choices, nargs?, …}]}`, and an argparse-faithful check of a command line
//! against one.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FlagSpec {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub takes_value: bool,
    #[serde(default)]
    pub choices: Option<Vec<Value>>,
    /// `"?"`, `"*"`, `"+"` or a count; absent means exactly one value (or none for a switch).
    #[serde(default)]
    pub nargs: Option<Value>,
    #[serde(default)]
    pub deprecated: bool,
    /// Parsed, then refused by the program at start-up.
    #[serde(default)]
    pub rejected: bool,
    /// Values the server accepts after parsing (case-insensitive); not enforced by argparse.
    #[serde(default)]
    pub known_values: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
struct RegistryFile {
    entrypoint: String,
    #[serde(default)]
    source: Option<Value>,
    flags: Vec<FlagSpec>,
}

/// How many values an option consumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arity {
    Switch,
    One,
    Optional,
    ZeroOrMore,
    OneOrMore,
    Exactly(usize),
}

impl FlagSpec {
    pub(crate) fn arity(&self) -> Arity {
        if !self.takes_value {
            return Arity::Switch;
        }
        match &self.nargs {
            None => Arity::One,
            Some(Value::String(s)) if s == "?" => Arity::Optional,
            Some(Value::String(s)) if s == "*" => Arity::ZeroOrMore,
            Some(Value::String(s)) if s == "+" => Arity::OneOrMore,
            Some(Value::Number(n)) => Arity::Exactly(n.as_u64().unwrap_or(1) as usize),
            Some(_) => Arity::One,
        }
    }
}

/// One registry.
#[derive(Debug, Clone)]
pub(crate) struct Registry {
    pub entrypoint: String,
    /// A short label: the release or commit the registry describes.
    pub label: String,
    pub flags: Vec<FlagSpec>,
    by_option: HashMap<String, usize>,
}

/// How an option string on the command line resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    Exact(usize),
    /// An unambiguous prefix of a long option, which argparse accepts.
    Abbreviation(usize),
    Ambiguous(Vec<String>),
    Unknown,
}

impl Registry {
    pub(crate) fn parse(text: &str, path: &Path) -> Result<Registry> {
        // A byte order mark is how some editors save UTF-8; JSON readers
        // (Python's `json.load` with utf-8-sig) accept it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let file: RegistryFile =
            serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
                .map_err(|e| {
                    let at = format!("{}: {}", path.display(), e.path());
                    anyhow::Error::new(e.into_inner()).context(at)
                })?;
        let label = file
            .source
            .as_ref()
            .and_then(|s| {
                s.get("release")
                    .and_then(Value::as_str)
                    .or_else(|| s.get("commit").and_then(Value::as_str))
            })
            .map(str::to_string)
            .unwrap_or_else(|| {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
        let mut by_option = HashMap::new();
        for (i, f) in file.flags.iter().enumerate() {
            for opt in std::iter::once(&f.name).chain(&f.aliases) {
                by_option.insert(opt.clone(), i);
            }
        }
        Ok(Registry {
            entrypoint: file.entrypoint,
            label,
            flags: file.flags,
            by_option,
        })
    }

    /// Resolves an option string the way argparse does (exact, then unique prefix).
    pub(crate) fn lookup(&self, option: &str) -> Lookup {
        if let Some(&i) = self.by_option.get(option) {
            return Lookup::Exact(i);
        }
        if !option.starts_with("--") {
            return Lookup::Unknown;
        }
        let mut matches: Vec<(&String, usize)> = self
            .by_option
            .iter()
            .filter(|(o, _)| o.starts_with("--") && o.starts_with(option))
            .map(|(o, i)| (o, *i))
            .collect();
        matches.sort();
        let mut targets: Vec<usize> = matches.iter().map(|(_, i)| *i).collect();
        targets.dedup();
        match targets.len() {
            0 => Lookup::Unknown,
            1 => Lookup::Abbreviation(targets[0]),
            _ => Lookup::Ambiguous(matches.into_iter().map(|(o, _)| o.clone()).collect()),
        }
    }

    /// The known option closest to an unknown one, for the message.
    pub(crate) fn suggest(&self, option: &str) -> Option<&str> {
        let names: Vec<&str> = self.by_option.keys().map(String::as_str).collect();
        crate::util::text::closest(option, &names)
    }

    pub(crate) fn contains(&self, option: &str) -> bool {
        self.by_option.contains_key(option)
    }
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Accepted, but worth knowing (deprecated, abbreviated, not a built-in value).
    Warning,
    /// The program would refuse the command line.
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct ArgProblem {
    pub severity: Severity,
    /// The option (or token) concerned.
    pub flag: String,
    pub message: String,
}

fn is_negative_number(t: &str) -> bool {
    t.strip_prefix('-')
        .is_some_and(|r| !r.is_empty() && r.parse::<f64>().is_ok())
}

fn is_option(t: &str) -> bool {
    t.starts_with('-') && t.len() > 1 && !is_negative_number(t)
}

fn choice_matches(value: &str, choice: &Value) -> bool {
    match choice {
        Value::String(s) => s == value,
        Value::Number(n) => value.parse::<f64>().ok() == n.as_f64(),
        Value::Bool(b) => value.eq_ignore_ascii_case(&b.to_string()),
        other => other.to_string().as_str() == value,
    }
}

fn choice_list(choices: &[Value]) -> String {
    choices
        .iter()
        .map(|c| match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks the arguments (after the program name) of one command line.
pub(crate) fn check_args(reg: &Registry, args: &[String]) -> Vec<ArgProblem> {
    let mut p = ArgParse {
        reg,
        args,
        i: 0,
        problems: Vec::new(),
    };
    while p.i < args.len() {
        let token = &args[p.i];
        p.i += 1;
        if is_option(token) {
            p.option(token);
        } else {
            p.error(
                token,
                format!("unexpected value `{token}`: no option before it takes a value"),
            );
        }
    }
    p.problems
}

/// A walk through a command line's arguments, as argparse makes it.
struct ArgParse<'a> {
    reg: &'a Registry,
    args: &'a [String],
    /// The next argument.
    i: usize,
    problems: Vec<ArgProblem>,
}

impl ArgParse<'_> {
    fn error(&mut self, flag: &str, message: String) {
        self.report(Severity::Error, flag, message);
    }

    fn report(&mut self, severity: Severity, flag: &str, message: String) {
        self.problems.push(ArgProblem {
            severity,
            flag: flag.to_string(),
            message,
        });
    }

    /// One option (`--x`, `--x=v`, `-x`) and the values it takes.
    fn option(&mut self, token: &str) {
        let (option, inline) = match token.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (token, None),
        };
        let Some(idx) = self.resolve(option) else {
            self.skip_values();
            return;
        };
        let reg = self.reg;
        let spec = &reg.flags[idx];
        if spec.rejected {
            let msg = format!("{} is refused at start-up by this version", spec.name);
            self.error(option, msg);
        }
        if spec.deprecated {
            let msg = format!(
                "{} is deprecated in {} {}",
                spec.name, reg.entrypoint, reg.label
            );
            self.report(Severity::Warning, option, msg);
        }
        let values = match inline {
            Some(v) => self.inline_value(spec, option, v),
            None => self.following_values(spec, option),
        };
        if let Some(values) = values {
            self.check_values(spec, option, &values);
        }
    }

    /// The registry's flag for an option string; unknown and ambiguous ones
    /// are reported, an abbreviation is a warning.
    fn resolve(&mut self, option: &str) -> Option<usize> {
        let reg = self.reg;
        match reg.lookup(option) {
            Lookup::Exact(i) => Some(i),
            Lookup::Abbreviation(i) => {
                let msg = format!(
                    "abbreviation of {}; argparse accepts it today, but a new option with the same prefix would make it ambiguous",
                    reg.flags[i].name
                );
                self.report(Severity::Warning, option, msg);
                Some(i)
            }
            Lookup::Ambiguous(c) => {
                let msg = format!("ambiguous option: could match {}", c.join(", "));
                self.error(option, msg);
                None
            }
            Lookup::Unknown => {
                let hint = reg
                    .suggest(option)
                    .map(|s| format!("; did you mean {s}?"))
                    .unwrap_or_default();
                let msg = format!("unknown option for {} {}{hint}", reg.entrypoint, reg.label);
                self.error(option, msg);
                None
            }
        }
    }

    /// Skips the values after an option that could not be resolved, so they
    /// are not reported again as stray values.
    fn skip_values(&mut self) {
        while self.i < self.args.len() && !is_option(&self.args[self.i]) {
            self.i += 1;
        }
    }

    /// `--x=v`: a switch takes none.
    fn inline_value(&mut self, spec: &FlagSpec, option: &str, v: String) -> Option<Vec<String>> {
        if spec.arity() == Arity::Switch {
            let msg = format!(
                "{} is a switch and takes no value, but is given `{v}`",
                spec.name
            );
            self.error(option, msg);
            return None;
        }
        Some(vec![v])
    }

    /// The values after an option, as many as its arity takes; `None` when
    /// there is nothing to check further.
    fn following_values(&mut self, spec: &FlagSpec, option: &str) -> Option<Vec<String>> {
        let arity = spec.arity();
        let max = match arity {
            Arity::Switch => {
                if let Some(next) = self.args.get(self.i).filter(|a| !is_option(a)) {
                    let msg = format!(
                        "{} is a switch and takes no value, but is followed by `{next}`",
                        spec.name
                    );
                    self.error(option, msg);
                    self.i += 1;
                }
                return None;
            }
            Arity::One | Arity::Optional => 1,
            Arity::ZeroOrMore | Arity::OneOrMore => usize::MAX,
            Arity::Exactly(n) => n,
        };
        let mut values = Vec::new();
        while self.i < self.args.len() && values.len() < max && !is_option(&self.args[self.i]) {
            values.push(self.args[self.i].clone());
            self.i += 1;
        }
        let needed = match arity {
            Arity::One | Arity::OneOrMore => 1,
            Arity::Exactly(n) => n,
            _ => 0,
        };
        if values.len() >= needed {
            return Some(values);
        }
        let count = if arity == Arity::OneOrMore {
            "at least 1".to_string()
        } else {
            needed.to_string()
        };
        let plural = if needed == 1 { "" } else { "s" };
        let msg = format!(
            "{} needs {count} value{plural} but has {}",
            spec.name,
            values.len()
        );
        self.error(option, msg);
        None
    }

    /// Each value against the flag's choices and known values.
    fn check_values(&mut self, spec: &FlagSpec, option: &str, values: &[String]) {
        // A placeholder is filled in by the reader; its value is not known here.
        for v in values.iter().filter(|v| !v.contains('$')) {
            if let Some(choices) = &spec.choices
                && !choices.iter().any(|c| choice_matches(v, c))
            {
                let msg = format!(
                    "`{v}` is not a valid choice for {}; expected one of: {}",
                    spec.name,
                    choice_list(choices)
                );
                self.error(option, msg);
            }
            if let Some(known) = &spec.known_values
                && !known.iter().any(|k| k.eq_ignore_ascii_case(v))
            {
                let msg = format!(
                    "`{v}` is not a built-in value of {} ({}); it works only if a plugin registers it",
                    spec.name,
                    known.join(", ")
                );
                self.report(Severity::Warning, option, msg);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> Registry {
        Registry::parse(
            r#"{"entrypoint": "sglang.launch_server", "source": {"release": "v9"}, "flags": [
              {"name": "--tp-size", "aliases": ["--tensor-parallel-size"], "takes_value": true, "choices": null},
              {"name": "--trust-remote-code", "aliases": [], "takes_value": false, "choices": null},
              {"name": "--kv-cache-dtype", "aliases": [], "takes_value": true, "choices": ["auto", "fp8_e4m3"]},
              {"name": "--log-level-http", "aliases": [], "takes_value": true, "choices": [0, 1, 2]},
              {"name": "--prefill", "aliases": [], "takes_value": true, "choices": null, "nargs": "+"},
              {"name": "--opt", "aliases": [], "takes_value": true, "choices": null, "nargs": "?"},
              {"name": "--pair", "aliases": [], "takes_value": true, "choices": null, "nargs": 2},
              {"name": "--old", "aliases": [], "takes_value": true, "choices": null, "deprecated": true},
              {"name": "--gone", "aliases": [], "takes_value": false, "choices": null, "rejected": true},
              {"name": "--speculative-algorithm", "aliases": [], "takes_value": true, "choices": null, "known_values": ["EAGLE", "NEXTN", "DFLASH"]},
              {"name": "--enable-a", "aliases": [], "takes_value": false, "choices": null},
              {"name": "--enable-b", "aliases": [], "takes_value": false, "choices": null}
            ]}"#,
            Path::new("r.json"),
        )
        .unwrap()
    }

    fn problems(args: &str) -> Vec<String> {
        let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        check_args(&reg(), &args)
            .into_iter()
            .map(|p| format!("{:?} {}: {}", p.severity, p.flag, p.message))
            .collect()
    }

    /// (arguments, the problems argparse and the registry give), one row per rule.
    const ARGPARSE_CASES: &[(&str, &[&str])] = &[
        ("--tp-size 4 --trust-remote-code", &[]),
        ("--tensor-parallel-size 4", &[]),
        ("--tp-size=4", &[]),
        ("--kv-cache-dtype fp8_e4m3 --log-level-http 2", &[]),
        ("--prefill http://a:1 8998 --prefill http://b:1", &[]),
        ("--opt --opt x --pair a b", &[]),
        ("--tp-size $TP", &[]),
        ("--kv-cache-dtype $X", &[]),
        ("--speculative-algorithm dflash", &[]),
        (
            "--tp-siez 4",
            &[
                "Error --tp-siez: unknown option for sglang.launch_server v9; did you mean --tp-size?",
            ],
        ),
        (
            "--trust-remote-code true",
            &[
                "Error --trust-remote-code: --trust-remote-code is a switch and takes no value, but is followed by `true`",
            ],
        ),
        (
            "--trust-remote-code=1",
            &[
                "Error --trust-remote-code: --trust-remote-code is a switch and takes no value, but is given `1`",
            ],
        ),
        (
            "--tp-size --trust-remote-code",
            &["Error --tp-size: --tp-size needs 1 value but has 0"],
        ),
        (
            "--tp-size",
            &["Error --tp-size: --tp-size needs 1 value but has 0"],
        ),
        (
            "--kv-cache-dtype fp4",
            &[
                "Error --kv-cache-dtype: `fp4` is not a valid choice for --kv-cache-dtype; expected one of: auto, fp8_e4m3",
            ],
        ),
        (
            "--log-level-http 7",
            &[
                "Error --log-level-http: `7` is not a valid choice for --log-level-http; expected one of: 0, 1, 2",
            ],
        ),
        (
            "--prefill",
            &["Error --prefill: --prefill needs at least 1 value but has 0"],
        ),
        (
            "--pair a",
            &["Error --pair: --pair needs 2 values but has 1"],
        ),
        (
            "--tp",
            &[
                "Warning --tp: abbreviation of --tp-size; argparse accepts it today, but a new option with the same prefix would make it ambiguous",
                "Error --tp: --tp-size needs 1 value but has 0",
            ],
        ),
        (
            "--enable 1 --tp-size 2",
            &["Error --enable: ambiguous option: could match --enable-a, --enable-b"],
        ),
        (
            "--old x",
            &["Warning --old: --old is deprecated in sglang.launch_server v9"],
        ),
        (
            "--gone",
            &["Error --gone: --gone is refused at start-up by this version"],
        ),
        (
            "--speculative-algorithm MAGIC",
            &[
                "Warning --speculative-algorithm: `MAGIC` is not a built-in value of --speculative-algorithm (EAGLE, NEXTN, DFLASH); it works only if a plugin registers it",
            ],
        ),
        (
            "stray --tp-size 1",
            &["Error stray: unexpected value `stray`: no option before it takes a value"],
        ),
        ("--tp-size -1", &[]),
        (
            "--zzzzzz a b --tp-size 2",
            &["Error --zzzzzz: unknown option for sglang.launch_server v9"],
        ),
    ];

    #[test]
    fn argparse_rules() {
        for (args, want) in ARGPARSE_CASES {
            assert_eq!(problems(args), *want, "{args}");
        }
    }
}
