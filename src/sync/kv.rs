//! KV tiers a cell offers, and where its HiCache settings come from
//! (research/generator.md §2.5): a cell that measured HiCache is its own
//! donor; otherwise the page's measured HiCache worker of the same hardware,
//! or of other hardware when its settings are ratio-based (a host size does
//! not carry over); several candidates need the manifest's `hicache-donor`.
//! Mooncake needs the page's carried-over donor block and an image whose
//! registry (when the manifest names one) has the external linker.
//! Uses `data` and `sync::*`.

use std::collections::BTreeMap;
use std::path::Path;

use super::cells::CellDraft;
use super::lane_manifest::LaneManifest;
use crate::data::{Arg, KvTier};

pub(super) const NO_HICACHE: &str = "no verified HiCache settings for this model yet";
pub(super) const NO_LINKER: &str =
    "this image's SGLang build predates --enable-unified-cache-external-linker";
pub(super) const NO_MOONCAKE_DONOR: &str =
    "no verified Mooncake settings on this page (the previous data file has no kvMooncake block)";
const LINKER: &str = "--enable-unified-cache-external-linker";

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Donor {
    pub args: Vec<Arg>,
    pub donor: String,
    pub donor_hardware: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct KvFacts {
    pub available: Vec<KvTier>,
    pub unavailable: BTreeMap<KvTier, String>,
    pub hicache: Option<Donor>,
}

/// A measured HiCache setting on the page.
struct Candidate<'a> {
    key: &'a str,
    hw: &'a str,
    args: &'a [Arg],
}

impl Candidate<'_> {
    fn size_based(&self) -> bool {
        self.args.iter().any(|a| a.flag == "--hicache-size")
    }
}

/// KV facts for every cell of a page, in order. `mooncake`: the page has a donor block.
pub(super) fn facts(
    cells: &[CellDraft],
    mooncake: bool,
    m: &LaneManifest,
    notes: &mut Vec<String>,
) -> Result<Vec<KvFacts>, String> {
    let candidates: Vec<Candidate<'_>> = cells
        .iter()
        .filter_map(|c| {
            c.points
                .iter()
                .find(|p| p.kv == KvTier::Hicache)
                .map(|p| Candidate {
                    key: &c.lane.config_key,
                    hw: &c.hw,
                    args: &p.hicache_args,
                })
        })
        .collect();
    let mut out = Vec::new();
    for c in cells {
        let mut unavailable = BTreeMap::new();
        let hicache = donor(c, &candidates)?;
        if hicache.is_none() {
            unavailable.insert(KvTier::Hicache, NO_HICACHE.to_string());
        }
        if !mooncake {
            unavailable.insert(KvTier::Mooncake, NO_MOONCAKE_DONOR.to_string());
        } else if !image_has_linker(&c.image, m, notes)? {
            unavailable.insert(KvTier::Mooncake, NO_LINKER.to_string());
        }
        let available = KvTier::ALL
            .into_iter()
            .filter(|t| !unavailable.contains_key(t))
            .collect();
        out.push(KvFacts {
            available,
            unavailable,
            hicache,
        });
    }
    Ok(out)
}

fn donor(c: &CellDraft, all: &[Candidate<'_>]) -> Result<Option<Donor>, String> {
    let make = |k: &Candidate<'_>| Donor {
        args: k.args.to_vec(),
        donor: k.key.to_string(),
        donor_hardware: k.hw.to_string(),
    };
    if let Some(p) = c.points.iter().find(|p| p.kv == KvTier::Hicache) {
        return Ok(Some(Donor {
            args: p.hicache_args.clone(),
            donor: c.lane.config_key.clone(),
            donor_hardware: c.hw.clone(),
        }));
    }
    if let Some(key) = &c.lane.hicache_donor {
        return all
            .iter()
            .find(|k| k.key == key)
            .map(|k| Some(make(k)))
            .ok_or_else(|| {
                format!(
                    "{}: lane `{}`: hicache-donor `{key}` measured no HiCache on this page",
                    c.lane.at, c.lane.config_key
                )
            });
    }
    let same: Vec<&Candidate<'_>> = all.iter().filter(|k| k.hw == c.hw).collect();
    let pool: Vec<&Candidate<'_>> = if same.is_empty() {
        all.iter().filter(|k| !k.size_based()).collect()
    } else {
        same
    };
    let mut distinct: Vec<&Candidate<'_>> = Vec::new();
    for k in pool {
        if !distinct.iter().any(|d| d.args == k.args) {
            distinct.push(k);
        }
    }
    match distinct.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(make(one))),
        many => Err(format!(
            "{}: lane `{}`: cell `{}` could take HiCache settings from {}; choose one with \
             `hicache-donor = \"<config key>\"`",
            c.lane.at,
            c.lane.config_key,
            c.id,
            many.iter()
                .map(|k| format!("`{}` ({})", k.key, k.hw))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Whether the image's registry lists the external linker; `true` (with a
/// note) when the manifest names no registry for the image.
fn image_has_linker(
    image: &str,
    m: &LaneManifest,
    notes: &mut Vec<String>,
) -> Result<bool, String> {
    let no_digest = image.split('@').next().unwrap_or(image);
    let registry = m
        .images
        .get(image)
        .or_else(|| m.images.get(no_digest))
        .and_then(|i| i.registry.as_deref());
    let Some(path) = registry else {
        let note = format!(
            "Mooncake offered for image {} without checking: the manifest names no flag registry \
             for it",
            crate::util::escape::code(no_digest)
        );
        if !notes.contains(&note) {
            notes.push(note);
        }
        return Ok(true);
    };
    registry_has(path, LINKER)
}

fn registry_has(path: &Path, flag: &str) -> Result<bool, String> {
    #[derive(serde::Deserialize)]
    struct Registry {
        flags: Vec<Flag>,
    }
    #[derive(serde::Deserialize)]
    struct Flag {
        name: String,
        #[serde(default)]
        aliases: Vec<String>,
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("flag registry {}: {e}", path.display()))?;
    let json = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let reg: Registry =
        serde_json::from_str(json).map_err(|e| format!("flag registry {}: {e}", path.display()))?;
    Ok(reg
        .flags
        .iter()
        .any(|f| f.name == flag || f.aliases.iter().any(|a| a == flag)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registries_tell_whether_the_linker_exists() {
        let flags = Path::new(env!("CARGO_MANIFEST_DIR")).join("flags");
        let has = |f: &str| registry_has(&flags.join(f), LINKER).unwrap();
        assert!(has("sglang.launch_server@v0.5.23.json"));
        assert!(!has("sglang.launch_server@v0.5.19.json"));
        assert!(
            registry_has(&flags.join("nope.json"), LINKER)
                .unwrap_err()
                .contains("nope.json")
        );
    }
}
