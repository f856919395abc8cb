//! `[preprocessor.agentx.registries]`: which flag registry describes which
//! image's entry point, loaded on first use.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use super::registry::Registry;
use crate::util::fs::Bounds;

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
    /// Registry files are read inside the book, like everything else.
    bounds: Bounds,
    config: RegistryConfig,
    loaded: HashMap<PathBuf, Registry>,
}

impl Registries {
    pub(crate) fn new(root: &Path, bounds: Bounds, config: RegistryConfig) -> Result<Registries> {
        let mut r = Registries {
            root: root.to_path_buf(),
            bounds,
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
            let text = self
                .bounds
                .read_to_string(&path)
                .with_context(|| format!("flag registry {}", rel.display()))?;
            let reg = Registry::parse(&text, &path)?;
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
