//! mdBook's model pages carry the light part of their launch data, and the
//! whole data goes into pages of the book beside the deployment chapters
//! (issue 26: with the whole data inline the largest real model page was
//! 30.9 KB gzip, over the 25 KB a page may load before the reader asks for
//! more). The standalone builder writes a script file beside the page
//! instead (`site::pages::lazy`), but a preprocessor can add nothing to
//! mdBook's output except chapters: mdBook empties its output directory
//! before it renders, and only copies what is in the source directory.
//!
//! A data page holds a piece of the data's JSON text in a
//! `<script type="application/json" class="agentx-data-part">` (pieces of
//! at most [`PART_BYTES`]); agentx.js opens the pages in hidden frames and
//! each posts its piece to the model page, which joins them. Frames work
//! from `file://` too, where a page can read no other file. The pages are
//! chapters, so they are in the sidebar: at the end of the book, under a
//! part of their own ("Launch data"), so that reading on from a model's
//! last deployment leads to the next model, not into data; each says what
//! it is. Their files are in the deployment chapters' directory, so
//! `install` keeps them out of mdBook's search with those.
//!
//! Only for mdBook's HTML renderer: the standalone builder and the single
//! file expand the book themselves.
//!
//! May use: `render` (the light part, the scripts of a chapter), `util`
//! (escaping).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use mdbook_preprocessor::book::{Book, BookItem, Chapter};
use serde_json::Value;

use crate::render::{WholeData, light_model_data, splice_model_data};
use crate::util::escape;

/// The most bytes of the data's JSON one page holds: the densest 64,000
/// bytes of the real pages' data (the shared texts, first) are about
/// 14 KB gzip, and mdBook's page around them about 4 KB.
pub(super) const PART_BYTES: usize = 64_000;

/// A data page's file stem: a `_` is never in a deployment chapter's name
/// (an anchor: a slug of `[a-z0-9-]`).
const PAGE_STEM: &str = "agentx_launch_data";

/// Moves the whole model data of every chapter into data pages (see the
/// module's comment), leaving the light part in the chapter.
pub(super) fn move_model_data_to_pages(book: &mut Book) {
    split_book(book, PART_BYTES);
}

/// [`move_model_data_to_pages`] with pages of at most `max` bytes of data.
fn split_book(book: &mut Book, max: usize) {
    let mut taken = HashSet::new();
    for item in book.iter() {
        if let BookItem::Chapter(Chapter {
            path: Some(path), ..
        }) = item
        {
            taken.insert(path.clone());
        }
    }
    let mut pages = Vec::new();
    split_items(&mut book.items, &mut taken, max, &mut pages);
    if pages.is_empty() {
        return;
    }
    book.items.push(BookItem::PartTitle(PART_TITLE.to_string()));
    book.items.extend(pages.into_iter().map(|page| {
        BookItem::Chapter(Chapter {
            name: page.name,
            content: page.markdown,
            number: None,
            sub_items: Vec::new(),
            path: Some(page.path),
            source_path: None,
            parent_names: Vec::new(),
        })
    }));
}

/// The sidebar's heading over the data pages.
const PART_TITLE: &str = "Launch data";

fn split_items(
    items: &mut [BookItem],
    taken: &mut HashSet<PathBuf>,
    max: usize,
    pages: &mut Vec<DataPage>,
) {
    for item in items {
        if let BookItem::Chapter(ch) = item {
            split_items(&mut ch.sub_items, taken, max, pages);
            split_chapter(ch, taken, max, pages);
        }
    }
}

/// One chapter: each model-data script's whole data into `pages`, the
/// light part in its place. A script whose light part cannot be made (not
/// model data) stays whole, as the standalone builder leaves it.
fn split_chapter(
    ch: &mut Chapter,
    taken: &mut HashSet<PathBuf>,
    max: usize,
    pages: &mut Vec<DataPage>,
) {
    let Some(path) = ch.path.clone() else {
        return;
    };
    let spliced = splice_model_data(&ch.content, |json, out| {
        match split_script(json, &path, &ch.name, taken, max) {
            Some((light, made)) => {
                out.push_str(&light);
                pages.extend(made);
            }
            None => out.push_str(json),
        }
        Some(())
    });
    if let Some(content) = spliced {
        ch.content = content;
    }
}

/// A data page to add.
struct DataPage {
    name: String,
    path: PathBuf,
    markdown: String,
}

/// The light part of `json` (a model-data script's text in the chapter at
/// `chapter`, named `chapter_name`) and the pages holding its whole, in
/// pieces of at most `max` bytes; `None` when it stays as it is (not
/// model data).
fn split_script(
    json: &str,
    chapter: &Path,
    chapter_name: &str,
    taken: &mut HashSet<PathBuf>,
    max: usize,
) -> Option<(String, Vec<DataPage>)> {
    let parts = escape::script_json_parts(json, max)?;
    let data: Value = serde_json::from_str(json).ok()?;
    let model = data["model"].as_str()?;
    // The deployment chapters' directory, named as the chapter's stem.
    let stem = chapter.file_stem()?.to_str()?;
    let dir = chapter.parent().unwrap_or(Path::new("")).join(stem);
    let mut paths = Vec::with_capacity(parts.len());
    let mut hrefs = Vec::with_capacity(parts.len());
    let mut n = 1;
    while paths.len() < parts.len() {
        let name = match n {
            1 => format!("{PAGE_STEM}.md"),
            n => format!("{PAGE_STEM}_{n}.md"),
        };
        n += 1;
        let path = dir.join(&name);
        if taken.insert(path.clone()) {
            paths.push(path);
            // As a deployment's href: relative to the chapter, its stem as it is.
            hrefs.push(format!("{stem}/{name}"));
        }
    }
    let light = light_model_data(json, WholeData::Pages(&hrefs))?;
    let chapter_file = chapter.file_name()?;
    let back = format!(
        "../{}",
        crate::util::text::url_path(Path::new(chapter_file))
    );
    let count = parts.len();
    let pages = (parts.into_iter().zip(paths).enumerate())
        .map(|(i, (part, path))| {
            let which = if count == 1 {
                String::new()
            } else {
                format!(" ({} of {count})", i + 1)
            };
            DataPage {
                name: format!("{model}{which}"),
                path,
                markdown: page_markdown(model, chapter_name, &back, part, &which),
            }
        })
        .collect();
    Some((light, pages))
}

/// A data page's Markdown: what it is for a reader who opens it, and its
/// piece of the data.
fn page_markdown(model: &str, chapter_name: &str, back: &str, part: &str, which: &str) -> String {
    format!(
        "# Launch data of {model}{which}\n\n\
         This page holds launch data that the picker on {link} loads when you choose a \
         launch there; every launch is also on its own deployment page, listed under \
         that chapter.\n\n\
         <script type=\"application/json\" class=\"agentx-data-part\">{part}</script>\n",
        model = escape::text(model),
        link = escape::link(&escape::text(chapter_name), back),
    )
}

#[cfg(test)]
mod tests;
