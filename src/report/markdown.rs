//! The report as Markdown: the sections in the order a reviewer reads them,
//! each saying what was checked. Data text (page names, images, ids,
//! messages) goes in through [`crate::util::escape`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Report;
use crate::util::escape::{code, table_cell, text};

/// The report (see the module documentation).
pub(super) fn render(r: &Report) -> String {
    let mut out = String::new();
    let short = &r.base.commit[..r.base.commit.len().min(12)];
    let _ = writeln!(
        out,
        "## AgentX report: {}\n\nAgainst {} ({}). **{}**\n",
        text(&r.title),
        code(&r.base.spec),
        code(short),
        verdict(r)
    );
    pages(r, &mut out);
    changes(r, &mut out);
    arguments(r, &mut out);
    kv_flags(r, &mut out);
    links(r, &mut out);
    warnings(r, &mut out);
    out
}

/// One line: passed, or what failed.
fn verdict(r: &Report) -> String {
    let c = &r.check;
    if r.ok() {
        return "Every check passed.".into();
    }
    let mut failed = Vec::new();
    let count = |n: usize, what: &str| (n > 0).then(|| format!("{what}: {n}"));
    failed.extend(count(c.failures.len(), "argument errors"));
    failed.extend(count(
        c.unconfigured.len(),
        "entry points without a registry",
    ));
    failed.extend(count(c.tiers.len(), "KV tiers without their flags"));
    failed.extend(count(c.links.problems.len(), "link and anchor problems"));
    format!("Checks failed: {}.", failed.join("; "))
}

fn pages(r: &Report, out: &mut String) {
    out.push_str(
        "### Pages\n\nEvery data file of the book, decoded: lanes (config keys), deployments \
         (cells), points (concurrency groups), hardware and command sets.\n\n",
    );
    // The tables of `stats` and `diff` escape the data's names themselves.
    out.push_str(&crate::stats::markdown_table(&r.pages));
    out.push('\n');
}

fn changes(r: &Report, out: &mut String) {
    let _ = writeln!(
        out,
        "### Command sets against {}\n\nEach command set of the book compared with the base's \
         of the same page and stable id, by its whole Copy all text (commands, env, files).\n",
        code(&r.base.spec)
    );
    out.push_str(&crate::diff::table(&r.diff));
    let (a, d, c) = r.diff.pages.iter().fold((0, 0, 0), |(a, d, c), p| {
        (a + p.added.len(), d + p.removed.len(), c + p.changed.len())
    });
    if a + d + c > 0 {
        let _ = writeln!(
            out,
            "\n<details><summary>{a} added, {d} removed, {c} changed command sets</summary>\n"
        );
        for (label, pick) in [("Added", 0), ("Removed", 1), ("Changed", 2)] {
            let ids: Vec<String> = r
                .diff
                .pages
                .iter()
                .flat_map(|p| {
                    let list = [&p.added, &p.removed, &p.changed][pick];
                    list.iter()
                        .map(move |id| format!("- {} {}", text(&p.page), code(id)))
                })
                .collect();
            if !ids.is_empty() {
                let _ = writeln!(out, "**{label}**\n\n{}\n", ids.join("\n"));
            }
        }
        out.push_str("</details>\n");
    }
    out.push('\n');
}

fn arguments(r: &Report, out: &mut String) {
    let c = &r.check;
    out.push_str(
        "### Argument parsing\n\nEvery command line of `sglang.launch_server`, `dynamo.sglang`, \
         `sglang_router.launch_router` and `dynamo.frontend`, parsed against the flag registry \
         of its image as argparse would. Distinct: different argument lists; new: distinct \
         argument lists the base did not have for the same image and entry point.\n\n\
         | Image | Entry point | Registry | Command lines | Distinct | New since base | Parse |\n\
         |---|---|---|---:|---:|---:|---|\n",
    );
    let new: BTreeMap<(&str, &str), usize> = r
        .new_lines
        .iter()
        .map(|n| ((n.image.as_str(), n.entrypoint.as_str()), n.new))
        .collect();
    let (mut lines, mut distinct, mut fresh, mut parsed) = (0, 0, 0, 0);
    for t in &c.images {
        let n = new[&(t.image.as_str(), t.entrypoint.as_str())];
        let mark = if t.parsed == t.lines { "✓" } else { "✗" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {n} | {mark} {}/{} |",
            table_cell(&code(&t.image)),
            table_cell(&code(&t.entrypoint)),
            table_cell(&text(&t.registry)),
            t.lines,
            t.distinct,
            t.parsed,
            t.lines
        );
        (lines, distinct, fresh, parsed) = (
            lines + t.lines,
            distinct + t.distinct,
            fresh + n,
            parsed + t.parsed,
        );
    }
    let _ = writeln!(
        out,
        "| **Total** | | | {lines} | {distinct} | {fresh} | {parsed}/{lines} |\n"
    );
    for u in &c.unconfigured {
        let _ = writeln!(out, "- ✗ no registry: {}", text(u));
    }
    for f in &c.failures {
        let _ = writeln!(out, "- ✗ {}", text(&f.to_string()));
    }
    if !c.unconfigured.is_empty() || !c.failures.is_empty() {
        out.push('\n');
    }
}

fn kv_flags(r: &Report, out: &mut String) {
    let c = &r.check;
    out.push_str(
        "### KV flags\n\nEvery flag an offered HiCache or Mooncake tier adds, against the \
         registry of each worker entry point of the image it is offered for (one image/flag \
         pair each).\n\n\
         | Image | Entry point | Registry | Tiers | Pairs checked | Missing |\n\
         |---|---|---|---|---:|---:|\n",
    );
    let (mut pairs, mut missing) = (0, 0);
    for k in &c.kv {
        let tiers: Vec<&str> = k.tiers.iter().map(|t| t.id()).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            table_cell(&code(&k.image)),
            table_cell(&code(&k.entrypoint)),
            table_cell(&text(&k.registry)),
            tiers.join(", "),
            k.flags.len(),
            k.missing.len()
        );
        (pairs, missing) = (pairs + k.flags.len(), missing + k.missing.len());
    }
    let _ = writeln!(out, "| **Total** | | | | {pairs} | {missing} |\n");
    for t in &c.tiers {
        let _ = writeln!(out, "- ✗ {}", text(&t.to_string()));
    }
    if !c.tiers.is_empty() {
        out.push('\n');
    }
}

fn links(r: &Report, out: &mut String) {
    let l = &r.check.links;
    let _ = write!(
        out,
        "### Links and anchors\n\nEvery internal link and `#fragment` of the built site, and \
         the ids of each page: {} pages, {} internal links, {} anchors",
        l.pages, l.links, l.anchors
    );
    if l.problems.is_empty() {
        out.push_str(": all resolve, ids unique per page.\n\n");
    } else {
        out.push_str(".\n\n");
        for p in &l.problems {
            let _ = writeln!(out, "- ✗ {}", text(p));
        }
        out.push('\n');
    }
}

fn warnings(r: &Report, out: &mut String) {
    out.push_str("### Warnings\n\nAccepted, but worth knowing: deprecated or abbreviated options, values the program does not know.\n\n");
    let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
    for w in &r.check.warnings {
        let line = format!(
            "{} · {} ({}): {}: {}",
            code(&w.image),
            code(&w.entrypoint),
            text(&w.registry),
            code(&w.flag),
            text(&w.message)
        );
        *grouped.entry(line).or_default() += 1;
    }
    if grouped.is_empty() {
        out.push_str("None.\n");
    }
    for (w, n) in grouped {
        let _ = writeln!(out, "- ×{n} {w}");
    }
}

#[cfg(test)]
mod tests;
