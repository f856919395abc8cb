//! The rules table: what happens to every argument and environment name a
//! recipe hands the generator. The table itself is data (`rules.toml`, compiled
//! in); a lane manifest may add names in the same shape under `[rules]`.
//! Uses nothing else of the crate.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

/// The table shipped with the tool.
pub(super) const BUILTIN: &str = include_str!("rules.toml");

/// Which namespace a name lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// `roles.<role>.args`: worker command-line flags (without `--`).
    WorkerArg,
    /// `frontend.args`: Dynamo frontend flags.
    FrontendArg,
    /// `frontend.args` of an SGLang router front door: router flags.
    RouterArg,
    /// `roles.<role>.env` and `frontend.env`.
    Env,
}

impl Scope {
    fn table(self) -> &'static str {
        match self {
            Scope::WorkerArg => "worker-args",
            Scope::FrontendArg => "frontend-args",
            Scope::RouterArg => "router-args",
            Scope::Env => "env",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::WorkerArg => "worker argument",
            Scope::FrontendArg => "frontend argument",
            Scope::RouterArg => "router argument",
            Scope::Env => "environment variable",
        })
    }
}

/// What the generator does with one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Rule {
    Keep,
    /// Written by the generator itself as a fixed lead flag; the recipe's copy is ignored.
    Lead,
    /// Removed; the string says why (`telemetry`, `harness`, `cluster-paths`, …).
    Drop(String),
    /// The value is replaced by this text.
    Placeholder(String),
    /// Dropped from the command, and the cell carries this disclosure (the
    /// note the reader sees, e.g. `chat-template`).
    Disclose(String),
    /// A path to a config file on SemiAnalysis's cluster: the command names
    /// the file (its base name), and the file's text is the one a page of
    /// `--previous` holds under that name.
    File,
}

/// One section of the table file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Section {
    #[serde(default)]
    keep: Vec<String>,
    #[serde(default)]
    lead: Vec<String>,
    #[serde(default)]
    drop: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    placeholder: BTreeMap<String, String>,
    #[serde(default)]
    disclose: BTreeMap<String, String>,
    #[serde(default)]
    file: Vec<String>,
}

/// The file shape, shared by `rules.toml` and a manifest's `[rules]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RulesFile {
    #[serde(default)]
    worker_args: Section,
    #[serde(default)]
    frontend_args: Section,
    #[serde(default)]
    router_args: Section,
    #[serde(default)]
    env: Section,
    #[serde(default)]
    kv_mooncake: MooncakeSection,
}

/// `[kv-mooncake]`: which env names belong to the Mooncake tier.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MooncakeSection {
    #[serde(default)]
    env: Vec<String>,
}

/// The classified names.
#[derive(Debug, Clone, Default)]
pub(super) struct Rules {
    worker_args: BTreeMap<String, Rule>,
    frontend_args: BTreeMap<String, Rule>,
    router_args: BTreeMap<String, Rule>,
    env: BTreeMap<String, Rule>,
    /// Env a worker carries as a Mooncake store client: what the page's
    /// donor block (`kvMooncake.env`, `.decode_env`) holds.
    pub mooncake_env: Vec<String>,
}

impl Rules {
    /// The compiled-in table.
    pub(super) fn builtin() -> Result<Rules, String> {
        let file: RulesFile =
            toml::from_str(BUILTIN).map_err(|e| format!("src/sync/rules.toml: {e}"))?;
        let mut rules = Rules::default();
        rules.add(file, "src/sync/rules.toml")?;
        Ok(rules)
    }

    /// Adds a table; a name classified twice is an error naming `origin`.
    pub(super) fn add(&mut self, file: RulesFile, origin: &str) -> Result<(), String> {
        add_section(
            &mut self.worker_args,
            file.worker_args,
            Scope::WorkerArg,
            origin,
        )?;
        add_section(
            &mut self.frontend_args,
            file.frontend_args,
            Scope::FrontendArg,
            origin,
        )?;
        add_section(
            &mut self.router_args,
            file.router_args,
            Scope::RouterArg,
            origin,
        )?;
        for name in file.kv_mooncake.env {
            if !self.mooncake_env.contains(&name) {
                self.mooncake_env.push(name);
            }
        }
        add_section(&mut self.env, file.env, Scope::Env, origin)
    }

    pub(super) fn classify(&self, scope: Scope, name: &str) -> Option<&Rule> {
        self.map(scope).get(name)
    }

    fn map(&self, scope: Scope) -> &BTreeMap<String, Rule> {
        match scope {
            Scope::WorkerArg => &self.worker_args,
            Scope::FrontendArg => &self.frontend_args,
            Scope::RouterArg => &self.router_args,
            Scope::Env => &self.env,
        }
    }
}

fn add_section(
    map: &mut BTreeMap<String, Rule>,
    section: Section,
    scope: Scope,
    origin: &str,
) -> Result<(), String> {
    let mut entries: Vec<(String, Rule)> = Vec::new();
    entries.extend(section.keep.into_iter().map(|n| (n, Rule::Keep)));
    entries.extend(section.lead.into_iter().map(|n| (n, Rule::Lead)));
    for (why, names) in section.drop {
        entries.extend(names.into_iter().map(|n| (n, Rule::Drop(why.clone()))));
    }
    entries.extend(
        section
            .placeholder
            .into_iter()
            .map(|(n, v)| (n, Rule::Placeholder(v))),
    );
    entries.extend(
        section
            .disclose
            .into_iter()
            .map(|(n, d)| (n, Rule::Disclose(d))),
    );
    entries.extend(section.file.into_iter().map(|n| (n, Rule::File)));
    for (name, rule) in entries {
        if name.is_empty() || name.starts_with('-') {
            return Err(format!(
                "{origin}: [{}]: `{name}` is not a name (write flags without `--`)",
                scope.table()
            ));
        }
        if let Some(old) = map.get(&name) {
            return Err(format!(
                "{origin}: [{}]: `{name}` is classified twice ({old:?} and {rule:?})",
                scope.table()
            ));
        }
        map.insert(name, rule);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_loads_and_classifies() {
        let r = Rules::builtin().unwrap();
        assert_eq!(
            r.classify(Scope::WorkerArg, "enable-metrics"),
            Some(&Rule::Drop("telemetry".into()))
        );
        assert_eq!(
            r.classify(Scope::WorkerArg, "served-model-name"),
            Some(&Rule::Lead)
        );
        assert_eq!(
            r.classify(Scope::WorkerArg, "tensor-parallel-size"),
            Some(&Rule::Keep)
        );
        assert_eq!(
            r.classify(Scope::Env, "HF_HUB_CACHE"),
            Some(&Rule::Drop("cluster-paths".into()))
        );
        assert_eq!(
            r.classify(Scope::Env, "MOONCAKE_DEVICE"),
            Some(&Rule::Placeholder("$IB_DEVICES".into()))
        );
        assert_eq!(
            r.classify(Scope::WorkerArg, "chat-template"),
            Some(&Rule::Disclose("chat-template".into()))
        );
        assert_eq!(
            r.classify(Scope::WorkerArg, "deepep-config"),
            Some(&Rule::File)
        );
        assert_eq!(r.classify(Scope::WorkerArg, "no-such-flag"), None);
    }

    #[test]
    fn a_name_classified_twice_is_refused() {
        let mut r = Rules::builtin().unwrap();
        let extra: RulesFile = toml::from_str("[env]\nkeep = [\"UCX_TLS\"]\n").unwrap();
        let e = r.add(extra, "lanes.toml [rules]").unwrap_err();
        assert!(
            e.contains("lanes.toml [rules]: [env]: `UCX_TLS` is classified twice"),
            "{e}"
        );
        let bad: RulesFile = toml::from_str("[worker-args]\nkeep = [\"--tp\"]\n").unwrap();
        assert!(
            Rules::default()
                .add(bad, "x")
                .unwrap_err()
                .contains("without `--`")
        );
    }
}
