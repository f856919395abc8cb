use super::*;
use crate::check::registry::Severity;
use crate::check::{CheckReport, Finding, ImageTally, KvTally, LinkReport, TierProblem};
use crate::data::{KvTier, Router};
use crate::manifest::{ManifestDiff, PageDiff};
use crate::report::{BaseRef, NewLines};
use crate::stats::PageStats;

fn finding(severity: Severity, flag: &str, message: &str) -> Finding {
    Finding {
        page: "P|Q".into(),
        cell: "c#0".into(),
        concs: vec![4],
        tier: KvTier::None,
        router: Router::Sglang,
        process: "1. Worker".into(),
        image: "img:1".into(),
        entrypoint: "sglang.launch_server".into(),
        registry: "v1".into(),
        severity,
        flag: flag.into(),
        message: message.into(),
    }
}

/// A report with one of everything, failing.
fn report() -> Report {
    let check = CheckReport {
        images: vec![ImageTally {
            image: "img:1".into(),
            entrypoint: "sglang.launch_server".into(),
            registry: "v1".into(),
            lines: 4,
            parsed: 3,
            distinct: 2,
        }],
        failures: vec![finding(Severity::Error, "--tp-siez", "unknown option")],
        warnings: vec![
            finding(Severity::Warning, "--old", "deprecated"),
            finding(Severity::Warning, "--old", "deprecated"),
        ],
        unconfigured: Vec::new(),
        tiers: vec![TierProblem {
            page: "P|Q".into(),
            cell: "c#0".into(),
            image: "img:1".into(),
            tier: KvTier::Mooncake,
            entrypoint: "sglang.launch_server".into(),
            registry: "v1".into(),
            missing: vec!["--enable-unified-cache-external-linker".into()],
        }],
        kv: vec![KvTally {
            image: "img:1".into(),
            entrypoint: "sglang.launch_server".into(),
            registry: "v1".into(),
            tiers: vec![KvTier::Hicache, KvTier::Mooncake],
            flags: vec!["--a".into(), "--b".into(), "--c".into()],
            missing: vec!["--c".into()],
        }],
        links: LinkReport {
            pages: 3,
            links: 10,
            anchors: 7,
            problems: vec!["a.html: #x is not an id of b.html".into()],
        },
        arguments: Default::default(),
        notices: Vec::new(),
    };
    Report {
        title: "Book".into(),
        base: BaseRef {
            spec: "origin/main".into(),
            commit: "0123456789abcdef0123".into(),
        },
        pages: vec![PageStats {
            page: "P|Q".into(),
            lanes: 1,
            deployments: 2,
            points: 3,
            hardware: vec!["gb200".into()],
            command_sets: 6,
        }],
        diff: ManifestDiff {
            pages: vec![PageDiff {
                page: "P|Q".into(),
                identical: 3,
                added: vec!["s-new".into()],
                removed: Vec::new(),
                changed: vec!["s-1".into(), "s-2".into()],
            }],
        },
        new_lines: vec![NewLines {
            image: "img:1".into(),
            entrypoint: "sglang.launch_server".into(),
            new: 1,
        }],
        check,
        notices: Vec::new(),
    }
}

#[test]
fn sections_in_order_each_saying_what_was_checked() {
    let md = report().markdown();
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        headings,
        [
            "## AgentX report: Book",
            "### Pages",
            "### Command sets against `origin/main`",
            "### Argument parsing",
            "### KV flags",
            "### Links and anchors",
            "### Warnings",
        ]
    );
    // Lines written by hand from the report above.
    for line in [
        "Against `origin/main` (`0123456789ab`). **Checks failed: argument errors: 1; KV tiers without their flags: 1; link and anchor problems: 1.**",
        "| P\\|Q | 1 | 2 | 3 | gb200 | 6 |",
        "| P\\|Q | 3 | 1 | 0 | 2 |",
        "<details><summary>1 added, 0 removed, 2 changed command sets</summary>",
        "- P\\|Q `s-new`",
        "- P\\|Q `s-2`",
        "</details>",
        "| `img:1` | `sglang.launch_server` | v1 | 4 | 2 | 1 | ✗ 3/4 |",
        "| **Total** | | | 4 | 2 | 1 | 3/4 |",
        // `-\\-` reads `--` (smart punctuation would make `--` a dash).
        "- ✗ P\\|Q · c#0 · c4 · none · sglang · 1. Worker: -\\-tp-siez: unknown option",
        "| `img:1` | `sglang.launch_server` | v1 | hicache, mooncake | 3 | 1 |",
        "| **Total** | | | | 3 | 1 |",
        "- ×2 `img:1` · `sglang.launch_server` (v1): `--old`: deprecated",
        "- ✗ a.html: #x is not an id of b.html",
    ] {
        assert!(md.lines().any(|l| l == line), "missing: {line}\n{md}");
    }
    // Each list under its label, in the details.
    let details = &md[md.find("<details>").unwrap()..md.find("</details>").unwrap()];
    let added = details.find("**Added**").unwrap();
    let changed = details.find("**Changed**").unwrap();
    assert!(added < details.find("`s-new`").unwrap());
    assert!(changed < details.find("`s-1`").unwrap());
    assert!(!details.contains("**Removed**"));
}

#[test]
fn a_passing_report_without_changes_has_no_details() {
    let mut r = report();
    r.check.failures.clear();
    r.check.tiers.clear();
    r.check.links.problems.clear();
    r.check.warnings.clear();
    r.diff.pages[0].added.clear();
    r.diff.pages[0].changed.clear();
    let md = r.markdown();
    assert!(md.contains("**Every check passed.**"), "{md}");
    assert!(!md.contains("<details>"));
    assert!(md.contains("ids unique per page.\n"));
    assert!(md.ends_with("### Warnings\n\nAccepted, but worth knowing: deprecated or abbreviated options, values the program does not know.\n\nNone.\n"));
}
