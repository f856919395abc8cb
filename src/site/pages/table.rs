//! Markdown tables as HTML whose body cells carry their column's header
//! (`data-label`), so that on a phone the stylesheet can show a wide table
//! as one card per row (`Hardware: GB200`) instead of a table scrolled
//! sideways. Tables of four or more columns get the class `cards`; every
//! table sits in a `table-wrap` that scrolls if it must, rather than the page.

use pulldown_cmark::{Alignment, Event, Tag, TagEnd, html};

use crate::site::highlight::escape_html;

/// Tables with at least this many columns become cards on narrow screens.
const CARD_COLUMNS: usize = 4;

/// The HTML of one table: `events` run from its `Start(Table)` to its
/// `End(Table)`, links already rewritten.
pub(in crate::site) fn table_html(alignments: &[Alignment], events: &[Event<'_>]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::cmark::MarkdownConfig;

    fn table(md: &str) -> String {
        let events: Vec<Event<'_>> = MarkdownConfig::default().parser(md).collect();
        let Event::Start(Tag::Table(alignments)) = &events[0] else {
            panic!("not a table: {events:?}");
        };
        let end = events.len() - 1;
        table_html(alignments, &events[1..end])
    }

    /// (Markdown table, HTML it must contain)
    const TABLES: &[(&str, &[&str])] = &[
        (
            "| A | B |\n|---|--:|\n| 1 | 2 |\n",
            &[
                "<div class=\"table-wrap\"><table><thead><tr><th scope=\"col\">A</th><th scope=\"col\" style=\"text-align: right\">B</th></tr></thead>",
                "<tr><td data-label=\"A\">1</td><td data-label=\"B\" style=\"text-align: right\">2</td></tr>",
            ],
        ),
        (
            "| Hardware | `Cell` | Ünïcode · «x» | D |\n|---|---|---|---|\n| GB200 | `a#0` | [c16](x.html#a \"t\") · é | |\n",
            &[
                "<table class=\"cards\">",
                "<td data-label=\"Hardware\"><span class=\"cell\">GB200</span></td>",
                "<td data-label=\"Cell\"><span class=\"cell\"><code>a#0</code></span></td>",
                "<td data-label=\"Ünïcode · «x»\"><span class=\"cell\"><a href=\"x.html#a\" title=\"t\">c16</a> · é</span></td>",
                "<td data-label=\"D\"></td>",
            ],
        ),
        (
            "| <b> & \"q\" `\"` | x | y | z |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |\n",
            // The label is the header's text: tags left out, `&` and `"` escaped.
            &["<td data-label=\"&amp; “q” &quot;\"><span class=\"cell\">1</span></td>"],
        ),
    ];

    #[test]
    fn cells_carry_their_column_header() {
        for (md, wants) in TABLES {
            let html = table(md);
            for w in *wants {
                assert!(html.contains(w), "{md}\n{html}\nmissing {w}");
            }
        }
    }
}
