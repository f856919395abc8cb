//! The sample book under `content/` and a real page from `../shared`, expanded
//! in-process, plus `mdbook build` of the sample book with this preprocessor.

use std::path::{Path, PathBuf};

use mdbook_agentx::{Library, OnError, expand_chapter, page_stats};

use crate::support;

const STATUS_LABELS: [&str; 4] = [
    "✓ Verified in SemiAnalysis InferenceX AgentX",
    "✓ Verified in SemiAnalysis InferenceX AgentX (PR #",
    "◐ In progress in SemiAnalysis InferenceX AgentX (PR #",
    "Derived — not run in SemiAnalysis InferenceX AgentX",
];

fn sample_library() -> Library {
    Library::load(&support::repo(), Path::new("agentx")).unwrap()
}

fn model_chapters() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(support::repo().join("content/models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    v.sort();
    v
}

#[test]
fn sample_pages_counts() {
    let lib = sample_library();
    assert!(lib.failures().is_empty(), "{:?}", lib.failures());
    let mut names: Vec<&str> = lib.pages().map(|(n, _)| n).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "DeepSeek-V4",
            "DeepSeek-V4.1",
            "GLM-5.2",
            "Muse Spark Open",
            "Qwen3.5",
            "Qwen3.8-Flash-Next"
        ]
    );
    let muse = lib.page("Muse Spark Open").unwrap();
    let s = page_stats(muse);
    // By hand from muse-spark-open.json: 4 cells with 4 configKeys; points
    // 12 + 10 + 10 + 8 = 40; each cell has both routers and 2 tiers but gb200
    // has 3, so 2 × (12×2 + 10×3 + 10×2 + 8×2) = 180 command sets. The same
    // from the JSON by rule:
    let raw = support::raw_counts(&support::repo().join("agentx/muse-spark-open.json"));
    assert_eq!(
        (s.lanes, s.deployments, s.points, s.command_sets),
        (raw.lanes, raw.deployments, raw.points, raw.command_sets)
    );
    assert_eq!(raw.command_sets, 2 * (12 * 2 + 10 * 3 + 10 * 2 + 8 * 2));
    assert_eq!(s.hardware, ["gb300", "gb200", "b300", "b200"]);
    for d in &muse.deployments {
        assert_eq!(d.label, "Agg TP4·EP4");
        assert_eq!(
            d.detail.as_deref(),
            Some("DFlash 8"),
            "derived from the worker flags"
        );
        assert_eq!(d.image.image, "lmsysorg/sglang:dev-muse-spark-open");
        let (status, points, tiers) = match d.hw.as_str() {
            "gb300" => ("in-progress", 12, vec!["none", "mooncake"]),
            "gb200" => ("verified", 10, vec!["none", "hicache", "mooncake"]),
            "b300" => ("in-progress", 10, vec!["none", "mooncake"]),
            "b200" => ("verified", 8, vec!["none", "mooncake"]),
            other => panic!("{other}"),
        };
        assert_eq!(d.status.id(), status, "{}", d.hw);
        assert_eq!(d.concs.len(), points, "{}", d.hw);
        let avail: Vec<&str> = d.available.iter().map(|t| t.id()).collect();
        assert_eq!(avail, tiers, "{}", d.hw);
        if d.hw != "gb200" {
            assert!(
                d.unavailable[0].reason.contains("absolute"),
                "{:?}",
                d.unavailable
            );
        }
        let set = &d.command_sets[0];
        assert!(
            set.notes
                .iter()
                .any(|n| n.text().contains("acceptance length of 4.05"))
        );
        assert!(
            set.processes
                .iter()
                .any(|p| p.command.contains("NCCL_CUMEM_ENABLE=1"))
        );
    }
}

/// Snapshots of each sample model page as expanded (the section, with the lane
/// table), and structural checks of every deployment chapter.
#[test]
fn sample_pages_expand() {
    let lib = sample_library();
    for path in model_chapters() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let rel = PathBuf::from("models").join(path.file_name().unwrap());
        let text = support::read(&path);
        let out = expand_chapter(
            &text,
            &rel,
            &format!("content/{}", rel.display()),
            &lib,
            OnError::Fail,
        )
        .unwrap_or_else(|e| panic!("{e:#}"));
        assert!(
            !out.content.contains("<<agentx"),
            "{stem}: leftover directive"
        );
        assert!(out.content.contains("{#agentic-long-context-deployment}"));
        // The author's text before the directive is unchanged.
        let intro_end = text.find("<<agentx").unwrap();
        assert_eq!(&out.content[..intro_end], &text[..intro_end], "{stem}");
        insta::assert_snapshot!(format!("sample_{stem}"), out.content);
        for c in &out.subchapters {
            let (p, name, md) = (&c.path, &c.name, &c.markdown);
            assert!(p.starts_with(format!("models/{stem}")), "{}", p.display());
            assert!(md.starts_with(&format!("# {name} {{#")), "{name}");
            assert!(md.contains("## Combinations"));
            assert!(STATUS_LABELS.iter().any(|l| md.contains(l)), "{name}");
            assert!(md.contains(&format!("(../{stem}.md#agentic-long-context-deployment)")));
        }
    }
}

/// A real page, expanded twice: the same bytes, and each deployment chapter
/// holds exactly the command sets its cell's JSON gives (points × routers ×
/// available tiers), of which one per point is measured and the rest carry
/// the derived label. Counted from the data, so no third-party text is
/// committed.
#[test]
fn real_page_expands_deterministically() {
    let Some(dir) = support::shared("reference/sglang-cookbook") else {
        return;
    };
    let root = dir.parent().unwrap();
    let expand = || {
        let lib = Library::load(root, Path::new("sglang-cookbook")).unwrap();
        expand_chapter(
            "# Qwen3.8-Flash-Next\n\n<<agentx page=\"Qwen3.8-Flash-Next\">>\n",
            Path::new("qwen.md"),
            "qwen.md",
            &lib,
            OnError::Fail,
        )
        .unwrap()
    };
    let a = expand();
    let b = expand();
    assert_eq!(a.content, b.content);
    assert_eq!(a.subchapters, b.subchapters);
    let json: serde_json::Value =
        serde_json::from_str(&support::read(&dir.join("agentx-qwen3.8-flash-next.json"))).unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(a.subchapters.len(), cells.len(), "a chapter per cell");
    let len = |v: &serde_json::Value| v.as_array().map_or(0, Vec::len);
    for (chapter, cell) in a.subchapters.iter().zip(cells) {
        let points = len(&cell["points"]);
        let routers = cell["routers"].as_object().unwrap().len();
        let sets = points * routers * len(&cell["kv"]["available"]);
        let md = &chapter.markdown;
        let id = cell["id"].as_str().unwrap();
        assert_eq!(md.matches("\n### c").count(), sets, "{id}");
        let derived = md
            .matches(
                "agentx-badge-derived\">Derived — not run in SemiAnalysis InferenceX AgentX</span>",
            )
            .count();
        assert_eq!(derived, sets - points, "{id}");
        assert!(
            md.contains(&format!("`{id}`")),
            "{id}: the facts name the cell"
        );
    }
    // In all: 76 command sets, 22 of them measured (the README of the
    // reference data: 4 cells, 22 points).
    let all: String = a.subchapters.iter().map(|c| c.markdown.as_str()).collect();
    assert_eq!(all.matches("\n### c").count(), 76);
    assert_eq!(
        support::raw_counts(&dir.join("agentx-qwen3.8-flash-next.json")).points,
        22
    );
}

/// `mdbook build` of the sample book with this binary as its preprocessor.
#[test]
fn mdbook_builds_the_sample_book() {
    if !support::mdbook_available() {
        return;
    }
    let out = std::env::temp_dir().join(format!("agentx-mdbook-{}", std::process::id()));
    support::mdbook_build(&support::repo(), &out);
    let mut labels_seen = [false; 4];
    let mut deployment_pages = 0;
    for path in model_chapters() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let html = support::read(&out.join(format!("models/{stem}.html")));
        assert!(
            html.contains("id=\"agentic-long-context-deployment\""),
            "{stem}"
        );
        assert!(html.contains("Agentic Long-Context Deployment"), "{stem}");
        assert!(!html.contains("agentx page="), "{stem}: leftover directive");
        let dir = out.join(format!("models/{stem}"));
        let mut data_pages = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let sub = support::read(&entry.path());
            // The model page's whole launch data (preprocessor/data_pages.rs).
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("agentx_launch_data")
            {
                assert!(sub.contains("class=\"agentx-data-part\""), "{stem}");
                data_pages += 1;
                continue;
            }
            deployment_pages += 1;
            for (i, l) in STATUS_LABELS.iter().enumerate() {
                labels_seen[i] |= sub.contains(l);
            }
            assert!(
                sub.contains("<code class=\"language-bash\">"),
                "command blocks in {stem}"
            );
        }
        assert!(data_pages >= 1, "{stem}: no data page");
        assert!(html.contains("\"parts\":[\""), "{stem}: no light part");
    }
    assert_eq!(
        labels_seen, [true; 4],
        "every status label appears in the built book"
    );
    // One page per deployment (cell) of every data file.
    assert_eq!(deployment_pages, support::sample_counts().deployments);
    // mdBook's own book.js (highlighting, copy buttons, sidebar, themes), not
    // the standalone builder's: the builder's assets are not in theme/.
    let own_js = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("book-") && name.ends_with(".js")
        })
        .expect("mdBook's book.js");
    assert!(support::read(&own_js).contains("function playground_text"));
    // The guide's escaped directive is shown, not expanded.
    let directive = support::read(&out.join("guide/directive.html"));
    assert!(directive.contains("&lt;&lt;agentx page=“Qwen3.5”&gt;&gt; appears literally"));
    deployment_chapters_stay_out_of_mdbooks_search(&out);
    std::fs::remove_dir_all(&out).unwrap();
}

/// `install` keeps the generated deployment chapters out of mdBook's
/// search index (and its print page off): mdBook's `searchindex*.js` names
/// no deployment chapter, while the builder's own index still lists every
/// command set of them.
fn deployment_chapters_stay_out_of_mdbooks_search(mdbook_out: &Path) {
    let mdbook_index: Vec<String> = std::fs::read_dir(mdbook_out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("searchindex") && name.ends_with(".js")
        })
        .map(|p| support::read(&p))
        .collect();
    assert_eq!(mdbook_index.len(), 1, "mdBook wrote one searchindex*.js");
    let mdbook_index = &mdbook_index[0];
    for chapter in ["models/glm-5.2.html", "models/deepseek-v4.1.html"] {
        assert!(mdbook_index.contains(chapter), "mdBook indexes {chapter}");
    }
    assert!(
        !mdbook_index.contains("models/glm-5.2/"),
        "mdBook indexes a deployment chapter"
    );
    assert!(
        !mdbook_out.join("print.html").exists(),
        "mdBook's print page is off"
    );
    let ours_dir = support::temp("index-size");
    let opts = mdbook_agentx::BuildOptions {
        dest: Some(ours_dir.to_path_buf()),
        // A scratch directory outside the repository, on purpose.
        allow_dest_outside: true,
        ..Default::default()
    };
    mdbook_agentx::build(&support::repo(), &opts).unwrap();
    let ours = support::read(&ours_dir.join("search-index.js"));
    let sets = support::sample_counts().command_sets;
    let json = ours
        .strip_prefix("window.AGENTX_SEARCH_INDEX = ")
        .and_then(|t| t.strip_suffix(";\n"))
        .unwrap();
    let index: serde_json::Value = serde_json::from_str(json).unwrap();
    let listed = index["s"].as_array().unwrap().len();
    eprintln!(
        "search index of the sample book: ours {} bytes ({listed} command sets), mdBook's {} bytes \
         (no deployment chapter)",
        ours.len(),
        mdbook_index.len()
    );
    assert_eq!(listed, sets, "sets in ours");
}
