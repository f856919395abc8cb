//! The search index: what a reader knows about a launch — model, hardware,
//! checkpoint, deployment, concurrency, KV tier, router, status, cell id,
//! page and heading text, and every flag and environment name a command set
//! uses — as whole lower-case tokens ([`tokens`]).
//!
//! The index is one script (`search-index.js`) that pages inject on the
//! first use of the search box (a script, not a `fetch()`, so it loads from
//! `file://`); the single-file export inlines it as JSON. Compact by design:
//! tokens are numbers into one word list, the deployment's facts are stored
//! once for all its command sets, and sets with the same flags and
//! environment names share one token group.
//!
//! Shape (`theme/book.js` reads it):
//! ```text
//! { v: 1, w: [word…],
//!   p: [[title, url, anchorBase, model, status, titleTok, ctxTok, idTok, statusTok]…],  pages
//!   h: [[page, text, id, titleTok]…],                                       headings
//!   s: [[page, anchor, title, status, titleTok, ctxTok, idTok, group, router]…],  sets
//!   g: [[tok…]…] }                                                           flags, env, processes
//! ```
//! A set's context is its own (status, tier, router ids) plus its page's
//! title and context; its ids are its anchor plus its page's (the cell id).
//!
//! May use: `data` (routers), `decode`, `preprocessor`, `util`; of the
//! site: `pages` (headings, the overview rows).

mod tokens;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use self::tokens::{command_words, for_each_token};
use super::pages::page_html::{Heading, HeadingKind};
use crate::decode::Status;
use crate::preprocessor::{DeploymentSummary, SetSummary};
use crate::util::hash::FastMap;

/// The file of the index in a built site.
pub(crate) const SEARCH_INDEX: &str = "search-index.js";

/// Words → numbers.
#[derive(Debug, Clone, Default)]
struct Dictionary {
    words: Vec<String>,
    ids: FastMap<String, u32>,
}

impl Dictionary {
    /// The sorted, distinct token ids of `texts`.
    fn ids_of<'a>(&mut self, texts: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let mut ids = Vec::new();
        let mut scratch = String::new();
        for t in texts {
            for_each_token(t, &mut scratch, &mut |w| ids.push(self.id(w)));
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn id(&mut self, word: &str) -> u32 {
        if let Some(id) = self.ids.get(word) {
            return *id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.to_string());
        self.ids.insert(word.to_string(), id);
        id
    }
}

/// A deployment's facts, tokenized.
#[derive(Debug, Clone, PartialEq)]
struct DeploymentRecord {
    model: String,
    /// The chapter whose directive shows it.
    model_chapter: PathBuf,
    status: &'static str,
    status_tok: Vec<u32>,
    ctx: Vec<u32>,
    id: Vec<u32>,
    sets: Vec<SetRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct SetRecord {
    anchor: String,
    title: String,
    status: &'static str,
    router: &'static str,
    title_tok: Vec<u32>,
    ctx_tok: Vec<u32>,
    id_tok: Vec<u32>,
    group: u32,
}

/// What the search and the landing-page overview know of the book's
/// deployments, gathered while chapters expand (each set's words become
/// numbers at once, so a large book does not hold its command text).
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    dict: Dictionary,
    groups: Vec<Vec<u32>>,
    group_ids: FastMap<Vec<u32>, u32>,
    /// By deployment chapter (relative to the source dir).
    deployments: HashMap<PathBuf, DeploymentRecord>,
    /// Every deployment shown, in reading order, for the overview.
    pub(super) overview: Vec<super::pages::overview::OverviewRow>,
    /// Token ids of a command's words, by command text. Why: processes recur
    /// across a deployment's sets (frontends, nginx, NATS, unchanged
    /// workers), and tokenizing them again was a tenth of a sample build.
    command_ids: FastMap<String, Vec<u32>>,
}

/// Equal when the index and the overview they give are equal: the
/// lookups and the command cache are left out.
impl PartialEq for Catalog {
    fn eq(&self, other: &Catalog) -> bool {
        self.dict.words == other.dict.words
            && self.groups == other.groups
            && self.deployments == other.deployments
            && self.overview == other.overview
    }
}

/// Bound of `Catalog::command_ids` (entries); reaching it empties the cache.
/// Repeats come from within a deployment, so a small cache keeps them.
const MAX_CACHED_COMMANDS: usize = 2_000;

impl Catalog {
    /// Takes in the deployments one expanded chapter shows.
    pub(crate) fn add(&mut self, deployments: &[DeploymentSummary]) {
        self.merge(&Catalog::of(deployments));
    }

    /// The catalog of one chapter's deployments alone, numbered on its own:
    /// [`Catalog::merge`] renumbers it, so a rebuild can keep it for a
    /// chapter that did not change.
    pub(crate) fn of(deployments: &[DeploymentSummary]) -> Catalog {
        let mut part = Catalog::default();
        part.tokenize(deployments);
        part
    }

    /// Adds a chapter's catalog (from [`Catalog::of`]) after what this one
    /// holds, exactly as if its deployments had been tokenized here: words
    /// and token groups are numbered in order of first use, and a chapter's
    /// own first uses come in its own numbering's order.
    pub(crate) fn merge(&mut self, part: &Catalog) {
        let words: Vec<u32> = part.dict.words.iter().map(|w| self.dict.id(w)).collect();
        let renumber = |ids: &[u32]| {
            let mut v: Vec<u32> = ids.iter().map(|&i| words[i as usize]).collect();
            v.sort_unstable();
            v
        };
        let groups: Vec<u32> = part
            .groups
            .iter()
            .map(|body| self.group_of(renumber(body)))
            .collect();
        self.overview.extend(part.overview.iter().cloned());
        for (chapter, d) in &part.deployments {
            let sets = d
                .sets
                .iter()
                .map(|s| SetRecord {
                    anchor: s.anchor.clone(),
                    title: s.title.clone(),
                    status: s.status,
                    router: s.router,
                    title_tok: renumber(&s.title_tok),
                    ctx_tok: renumber(&s.ctx_tok),
                    id_tok: renumber(&s.id_tok),
                    group: groups[s.group as usize],
                })
                .collect();
            let record = DeploymentRecord {
                model: d.model.clone(),
                model_chapter: d.model_chapter.clone(),
                status: d.status,
                status_tok: renumber(&d.status_tok),
                ctx: renumber(&d.ctx),
                id: renumber(&d.id),
                sets,
            };
            self.deployments.insert(chapter.clone(), record);
        }
    }

    /// The model, model chapter (relative to the source dir) and set
    /// anchors of a deployment chapter, or `None` for any other chapter.
    pub(super) fn deployment_of(&self, chapter: &Path) -> Option<(&str, &Path, Vec<&str>)> {
        self.deployments.get(chapter).map(|d| {
            let sets = d.sets.iter().map(|s| s.anchor.as_str()).collect();
            (d.model.as_str(), d.model_chapter.as_path(), sets)
        })
    }

    /// The number of a token group, given one if new.
    fn group_of(&mut self, body: Vec<u32>) -> u32 {
        match self.group_ids.get(&body) {
            Some(g) => *g,
            None => {
                let g = self.groups.len() as u32;
                self.groups.push(body.clone());
                self.group_ids.insert(body, g);
                g
            }
        }
    }

    fn tokenize(&mut self, deployments: &[DeploymentSummary]) {
        for d in deployments {
            self.overview
                .push(super::pages::overview::OverviewRow::of(d));
            let detail = d.detail.as_deref().unwrap_or("");
            let ctx = self.dict.ids_of([
                d.model.as_str(),
                &d.hw,
                &d.hw_label,
                &d.checkpoint,
                // The checkpoint's name without its owner, as one word
                // (`deepseek-v4-pro`): its parts alone would also match
                // `deepseek-ai/DeepSeek-V4-Pro-0813`.
                d.checkpoint.rsplit('/').next().unwrap_or(""),
                &d.label,
                detail,
                &size_words(d.gpus, d.nodes),
                &label_size_words(&d.label),
            ]);
            // The deployment's own status: its page matches it, its sets
            // match their own.
            let status_tok = self.dict.ids_of([status_words(&d.status).as_str()]);
            let id = self.dict.ids_of([d.cell.as_str()]);
            let sets = d.sets.iter().map(|s| self.set_record(s)).collect();
            let record = DeploymentRecord {
                model: d.model.clone(),
                model_chapter: d.model_chapter.clone(),
                status: d.status.id(),
                status_tok,
                ctx,
                id,
                sets,
            };
            self.deployments.insert(d.chapter.clone(), record);
        }
    }

    fn set_record(&mut self, s: &SetSummary) -> SetRecord {
        // Words get their ids in the order they are first met (processes,
        // placeholders, then each command's), cached or not.
        let mut body = self.dict.ids_of(
            (s.processes.iter())
                .chain(&s.placeholders)
                .map(String::as_str),
        );
        for c in &s.commands {
            if let Some(ids) = self.command_ids.get(c.as_str()) {
                body.extend_from_slice(ids);
                continue;
            }
            let words = command_words(c);
            let ids = self.dict.ids_of(words.iter().map(String::as_str));
            body.extend_from_slice(&ids);
            if self.command_ids.len() >= MAX_CACHED_COMMANDS {
                self.command_ids.clear();
            }
            self.command_ids.insert(c.clone(), ids);
        }
        body.sort_unstable();
        body.dedup();
        let group = self.group_of(body);
        SetRecord {
            anchor: s.anchor.clone(),
            title: s.title.clone(),
            status: s.status.id(),
            router: s.router.id(),
            title_tok: self.dict.ids_of([s.title.as_str()]),
            ctx_tok: self.dict.ids_of([
                status_words(&s.status).as_str(),
                s.tier.id(),
                router_words(s.router),
            ]),
            id_tok: vec![self.dict.id(&s.anchor.to_lowercase())],
            group,
        }
    }
}

/// The words a deployment's size is found by: `12gpus` and `12gpu`,
/// `2nodes` and `2node`, and the nouns alone; book.js reads a query's
/// `12 gpus` as `12gpus` (a count alone would also match `4` of `MTP
/// 4-1-5`).
fn size_words(gpus: u32, nodes: u32) -> String {
    format!("gpus gpu {gpus}gpus {gpus}gpu nodes node {nodes}nodes {nodes}node")
}

/// The counts a deployment's label gives its workers (`prefill DEP8 (2
/// nodes)`) as the words book.js makes of a query's `2 nodes`: `2nodes`
/// and `2node`. A reader typing the label finds the deployment, though its
/// own size ([`size_words`]) is another count.
fn label_size_words(label: &str) -> String {
    let words: Vec<&str> = label
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = String::new();
    for pair in words.windows(2) {
        let noun = pair[1].to_ascii_lowercase();
        let noun = noun.trim_end_matches(['s', ',', '·']);
        if pair[0].bytes().all(|b| b.is_ascii_digit()) && matches!(noun, "gpu" | "node") {
            out.push_str(&format!("{n}{noun}s {n}{noun} ", n = pair[0]));
        }
    }
    out
}

/// The words a set's router is found by. `sglang` alone also names the
/// engine every set runs, so agentx's search reads a query with `sglang`
/// and without `dynamo` as the SGLang router (book.js); `router` and
/// `frontend` name the front door.
fn router_words(r: crate::data::Router) -> &'static str {
    match r {
        crate::data::Router::Sglang => "sglang sglang-router router",
        crate::data::Router::Dynamo => "dynamo dynamo+sglang dynamo-frontend router frontend",
    }
}

/// The words a status is found by: its id, and "measured" or the pull
/// request it waits on.
fn status_words(s: &Status) -> String {
    match s {
        Status::Verified => "verified measured".into(),
        Status::VerifiedPr { pr } => format!("verified verified-pr measured pending PR #{pr}"),
        Status::InProgress { pr } => format!("in-progress in progress review PR #{pr}"),
        Status::Derived => "derived".into(),
    }
}

/// One page as the index sees it: its title, where it is, and its headings.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SearchPage {
    /// Path relative to the source dir (`models/x.md`).
    pub source: PathBuf,
    pub title: String,
    /// Its URL, relative to the page the index serves.
    pub url: String,
    /// What a heading's or set's id is appended to (`x.html#`; in the
    /// single file `#` for headings, whose ids carry their chapter prefix).
    pub anchors: String,
    /// In the single file: the prefix of set anchors (`ch-x--`).
    pub set_prefix: String,
    pub headings: Vec<Heading>,
}

/// A page of the index: `[title, url, anchorBase, model, status, titleTok,
/// ctxTok, idTok, statusTok]`.
type PageRow<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    Vec<u32>,
    &'a [u32],
    &'a [u32],
    &'a [u32],
);

/// A heading: `[page, text, id, titleTok]`.
type HeadingRow<'a> = (usize, &'a str, &'a str, Vec<u32>);

/// A command set: `[page, anchor, title, status, titleTok, ctxTok, idTok,
/// group, router]`.
type SetRow<'a> = (
    usize,
    String,
    &'a str,
    &'a str,
    &'a [u32],
    &'a [u32],
    &'a [u32],
    u32,
    &'static str,
);

/// The whole index, its fields in the order they are written.
#[derive(Serialize)]
struct IndexJson<'a> {
    v: u32,
    w: &'a [String],
    p: Vec<PageRow<'a>>,
    h: Vec<HeadingRow<'a>>,
    s: Vec<SetRow<'a>>,
    g: &'a [Vec<u32>],
}

/// Whether the index lists a heading: plain headings below the title (a
/// set's and its processes' headings are found through the set).
pub(super) fn is_indexed(h: &Heading) -> bool {
    h.level > 1 && h.kind == HeadingKind::Plain
}

/// The index as JSON, serialized from the catalog and pages in place (a
/// tree of JSON values took 270 MiB at 100× the sample).
pub(super) fn search_index_json(catalog: &Catalog, pages: &[SearchPage]) -> Result<String> {
    let mut dict = catalog.dict.clone();
    let mut p = Vec::with_capacity(pages.len());
    let mut h = Vec::new();
    let mut s = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let deployment = catalog.deployments.get(&page.source);
        // A deployment chapter's title starts with its model (issue 13); a
        // result already reads `model » title`, and the model is context.
        let page_title = deployment
            .and_then(|d| page.title.strip_prefix(&format!("{} · ", d.model)))
            .unwrap_or(&page.title);
        let title = dict.ids_of([page_title]);
        let (model, status, ctx, id, status_tok) = match deployment {
            Some(d) => (
                d.model.as_str(),
                d.status,
                &d.ctx[..],
                &d.id[..],
                &d.status_tok[..],
            ),
            None => ("", "", &[][..], &[][..], &[][..]),
        };
        p.push((
            page_title,
            page.url.as_str(),
            page.anchors.as_str(),
            model,
            status,
            title,
            ctx,
            id,
            status_tok,
        ));
        for hd in page.headings.iter().filter(|hd| is_indexed(hd)) {
            let toks = dict.ids_of([hd.text.as_str()]);
            h.push((i, hd.text.as_str(), hd.id.as_str(), toks));
        }
        for set in deployment.into_iter().flat_map(|d| &d.sets) {
            s.push((
                i,
                format!("{}{}", page.set_prefix, set.anchor),
                set.title.as_str(),
                set.status,
                &set.title_tok[..],
                &set.ctx_tok[..],
                &set.id_tok[..],
                set.group,
                set.router,
            ));
        }
    }
    let index = IndexJson {
        v: 1,
        w: &dict.words,
        p,
        h,
        s,
        g: &catalog.groups,
    };
    // Headings and set titles carry data text, and pages inline the index:
    // every `<` (and `>`, `&`) is escaped, so no `</script` of any case survives.
    Ok(crate::util::escape::script_json(&index)?)
}

/// The index as the script `search-index.js` (it sets
/// `window.AGENTX_SEARCH_INDEX`; a script, so it loads from `file://`).
pub(super) fn search_index_script(catalog: &Catalog, pages: &[SearchPage]) -> Result<String> {
    Ok(format!(
        "window.AGENTX_SEARCH_INDEX = {};\n",
        search_index_json(catalog, pages)?
    ))
}

/// The index as the text of an inline `<script type="application/json">`:
/// every `<` escaped, so no data can end the element.
pub(super) fn search_index_inline(catalog: &Catalog, pages: &[SearchPage]) -> Result<String> {
    search_index_json(catalog, pages)
}

/// `x.md` → the page's search entry in a site of one file per chapter.
pub(super) fn site_page(source: &Path, title: &str, url: &str, headings: &[Heading]) -> SearchPage {
    SearchPage {
        source: source.to_path_buf(),
        title: title.to_string(),
        url: url.to_string(),
        anchors: format!("{url}#"),
        set_prefix: String::new(),
        // Only what the index lists: a large book has a heading per set and process.
        headings: headings.iter().filter(|h| is_indexed(h)).cloned().collect(),
    }
}

#[cfg(test)]
mod tests;
