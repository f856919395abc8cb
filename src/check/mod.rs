//! `check`: every command line against the flag registry of its image, the
//! KV-offload tiers against what each image supports, and every internal link
//! and anchor of the built site.

pub(crate) mod registry;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use serde::Serialize;

use self::registry::{ArgProblem, Registry, Severity, check_args};
use crate::data::{Arg, KvTier};
use crate::decode::{CommandSet, is_kv_flag};
use crate::preprocessor::Library;
use crate::site::book::BookDir;
use crate::site::links::{self, LinkStats};
use crate::site::{BuildOptions, Site};

/// Entry points whose command lines are checked.
pub(crate) const ENTRYPOINTS: [&str; 4] = [
    "sglang.launch_server",
    "dynamo.sglang",
    "sglang_router.launch_router",
    "dynamo.frontend",
];

/// Splits shell text into commands (one per logical line) of words, the way
/// a POSIX shell reads the blocks this tool prints: quotes, backslash escapes,
/// `\`-newline continuations and `#` comments.
pub(crate) fn shell_commands(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => end_word(&mut words, &mut word, &mut in_word),
            '\n' | ';' => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '#' if !in_word => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(n) => {
                    word.push(n);
                    in_word = true;
                }
                None => {}
            },
            '\'' => {
                in_word = true;
                for n in chars.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    word.push(n);
                }
            }
            '"' => {
                in_word = true;
                while let Some(n) = chars.next() {
                    match n {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('$' | '`' | '"' | '\\') => {
                                word.push(chars.next().expect("peeked"))
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        other => word.push(other),
                    }
                }
            }
            other => {
                word.push(other);
                in_word = true;
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

/// The entry point a command runs and its arguments: `python3 -m dynamo.sglang
/// --x` → (`dynamo.sglang`, [`--x`]); leading `NAME=value` words are skipped.
pub(crate) fn entrypoint_of(words: &[String]) -> Option<(String, &[String])> {
    let is_assignment = |w: &String| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !k.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let start = words.iter().position(|w| !is_assignment(w))?;
    let program = &words[start];
    let base = program.rsplit('/').next().unwrap_or(program);
    if base.starts_with("python") && words.get(start + 1).map(String::as_str) == Some("-m") {
        let module = words.get(start + 2)?;
        return Some((module.clone(), &words[start + 3..]));
    }
    Some((base.to_string(), &words[start + 1..]))
}

/// `[preprocessor.agentx.registries]` of `book.toml`.
#[derive(Debug, Clone, Default)]
pub(crate) struct RegistryConfig {
    /// Entry point → registry file, used when an image has none of its own.
    pub default: BTreeMap<String, PathBuf>,
    /// Image → a registry file (whose `entrypoint` says what it covers), or one per entry point.
    pub images: BTreeMap<String, BTreeMap<String, PathBuf>>,
    /// Image → a single registry file with no entry point given yet.
    single: BTreeMap<String, PathBuf>,
}

impl RegistryConfig {
    /// Reads the `registries` table (of `[preprocessor.agentx]`).
    pub(crate) fn from_toml(registries: Option<&toml::Value>) -> Result<RegistryConfig> {
        let mut cfg = RegistryConfig::default();
        let Some(table) = registries else {
            return Ok(cfg);
        };
        let table = table
            .as_table()
            .ok_or_else(|| anyhow!("[preprocessor.agentx.registries] must be a table"))?;
        for (key, value) in table {
            match (key.as_str(), value) {
                ("default", toml::Value::Table(t)) => {
                    for (ep, p) in t {
                        let p = p.as_str().ok_or_else(|| {
                            anyhow!("[preprocessor.agentx.registries.default] `{ep}` must be a path string")
                        })?;
                        cfg.default.insert(ep.clone(), PathBuf::from(p));
                    }
                }
                (image, toml::Value::String(p)) => {
                    cfg.single.insert(image.to_string(), PathBuf::from(p));
                }
                (image, toml::Value::Table(t)) => {
                    let mut m = BTreeMap::new();
                    for (ep, p) in t {
                        let p = p.as_str().ok_or_else(|| {
                            anyhow!("[preprocessor.agentx.registries] \"{image}\".{ep} must be a path string")
                        })?;
                        m.insert(ep.clone(), PathBuf::from(p));
                    }
                    cfg.images.insert(image.to_string(), m);
                }
                (k, _) => bail!(
                    "[preprocessor.agentx.registries] `{k}`: expected a registry path, a table of entry point → path, or `default`"
                ),
            }
        }
        Ok(cfg)
    }
}

/// Loads registries on demand and picks the one for an (image, entry point).
pub(crate) struct Registries {
    root: PathBuf,
    config: RegistryConfig,
    loaded: HashMap<PathBuf, Registry>,
}

impl Registries {
    pub(crate) fn new(root: &Path, config: RegistryConfig) -> Result<Registries> {
        let mut r = Registries {
            root: root.to_path_buf(),
            config,
            loaded: HashMap::new(),
        };
        // A single file per image: its entry point comes from the file.
        let singles = std::mem::take(&mut r.config.single);
        for (image, path) in singles {
            let ep = r.load(&path)?.entrypoint.clone();
            r.config.images.entry(image).or_default().insert(ep, path);
        }
        Ok(r)
    }

    fn load(&mut self, rel: &Path) -> Result<&Registry> {
        let path = self.root.join(rel);
        if !self.loaded.contains_key(&path) {
            let reg = Registry::load(&path)?;
            self.loaded.insert(path.clone(), reg);
        }
        Ok(&self.loaded[&path])
    }

    /// The registry file configured for an image's entry point, if any.
    pub(crate) fn path_for(&self, image: &str, entrypoint: &str) -> Option<PathBuf> {
        let no_digest = image.split('@').next().unwrap_or(image);
        self.config
            .images
            .get(image)
            .or_else(|| self.config.images.get(no_digest))
            .and_then(|m| m.get(entrypoint))
            .or_else(|| self.config.default.get(entrypoint))
            .cloned()
    }

    pub(crate) fn for_image(&mut self, image: &str, entrypoint: &str) -> Result<Option<&Registry>> {
        match self.path_for(image, entrypoint) {
            Some(p) => {
                let reg = self.load(&p)?;
                if reg.entrypoint != entrypoint {
                    bail!(
                        "{} describes {}, but is configured for {entrypoint} of image {image}",
                        p.display(),
                        reg.entrypoint
                    );
                }
                Ok(Some(reg))
            }
            None => Ok(None),
        }
    }
}

/// A command line that failed, located for a reader.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Page (the data file's `model`).
    pub page: String,
    /// Cell id of the deployment.
    pub cell: String,
    /// Concurrencies of the point.
    pub concs: Vec<u32>,
    /// KV tier of the command set.
    pub tier: &'static str,
    /// Router of the command set.
    pub router: &'static str,
    /// `<n>. <process title>` within the command set.
    pub process: String,
    /// The image the command runs in.
    pub image: String,
    /// The entry point the command line runs (`sglang.launch_server`).
    pub entrypoint: String,
    /// Label of the registry it was checked against (release or commit).
    pub registry: String,
    /// Whether the program would refuse the line.
    pub severity: Severity,
    /// The option (or token) concerned.
    pub flag: String,
    /// What is wrong, and the fix when there is one.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c: Vec<String> = self.concs.iter().map(|c| format!("c{c}")).collect();
        write!(
            f,
            "{} · {} · {} · {} · {} · {}: {}: {}",
            self.page,
            self.cell,
            c.join("/"),
            self.tier,
            self.router,
            self.process,
            self.flag,
            self.message
        )
    }
}

/// Per (image, entry point): how many command lines parse.
#[derive(Debug, Clone, Serialize)]
pub struct ImageTally {
    /// The image.
    pub image: String,
    /// The entry point.
    pub entrypoint: String,
    /// Label of the registry (release or commit).
    pub registry: String,
    /// Command lines of this entry point in this image.
    pub lines: usize,
    /// Of those, lines with no error.
    pub parsed: usize,
}

/// A KV tier offered for an image that lacks its flags.
#[derive(Debug, Clone, Serialize)]
pub struct TierProblem {
    /// Page (the data file's `model`).
    pub page: String,
    /// Cell id of the deployment.
    pub cell: String,
    /// The deployment's image.
    pub image: String,
    /// The tier offered.
    pub tier: &'static str,
    /// The worker entry point whose registry lacks the flags.
    pub entrypoint: String,
    /// Label of that registry.
    pub registry: String,
    /// The tier's flags the registry does not have.
    pub missing: Vec<String>,
}

impl std::fmt::Display for TierProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} · {}: tier `{}` is offered, but image {} ({} {}) has no {}; list `{}` under kv.unavailable with the reason",
            self.page,
            self.cell,
            self.tier,
            self.image,
            self.entrypoint,
            self.registry,
            self.missing.join(", "),
            self.tier
        )
    }
}

/// Links and anchors of the built site.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LinkReport {
    /// HTML pages checked.
    pub pages: usize,
    /// Internal links followed.
    pub links: usize,
    /// Ids found (distinct per page).
    pub anchors: usize,
    /// Each broken link or repeated id, located by page.
    pub problems: Vec<String>,
}

/// Everything `check` found; [`CheckReport::ok`] says whether it passes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    /// Per image and entry point: command lines that parse.
    pub images: Vec<ImageTally>,
    /// Command lines the program would refuse.
    pub failures: Vec<Finding>,
    /// Accepted, but worth knowing: deprecated, abbreviated, not a built-in value.
    pub warnings: Vec<Finding>,
    /// Command lines of checked entry points for which no registry is configured.
    pub unconfigured: Vec<String>,
    /// KV tiers offered for an image that lacks their flags.
    pub tiers: Vec<TierProblem>,
    /// Links and anchors of the built site.
    pub links: LinkReport,
}

impl CheckReport {
    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
            && self.unconfigured.is_empty()
            && self.tiers.is_empty()
            && self.links.problems.is_empty()
    }

    /// The human-readable report.
    pub fn text(&self, verbose: bool) -> String {
        let mut out = String::from("Command lines against the flag registry of their image:\n");
        for t in &self.images {
            out.push_str(&format!(
                "  image {} · {} ({}): {}/{} command lines parse\n",
                t.image, t.entrypoint, t.registry, t.parsed, t.lines
            ));
        }
        for u in &self.unconfigured {
            out.push_str(&format!("  no registry: {u}\n"));
        }
        for f in &self.failures {
            out.push_str(&format!("  FAIL {f}\n"));
        }
        if verbose {
            for w in &self.warnings {
                out.push_str(&format!("  warning {w}\n"));
            }
        } else if !self.warnings.is_empty() {
            let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
            for w in &self.warnings {
                *grouped
                    .entry(format!(
                        "{} ({} {}): {}: {}",
                        w.image, w.entrypoint, w.registry, w.flag, w.message
                    ))
                    .or_default() += 1;
            }
            for (w, n) in grouped {
                out.push_str(&format!("  warning ×{n}: {w}\n"));
            }
        }
        out.push_str("KV tiers against each image:\n");
        if self.tiers.is_empty() {
            out.push_str("  every offered tier's flags exist in its image\n");
        }
        for t in &self.tiers {
            out.push_str(&format!("  FAIL {t}\n"));
        }
        out.push_str(&format!(
            "Links and anchors: {} pages, {} internal links, {} anchors",
            self.links.pages, self.links.links, self.links.anchors
        ));
        if self.links.problems.is_empty() {
            out.push_str(": all resolve, ids unique per page\n");
        } else {
            out.push('\n');
            for p in &self.links.problems {
                out.push_str(&format!("  FAIL {p}\n"));
            }
        }
        out.push_str(if self.ok() {
            "check passed\n"
        } else {
            "check failed\n"
        });
        out
    }
}

/// Checks the command lines of one command set.
fn check_set(
    page: &str,
    set: &CommandSet,
    registries: &mut Registries,
    tallies: &mut BTreeMap<(String, String), ImageTally>,
    report: &mut CheckReport,
) -> Result<()> {
    for (pi, process) in set.processes.iter().enumerate() {
        for words in shell_commands(&process.command) {
            let Some((entrypoint, args)) = entrypoint_of(&words) else {
                continue;
            };
            if !ENTRYPOINTS.contains(&entrypoint.as_str()) {
                continue;
            }
            let image = set.image.image.clone();
            let Some(reg) = registries.for_image(&image, &entrypoint)? else {
                let msg = format!(
                    "image {image} · {entrypoint}: add a registry under [preprocessor.agentx.registries] in book.toml"
                );
                if !report.unconfigured.contains(&msg) {
                    report.unconfigured.push(msg);
                }
                continue;
            };
            let problems: Vec<ArgProblem> = check_args(reg, args);
            let tally = tallies
                .entry((image.clone(), entrypoint.clone()))
                .or_insert_with(|| ImageTally {
                    image: image.clone(),
                    entrypoint: entrypoint.clone(),
                    registry: reg.label.clone(),
                    lines: 0,
                    parsed: 0,
                });
            tally.lines += 1;
            if !problems.iter().any(|p| p.severity == Severity::Error) {
                tally.parsed += 1;
            }
            for p in problems {
                let finding = Finding {
                    page: page.to_string(),
                    cell: set.cell_id.clone(),
                    concs: set.concs.clone(),
                    tier: set.tier.id(),
                    router: set.router.id(),
                    process: format!("{}. {}", pi + 1, process.title),
                    image: image.clone(),
                    entrypoint: entrypoint.clone(),
                    registry: reg.label.clone(),
                    severity: p.severity,
                    flag: p.flag,
                    message: p.message,
                };
                match finding.severity {
                    Severity::Error => report.failures.push(finding),
                    Severity::Warning => report.warnings.push(finding),
                }
            }
        }
    }
    Ok(())
}

/// Checks that each offered KV tier's flags exist for the image's worker entry points.
fn check_tiers(lib: &Library, registries: &mut Registries, report: &mut CheckReport) -> Result<()> {
    for (page, decoded) in lib.pages() {
        for d in &decoded.deployments {
            for tier in [KvTier::Hicache, KvTier::Mooncake] {
                if !d.available.contains(&tier) {
                    continue;
                }
                let donor = match tier {
                    KvTier::Hicache => d.hicache.as_ref(),
                    KvTier::Mooncake => decoded.mooncake.as_ref(),
                    KvTier::None => None,
                };
                let args: &[Arg] = donor.map_or(&[], |k| &k.args);
                for ep in d.routers.iter().map(|r| r.worker_entry_point()) {
                    let Some(reg) = registries.for_image(&d.image.image, ep)? else {
                        continue;
                    };
                    let missing: Vec<String> = args
                        .iter()
                        .filter(|a| is_kv_flag(&a.flag) && !reg.contains(&a.flag))
                        .map(|a| a.flag.clone())
                        .collect();
                    if !missing.is_empty() {
                        report.tiers.push(TierProblem {
                            page: page.to_string(),
                            cell: d.cell_id.clone(),
                            image: d.image.image.clone(),
                            tier: tier.id(),
                            entrypoint: ep.to_string(),
                            registry: reg.label.clone(),
                            missing,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks command lines and tiers of every page in a library.
pub(crate) fn check_library(lib: &Library, registries: &mut Registries) -> Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut tallies = BTreeMap::new();
    for (page, decoded) in lib.pages() {
        for set in decoded.command_sets() {
            check_set(page, set, registries, &mut tallies, &mut report)?;
        }
    }
    report.images = tallies.into_values().collect();
    check_tiers(lib, registries, &mut report)?;
    Ok(report)
}

/// `check`: builds the book in memory and runs every check.
pub fn run(root: &Path) -> Result<CheckReport> {
    let dir = BookDir::open(root)?;
    let config = RegistryConfig::from_toml(dir.agentx.registries.as_ref())?;
    let mut registries = Registries::new(root, config)?;
    let mut lib = Some(Library::load(root, &dir.agentx.data_dir)?);
    if let Some(l) = &lib
        && !l.failures().is_empty()
    {
        bail!(
            "data files failed to load:\n  {}",
            l.failures().join("\n  ")
        );
    }
    let site = Site::expand(dir, &mut lib)?;
    let files = site.render_files(&BuildOptions::default())?;
    let (stats, problems): (LinkStats, _) = links::check(&files, &["404.html"]);
    let mut report = check_library(lib.as_ref().expect("loaded above"), &mut registries)?;
    report.links = LinkReport {
        pages: stats.pages,
        links: stats.links,
        anchors: stats.anchors,
        problems: problems.iter().map(|p| p.to_string()).collect(),
    };
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        let text = "A=1 \\\nB=\"http://$X:1\" \\\npython3 -m sglang.launch_server \\\n  --a '{\"k\":true}' \\\n  --b 'it'\\''s' \\\n  --c \"\" x\\ y\nulimit -n 1 # comment\n";
        let cmds = shell_commands(text);
        assert_eq!(
            cmds,
            vec![
                vec![
                    "A=1",
                    "B=http://$X:1",
                    "python3",
                    "-m",
                    "sglang.launch_server",
                    "--a",
                    "{\"k\":true}",
                    "--b",
                    "it's",
                    "--c",
                    "",
                    "x y"
                ],
                vec!["ulimit", "-n", "1"],
            ]
        );
        let (ep, args) = entrypoint_of(&cmds[0]).unwrap();
        assert_eq!(ep, "sglang.launch_server");
        assert_eq!(args.len(), 7);
        assert_eq!(entrypoint_of(&cmds[1]).unwrap().0, "ulimit");
        let nginx = shell_commands("nginx -c nginx.conf -g 'daemon off;'");
        assert_eq!(
            nginx,
            vec![vec!["nginx", "-c", "nginx.conf", "-g", "daemon off;"]]
        );
    }
}
