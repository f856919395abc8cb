//! Markdown tables as HTML whose body cells carry their column's header
//! (`data-label`), so that on a phone the stylesheet can show a wide table
//! as one card per row (`Hardware: GB200`) instead of a table scrolled
//! sideways. Tables of four or more columns get the class `cards`; every
//! table sits in a `table-wrap` that scrolls if it must, rather than the page.

use pulldown_cmark::{Alignment, Event, Tag, TagEnd, html};

use super::highlight::escape_html;

/// Tables with at least this many columns become cards on narrow screens.
const CARD_COLUMNS: usize = 4;

/// The HTML of one table: `events` run from its `Start(Table)` to its
/// `End(Table)`, links already rewritten.
pub(super) fn table_html(alignments: &[Alignment], events: &[Event<'_>]) -> String {
    let mut labels: Vec<String> = Vec::new();
    let mut header: Vec<String> = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut in_head = false;
    // The cell being read: its events and its plain text.
    let mut cell: Option<(Vec<Event<'_>>, String)> = None;
    for e in events {
        match e {
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => rows.push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some((Vec::new(), String::new())),
            Event::End(TagEnd::TableCell) => {
                let Some((inner, text)) = cell.take() else {
                    continue;
                };
                let mut out = String::new();
                html::push_html(&mut out, inner.into_iter());
                if in_head {
                    labels.push(text);
                    header.push(out);
                } else if let Some(row) = rows.last_mut() {
                    row.push(out);
                }
            }
            other => {
                if let Some((inner, text)) = &mut cell {
                    if let Event::Text(t) | Event::Code(t) = other {
                        text.push_str(t);
                    }
                    inner.push(other.clone());
                }
            }
        }
    }
    render(alignments, &labels, &header, &rows)
}

fn align_attr(alignments: &[Alignment], i: usize) -> &'static str {
    match alignments.get(i) {
        Some(Alignment::Left) => " style=\"text-align: left\"",
        Some(Alignment::Center) => " style=\"text-align: center\"",
        Some(Alignment::Right) => " style=\"text-align: right\"",
        _ => "",
    }
}

fn render(
    alignments: &[Alignment],
    labels: &[String],
    header_html: &[String],
    rows: &[Vec<String>],
) -> String {
    let cards = labels.len() >= CARD_COLUMNS;
    let class = if cards { " class=\"cards\"" } else { "" };
    let mut out = format!("<div class=\"table-wrap\"><table{class}><thead><tr>");
    for (i, h) in header_html.iter().enumerate() {
        out.push_str(&format!(
            "<th scope=\"col\"{}>{h}</th>",
            align_attr(alignments, i)
        ));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let label = labels
                .get(i)
                .map(|l| escape_html(l.trim()))
                .unwrap_or_default();
            // As a card, a cell is a grid of its label and one value.
            let value = if cards && !c.is_empty() {
                format!("<span class=\"cell\">{c}</span>")
            } else {
                c.clone()
            };
            out.push_str(&format!(
                "<td data-label=\"{label}\"{}>{value}</td>",
                align_attr(alignments, i)
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}
