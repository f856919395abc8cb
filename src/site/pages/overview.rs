//! The landing page's overview of the book's models: per model, its
//! hardware, deployments, command sets and how many of those are verified,
//! in progress or derived. Built from the deployments the preprocessor
//! reported while expanding; a feature of the standalone builder only (mdBook
//! builds are untouched).

use std::path::{Path, PathBuf};

use crate::preprocessor::DeploymentSummary;
use crate::site::highlight::escape_html;

/// One deployment, as the overview counts it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct OverviewRow {
    pub(in crate::site) model: String,
    pub(in crate::site) model_chapter: PathBuf,
    section_anchor: String,
    hw_label: String,
    /// The deployment's chapter and its title (for `llms.txt`).
    pub(in crate::site) chapter: PathBuf,
    pub(in crate::site) title: String,
    pub(in crate::site) sets: usize,
    verified: usize,
    in_progress: usize,
    derived: usize,
}

impl OverviewRow {
    pub(in crate::site) fn of(d: &DeploymentSummary) -> OverviewRow {
        let count = |id: &[&str]| {
            d.sets
                .iter()
                .filter(|s| id.contains(&s.status.id()))
                .count()
        };
        OverviewRow {
            model: d.model.clone(),
            model_chapter: d.model_chapter.clone(),
            section_anchor: d.section_anchor.clone(),
            hw_label: d.hw_label.clone(),
            chapter: d.chapter.clone(),
            title: d.title.clone(),
            sets: d.sets.len(),
            verified: count(&["verified", "verified-pr"]),
            in_progress: count(&["in-progress"]),
            derived: count(&["derived"]),
        }
    }
}

/// One model's line of the overview.
#[derive(Debug, PartialEq, Eq)]
struct ModelLine<'a> {
    model: &'a str,
    chapter: &'a Path,
    anchor: &'a str,
    hardware: Vec<&'a str>,
    counts: Counts,
}

/// What a line counts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    deployments: usize,
    sets: usize,
    verified: usize,
    in_progress: usize,
    derived: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.deployments += o.deployments;
        self.sets += o.sets;
        self.verified += o.verified;
        self.in_progress += o.in_progress;
        self.derived += o.derived;
    }
}

/// Rows grouped by (model, chapter of its section), in reading order.
fn lines(rows: &[OverviewRow]) -> Vec<ModelLine<'_>> {
    let mut out: Vec<ModelLine<'_>> = Vec::new();
    for r in rows {
        let i = match out
            .iter()
            .position(|l| l.model == r.model && l.chapter == r.model_chapter)
        {
            Some(i) => i,
            None => {
                out.push(ModelLine {
                    model: &r.model,
                    chapter: &r.model_chapter,
                    anchor: &r.section_anchor,
                    hardware: Vec::new(),
                    counts: Counts::default(),
                });
                out.len() - 1
            }
        };
        let l = &mut out[i];
        if !l.hardware.contains(&r.hw_label.as_str()) {
            l.hardware.push(&r.hw_label);
        }
        l.counts.add(Counts {
            deployments: 1,
            sets: r.sets,
            verified: r.verified,
            in_progress: r.in_progress,
            derived: r.derived,
        });
    }
    out
}

/// The overview as HTML, or `None` for a book without AgentX sections.
/// `href` gives the link to a chapter's section (chapter, anchor).
pub(in crate::site) fn overview_html(
    rows: &[OverviewRow],
    href: &dyn Fn(&Path, &str) -> String,
) -> Option<String> {
    let lines = lines(rows);
    if lines.is_empty() {
        return None;
    }
    let mut html = String::from(
        "<section class=\"overview\" aria-labelledby=\"agentx-overview\">\n\
         <h2 id=\"agentx-overview\">Models in this book</h2>\n\
         <div class=\"table-wrap\"><table class=\"overview-table cards\">\n<thead><tr><th scope=\"col\">Model</th>\
         <th scope=\"col\">Hardware</th><th scope=\"col\" class=\"num\">Deployments</th>\
         <th scope=\"col\" class=\"num\">Command sets</th><th scope=\"col\" class=\"num\">Verified</th>\
         <th scope=\"col\" class=\"num\">In progress</th><th scope=\"col\" class=\"num\">Derived</th>\
         </tr></thead>\n<tbody>\n",
    );
    let mut total = Counts::default();
    for l in &lines {
        html.push_str(&format!(
            "<tr><th scope=\"row\" data-label=\"Model\"><a href=\"{}\">{}</a></th>\
             <td data-label=\"Hardware\">{}</td>{}</tr>\n",
            escape_html(&href(l.chapter, l.anchor)),
            escape_html(l.model),
            escape_html(&l.hardware.join(", ")),
            count_cells(&l.counts)
        ));
        total.add(l.counts);
    }
    html.push_str(&format!(
        "</tbody>\n<tfoot><tr><th scope=\"row\" data-label=\"Model\">All {} models</th>\
         <td data-label=\"Hardware\"></td>{}</tr></tfoot>\n</table></div>\n\
         <p class=\"overview-note\">Verified: measured in SemiAnalysis InferenceX AgentX (merged, or \
         in a pull request pending merge). In progress: submitted, under review. Derived: the \
         router or KV tier differs from what was measured; not run.</p>\n</section>\n",
        lines.len(),
        count_cells(&total)
    ));
    Some(html)
}

fn count_cells(l: &Counts) -> String {
    [
        ("Deployments", l.deployments),
        ("Command sets", l.sets),
        ("Verified", l.verified),
        ("In progress", l.in_progress),
        ("Derived", l.derived),
    ]
    .iter()
    .map(|(label, n)| format!("<td class=\"num\" data-label=\"{label}\">{n}</td>"))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, hw: &str, statuses: [usize; 3]) -> OverviewRow {
        OverviewRow {
            model: model.into(),
            model_chapter: PathBuf::from(format!("models/{model}.md")),
            section_anchor: "agentic-long-context-deployment".into(),
            hw_label: hw.into(),
            chapter: PathBuf::from(format!("models/{model}/{hw}.md")),
            title: hw.into(),
            sets: statuses.iter().sum(),
            verified: statuses[0],
            in_progress: statuses[1],
            derived: statuses[2],
        }
    }

    #[test]
    fn models_are_summed_in_reading_order() {
        let rows = [
            row("B<x>", "GB200", [1, 0, 5]),
            row("A", "H200", [0, 2, 4]),
            row("B<x>", "GB200", [2, 0, 4]),
            row("B<x>", "B300", [0, 1, 2]),
        ];
        let href = |c: &Path, a: &str| format!("{}#{a}", c.with_extension("html").display());
        let html = overview_html(&rows, &href).unwrap();
        let b = html.find("B&lt;x&gt;</a>").expect("escaped");
        assert!(b < html.find(">A</a>").unwrap(), "reading order");
        assert!(html.contains("<td data-label=\"Hardware\">GB200, B300</td><td class=\"num\" data-label=\"Deployments\">3</td><td class=\"num\" data-label=\"Command sets\">15</td><td class=\"num\" data-label=\"Verified\">3</td><td class=\"num\" data-label=\"In progress\">1</td><td class=\"num\" data-label=\"Derived\">11</td>"), "{html}");
        assert!(html.contains("All 2 models"));
        assert!(
            html.contains("data-label=\"Command sets\">21</td>"),
            "{html}"
        );
        assert!(html.contains("href=\"models/A.html#agentic-long-context-deployment\""));
        assert_eq!(overview_html(&[], &href), None);
    }
}
