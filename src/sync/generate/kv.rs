//! KV tiers a cell offers, and where its HiCache settings come from
//! (docs/sync.md, "KV tiers"): a cell that measured HiCache is its own
//! donor; otherwise the page's measured HiCache worker of the same hardware,
//! or of other hardware when its settings are ratio-based (a host size does
//! not carry over); several candidates need the manifest's `hicache-donor`.
//! Mooncake needs the page's donor block (kv/mooncake.rs) and an image whose
//! registry (when the manifest names one) has the external linker.
//! Uses `data` and `sync::*`.

pub(in crate::sync) mod mooncake;

use std::collections::BTreeMap;
use std::path::Path;

use super::cells::CellDraft;
use crate::data::{Arg, KvTier, RunStatus};
use crate::sync::input::lane_manifest::{LaneManifest, MooncakeFrom};
use crate::sync::output::previous::PreviousPage;

pub(in crate::sync) const NO_HICACHE: &str = "no verified HiCache settings for this model yet";
pub(in crate::sync) const NO_LINKER: &str =
    "this image's SGLang build predates --enable-unified-cache-external-linker";
pub(in crate::sync) const NO_MOONCAKE_DONOR: &str =
    "no verified Mooncake settings on this page (the manifest turns the Mooncake tier off)";
const LINKER: &str = "--enable-unified-cache-external-linker";

#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) struct Donor {
    pub args: Vec<Arg>,
    pub donor: String,
    pub donor_hardware: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) struct KvFacts {
    pub available: Vec<KvTier>,
    pub unavailable: BTreeMap<KvTier, String>,
    pub hicache: Option<Donor>,
}

/// A measured HiCache setting on the page.
struct Candidate<'a> {
    key: &'a str,
    hw: &'a str,
    args: &'a [Arg],
    /// The lane is verified (on main or on its PR), so it can vouch for settings.
    verified: bool,
}

impl Candidate<'_> {
    fn size_based(&self) -> bool {
        self.args.iter().any(|a| a.flag == "--hicache-size")
    }
}

/// KV facts for every cell of a page, in order. `mooncake`: the page has a
/// donor block. A cell that would offer the Mooncake tier without one is an
/// error, unless the manifest turns the tier off.
pub(in crate::sync) fn facts(
    cells: &[CellDraft],
    mooncake: bool,
    m: &LaneManifest,
    prev: Option<&PreviousPage>,
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
                    verified: c.lane.status != RunStatus::InProgress,
                })
        })
        .collect();
    let mut out = Vec::new();
    for c in cells {
        let mut unavailable = BTreeMap::new();
        let hicache = donor(c, &candidates, prev)?;
        if hicache.is_none() {
            unavailable.insert(KvTier::Hicache, NO_HICACHE.to_string());
        }
        if m.kv_mooncake == MooncakeFrom::None {
            unavailable.insert(KvTier::Mooncake, NO_MOONCAKE_DONOR.to_string());
        } else if !image_has_linker(&c.image, m, notes)? {
            unavailable.insert(KvTier::Mooncake, NO_LINKER.to_string());
        } else if !mooncake {
            return Err(format!(
                "{}: lane `{}`: cell `{}` offers the Mooncake tier (its image has the external \
                 linker), but no lane of this run measured Mooncake and no page of --previous \
                 carries the donor block (kvMooncake); sync the donor lane with it, pass \
                 --previous with the current pages, or set [defaults] kv-mooncake = \"none\"",
                c.lane.at, c.lane.config_key, c.id
            ));
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

/// Where a cell's HiCache settings come from (docs/sync.md, "KV tiers").
fn donor(
    c: &CellDraft,
    all: &[Candidate<'_>],
    prev: Option<&PreviousPage>,
) -> Result<Option<Donor>, String> {
    let make = |k: &Candidate<'_>| Donor {
        args: k.args.to_vec(),
        donor: k.key.to_string(),
        donor_hardware: k.hw.to_string(),
    };
    if let Some(p) = c.points.iter().find(|p| p.kv == KvTier::Hicache) {
        // A lane still in progress vouches for nothing: a verified lane of
        // the same hardware that measured the same settings is the donor.
        let verified = all
            .iter()
            .find(|k| k.verified && k.hw == c.hw && k.args == p.hicache_args.as_slice());
        return Ok(Some(match verified {
            Some(k) if c.lane.status == RunStatus::InProgress => make(k),
            _ => Donor {
                args: p.hicache_args.clone(),
                donor: c.lane.config_key.clone(),
                donor_hardware: c.hw.clone(),
            },
        }));
    }
    if let Some(key) = &c.lane.hicache_donor {
        if let Some(k) = all.iter().find(|k| k.key == key) {
            return Ok(Some(make(k)));
        }
        return previous_donor(key, prev).map(Some).ok_or_else(|| {
            format!(
                "{}: lane `{}`: hicache-donor `{key}` measured no HiCache on this page, and no \
                 page of --previous shows a cell of it that did",
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

/// A lane this sync does not render, as the previous page shows it: a cell
/// of it that is its own HiCache donor (it measured those settings).
fn previous_donor(key: &str, prev: Option<&PreviousPage>) -> Option<Donor> {
    let prev = prev?;
    prev.loaded.data.cells.iter().find_map(|cell| {
        let h = cell.kv.hicache.as_ref()?;
        (cell.config_key == key && h.donor == key).then(|| Donor {
            args: h.args.clone(),
            donor: key.to_string(),
            donor_hardware: h.donor_hardware.clone(),
        })
    })
}

/// Whether the image's registry lists the external linker; `true` (with a
/// note) when the manifest names no registry for the image.
fn image_has_linker(
    image: &str,
    m: &LaneManifest,
    notes: &mut Vec<String>,
) -> Result<bool, String> {
    let no_digest = image.split('@').next().unwrap_or(image);
    let entry = m.images.get(image).or_else(|| m.images.get(no_digest));
    if let Some(stated) = entry.and_then(|i| i.external_linker) {
        return Ok(stated);
    }
    let registry = entry.and_then(|i| i.registry.as_deref());
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
    let text = crate::sync::input::capped::read_to_string(path)
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
