//! What a sync writes: the pages built from the lanes' cells (rendered and
//! carried over) with their Mooncake donor block, the checks that keep a
//! maintainer's mistake from replacing a page (a page name that moves a
//! page's lanes elsewhere, a second file holding the same page), and the
//! writing itself: every file staged, then renamed into place. Uses `data`,
//! `util` (escaping) and `sync::*`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::page::{self, PageOut};
use super::previous::PreviousPage;
use crate::sync::generate::lane::{LaneResult, Outcome};
use crate::sync::input::lane_manifest::LaneManifest;
use crate::sync::{SyncFailure, SyncOptions, generate::cells, generate::kv};
use crate::util::escape::code;

/// Every page of the manifest: its rendered and carried cells, its Mooncake
/// donor block, checked by the round trip.
pub(in crate::sync) fn build_pages(
    m: &LaneManifest,
    results: &[LaneResult],
    previous: &BTreeMap<String, PreviousPage>,
    options: &SyncOptions,
    notes: &mut Vec<String>,
) -> Result<Vec<PageOut>, SyncFailure> {
    let has_previous = options.previous.is_some();
    let format = options.format;
    let mut pages = Vec::new();
    let mut errors = Vec::new();
    for page in m.pages() {
        let mut drafts = Vec::new();
        let mut carried = Vec::new();
        for r in results.iter().filter(|r| r.lane.page == page) {
            match &r.outcome {
                Outcome::Rendered(_) => match cells::group(r, m) {
                    Ok(c) => drafts.extend(c),
                    Err(e) => errors.push(e),
                },
                Outcome::CarriedOver if !has_previous => errors.push(format!(
                    "{}: lane `{}`: carry-over needs --previous",
                    r.lane.at, r.lane.config_key
                )),
                Outcome::CarriedOver => carried.push(r.lane.config_key.clone()),
            }
        }
        if !errors.is_empty() {
            continue;
        }
        let donor = match kv::mooncake::donor(
            &m.kv_mooncake,
            results,
            &page,
            previous,
            &m.rules.mooncake_env,
        ) {
            Ok(d) => d,
            Err(e) => {
                errors.push(format!("page `{page}`: {e}"));
                continue;
            }
        };
        if let Some(d) = &donor {
            // Report notes are Markdown: data text goes through the escaping module.
            let note = match &d.source {
                kv::mooncake::Source::Lane(key) => format!(
                    "page {}: the Mooncake donor block comes from lane {} of this run",
                    code(&page),
                    code(key)
                ),
                kv::mooncake::Source::Previous(file) => format!(
                    "page {}: the Mooncake donor block is carried from {}",
                    code(&page),
                    code(file)
                ),
            };
            notes.push(note);
        }
        let ctx = page::PageContext {
            prev: previous.get(&page),
            kv_mooncake: donor.map(|d| d.block),
            format,
        };
        match page::build(&page, drafts, &carried, ctx, m, notes) {
            Ok(p) => pages.push(p),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(pages)
    } else {
        Err(SyncFailure::new(errors))
    }
}

/// Another data file in `out` that holds one of the pages under a different
/// name would leave the page twice: refused before anything is written.
fn check_no_twins(out: &Path, pages: &[PageOut]) -> Result<(), String> {
    if !out.is_dir() {
        return Ok(());
    }
    let files = crate::data::data_files_in(out).map_err(|e| format!("{e:#}"))?;
    for f in files {
        let Ok(text) = crate::sync::input::capped::read_to_string(&f) else {
            continue;
        };
        let Ok(page) = crate::data::page_name(&text, &f) else {
            continue;
        };
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
        if let Some(p) = pages.iter().find(|p| p.page == page)
            && name.as_deref() != Some(p.file_name.as_str())
        {
            return Err(format!(
                "{} already holds page `{page}`; writing {} beside it would leave the page twice \
                 (remove it, or write to another --out)",
                f.display(),
                p.file_name
            ));
        }
    }
    Ok(())
}

/// Writes every page to a temporary file beside its target first, then renames
/// them all: a failed write leaves the directory as it was (the temporary
/// files are removed when dropped).
pub(in crate::sync) fn write_pages(out: &Path, pages: &[PageOut]) -> Result<Vec<PathBuf>, String> {
    check_no_twins(out, pages)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut staged = Vec::new();
    for p in pages {
        let target = out.join(&p.file_name);
        let cannot = |e: std::io::Error| format!("cannot write {}: {e}", target.display());
        let prefix = format!(".{}.", p.file_name);
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix);
        // The mode any new file gets (umask applies), not tempfile's private one.
        #[cfg(unix)]
        b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let mut tmp = b.tempfile_in(out).map_err(cannot)?;
        tmp.write_all(p.text.as_bytes()).map_err(cannot)?;
        staged.push((tmp, target));
    }
    let mut written = Vec::new();
    for (tmp, target) in staged {
        tmp.persist(&target)
            .map_err(|e| format!("cannot write {}: {}", target.display(), e.error))?;
        written.push(target);
    }
    Ok(written)
}

/// A page this sync writes that `--previous` does not hold, while a page of
/// `--previous` holds some of its lanes or has a name a typo away from it
/// (case, punctuation, up to two letters): a renamed page or a typo in the
/// manifest's `page =`. Refused unless asked for, since the new file would
/// stand beside the old page, or replace it, with the same lanes.
pub(in crate::sync) fn check_renames(
    pages: &[PageOut],
    previous: &BTreeMap<String, PreviousPage>,
    allowed: bool,
) -> Result<(), Vec<String>> {
    if allowed {
        return Ok(());
    }
    let mut errors = Vec::new();
    for p in pages.iter().filter(|p| !previous.contains_key(&p.page)) {
        let keys: BTreeSet<&str> = p.data.cells.iter().map(|c| c.config_key.as_str()).collect();
        for (name, q) in previous {
            let shared: BTreeSet<&str> = q
                .loaded
                .data
                .cells
                .iter()
                .map(|c| c.config_key.as_str())
                .filter(|k| keys.contains(k))
                .collect();
            let why = if !shared.is_empty() {
                let lanes: Vec<String> = shared.iter().map(|k| format!("`{k}`")).collect();
                format!(
                    "holds its lanes {} under the page name `{name}`",
                    lanes.join(", ")
                )
            } else if close_names(&p.page, name) {
                format!("holds page `{name}`, a name a typo away")
            } else {
                continue;
            };
            errors.push(format!(
                "page `{}` is not in --previous, but {} {why}: a renamed page, or a typo in the \
                 manifest's `page =`? Fix the page name, or pass --allow-rename to write `{}` as \
                 a new page",
                p.page,
                q.path.display(),
                p.page
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Names equal but for case and punctuation, or two letters apart.
fn close_names(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    edit_distance(&norm(a), &norm(b)) <= 2
}

/// Levenshtein distance.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_typo_apart() {
        assert!(close_names("Demo-30b", "Demo-30B"));
        assert!(close_names("Qwen3.8-Flash-Nxt", "Qwen3.8-Flash-Next"));
        assert!(close_names("DeepSeek-V4.1", "DeepSeek-V4_1"));
        assert!(!close_names("DeepSeek-V4", "Qwen3.5"));
        assert!(!close_names("GLM-5.2", "GLM-4.5-Air"));
    }
}
