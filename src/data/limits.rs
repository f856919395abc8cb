//! Bounds on the shape of one data file, so that a file from a pull request
//! or a recipe cannot make a build take unbounded time, memory or disk: a
//! value is printed in every command set of its deployment, and a
//! deployment's sets multiply with its points, so a file of a few MB could
//! make a site of many GB (one 50 MB flag value took 5.5 GB of memory;
//! 30,000 points of one deployment did not fit in 7.4 GB).
//!
//! Each bound is far above the real pages (the guide's chapter on bounded
//! work, `content/guide/bounded-work.md`, gives the figures) and fixed:
//! nothing real comes near, and a page that did would read better split. Every refusal names the JSON path, the count, the
//! bound and the fix.

use super::schema::AgentxData;

/// Deployments (`cells`) of one page. The largest real page has 50; one
/// model with 1,000 deployments still builds.
pub(crate) const MAX_DEPLOYMENTS: usize = 1_000;
/// Points of one deployment. The real pages have at most 12; every point is
/// up to six command sets on the deployment's page.
pub(crate) const MAX_POINTS: usize = 256;
/// Points of one page, all deployments together (real pages: at most 83).
pub(crate) const MAX_PAGE_POINTS: usize = 10_000;
/// Concurrencies of one point (real: at most 6); they name every set.
pub(crate) const MAX_CONCURRENCIES: usize = 64;
/// Bytes of one string, a value or a key (real: config files of 3.4 KB at
/// most, everything else under 250 bytes).
pub(crate) const MAX_STRING_BYTES: usize = 64 * 1024;

/// The refusal of `s` at `path`, a string longer than [`MAX_STRING_BYTES`].
pub(crate) fn check_length(s: &str, what: &str, path: &dyn Fn() -> String) -> Result<(), String> {
    if s.len() <= MAX_STRING_BYTES {
        return Ok(());
    }
    let at = path();
    let at = if at.is_empty() { "the top level" } else { &at };
    Err(format!(
        "{at}: {what} of {} bytes, more than the {MAX_STRING_BYTES} bytes (64 KiB) one string \
         may have (mdbook-agentx's bound on one value: it is printed in every command set of its \
         deployment); shorten it",
        s.len()
    ))
}

/// The refusal of a page with more deployments, points or concurrencies
/// than the bounds allow.
pub(crate) fn check_counts(data: &AgentxData) -> Result<(), String> {
    let cells = data.cells.len();
    if cells > MAX_DEPLOYMENTS {
        return Err(format!(
            "cells: {cells} deployments, more than the {MAX_DEPLOYMENTS} one page may have \
             (mdbook-agentx's bound on deployments per model); split them over several data files"
        ));
    }
    let mut page_points = 0;
    for (ci, cell) in data.cells.iter().enumerate() {
        let points = cell.points.len();
        if points > MAX_POINTS {
            return Err(format!(
                "cells[{ci}].points: {points} points, more than the {MAX_POINTS} one deployment may \
                 have (mdbook-agentx's bound on points per deployment); split the deployment"
            ));
        }
        page_points += points;
        if page_points > MAX_PAGE_POINTS {
            return Err(format!(
                "cells: more than {MAX_PAGE_POINTS} points in all by cells[{ci}] \
                 (mdbook-agentx's bound on points per page); split the deployments over several \
                 data files"
            ));
        }
        for (pi, point) in cell.points.iter().enumerate() {
            let concs = point.concs.len();
            if concs > MAX_CONCURRENCIES {
                return Err(format!(
                    "cells[{ci}].points[{pi}].concs: {concs} concurrencies, more than the \
                     {MAX_CONCURRENCIES} one point may list (mdbook-agentx's bound); split the point"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::data::{Loaded, parse_str};

    /// The test fixture `mini.json`, changed by `edit`, loaded.
    fn load_edited(edit: impl FnOnce(&mut Value)) -> Result<Loaded, String> {
        let text = crate::test_support::read(&crate::test_support::fixture("data/mini.json"));
        let mut data: Value = serde_json::from_str(&text).unwrap();
        edit(&mut data);
        parse_str(&data.to_string(), std::path::Path::new("mini.json"))
            .map_err(|e| format!("{e:#}"))
    }

    /// `n` copies of the first cell (ids made unique) as the page's cells.
    fn cells(data: &mut Value, n: usize) {
        let first = data["cells"][0].clone();
        data["cells"] = (0..n)
            .map(|k| {
                let mut c = first.clone();
                c["id"] = json!(format!("mini#{k}"));
                c
            })
            .collect();
    }

    /// `n` copies of the first point of the first cell as its points.
    fn points(data: &mut Value, n: usize) {
        let first = data["cells"][0]["points"][0].clone();
        data["cells"][0]["points"] = (1..=n)
            .map(|c| {
                let mut p = first.clone();
                p["concs"] = json!([c]);
                p
            })
            .collect();
    }

    #[test]
    fn counts_up_to_each_bound_load_and_one_more_is_refused() {
        type Edit = fn(&mut Value, usize);
        let table: &[(Edit, usize, &str)] = &[
            (
                cells,
                MAX_DEPLOYMENTS,
                "mini.json: cells: 1001 deployments, more than the 1000 one page may have \
                 (mdbook-agentx's bound on deployments per model)",
            ),
            (
                points,
                MAX_POINTS,
                "mini.json: cells[0].points: 257 points, more than the 256 one deployment may have",
            ),
            (
                |data, n| data["cells"][0]["points"][0]["concs"] = json!(vec![4; n]),
                MAX_CONCURRENCIES,
                "mini.json: cells[0].points[0].concs: 65 concurrencies, more than the 64",
            ),
            (
                // 40 deployments of 250 points make 10,000; one more is refused.
                |data, n| {
                    points(data, 250);
                    cells(data, 40);
                    let mut extra = data["cells"][0]["points"][0].clone();
                    extra["concs"] = json!([251]);
                    let last = data["cells"][39]["points"].as_array_mut().unwrap();
                    last.extend((MAX_PAGE_POINTS..n).map(|_| extra.clone()));
                },
                MAX_PAGE_POINTS,
                "mini.json: cells: more than 10000 points in all by cells[39] \
                 (mdbook-agentx's bound on points per page)",
            ),
        ];
        for (edit, bound, want) in table {
            load_edited(|d| edit(d, *bound)).unwrap_or_else(|e| panic!("{bound}: {e}"));
            let e = load_edited(|d| edit(d, bound + 1)).unwrap_err();
            assert!(e.starts_with(want), "{e}");
        }
    }

    #[test]
    fn long_strings_are_refused_with_their_path() {
        let long = "a".repeat(MAX_STRING_BYTES + 1);
        let fits = "a".repeat(MAX_STRING_BYTES);
        let value = |s: &str| {
            let s = s.to_string();
            move |d: &mut Value| {
                d["cells"][0]["routers"]["sglang"]["blocks"][0]["args"][0][1] = json!(s)
            }
        };
        load_edited(value(&fits)).unwrap();
        let e = load_edited(value(&long)).unwrap_err();
        let want = "mini.json: cells[0].routers.sglang.blocks[0].args[0][1]: a string of 65537 \
                    bytes, more than the 65536 bytes (64 KiB) one string may have \
                    (mdbook-agentx's bound on one value: it is printed in every command set of \
                    its deployment); shorten it";
        assert!(e.starts_with(want), "{e}");
        // serde_json adds where the string ends.
        assert!(e[want.len()..].starts_with(" at line 1 column "), "{e}");
        let e = load_edited(|d| d["extra"] = json!({ long.clone(): 1 })).unwrap_err();
        assert!(
            e.starts_with("mini.json: extra: a key of 65537 bytes"),
            "{e}"
        );
        let e = load_edited(|d| d[long.clone()] = json!(1)).unwrap_err();
        assert!(
            e.starts_with("mini.json: the top level: a key of 65537 bytes"),
            "{e}"
        );
    }
}
