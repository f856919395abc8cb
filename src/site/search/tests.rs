//! The index of the mini fixture book: every set once with its words, status,
//! size and router words where they belong.

use std::collections::HashSet;

use serde_json::Value;

use super::*;
use crate::site::{BuildOptions, Site};
use crate::test_support::mini_book;

/// The index of the mini fixture book, rendered in memory.
fn mini_index() -> (Site, Value) {
    let book = mini_book("search-index");
    let site = Site::load(&book).unwrap();
    let files = site.render_files(&BuildOptions::default()).unwrap();
    let script = files
        .iter()
        .find(|f| f.path == Path::new(SEARCH_INDEX))
        .unwrap();
    let text = String::from_utf8(script.bytes.to_vec()).unwrap();
    let json = text
        .strip_prefix("window.AGENTX_SEARCH_INDEX = ")
        .and_then(|t| t.strip_suffix(";\n"))
        .unwrap();
    (site, serde_json::from_str(json).unwrap())
}

fn words(index: &Value, ids: &Value) -> Vec<String> {
    ids.as_array()
        .unwrap()
        .iter()
        .map(|i| {
            index["w"][i.as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn every_set_once_with_its_words() {
    let (site, index) = mini_index();
    let sets = index["s"].as_array().unwrap();
    let manifest: Vec<_> = site.manifest.iter().flat_map(|m| m.iter()).collect();
    assert_eq!(sets.len(), manifest.len());
    let anchors: HashSet<&str> = sets.iter().map(|s| s[1].as_str().unwrap()).collect();
    for e in manifest {
        assert!(anchors.contains(e.id.as_str()), "{} not indexed", e.id);
    }
    // Words are distinct; sets with the same flags share a group.
    let w = index["w"].as_array().unwrap();
    assert_eq!(w.iter().collect::<HashSet<_>>().len(), w.len());
    assert!(index["g"].as_array().unwrap().len() < sets.len());
    // The mini book shows its H200 cell (`hardware="h200"`). Its c8/c16
    // Mooncake set behind Dynamo (decode_rules' snapshot of the same set
    // lists its commands): title, flags, env names, programs, cell.
    let s = sets
        .iter()
        .find(|s| s[1] == "mini-fp8-h200-sglang-agentic-mtp-0-c8-16-mooncake-dynamo")
        .unwrap();
    let title = words(&index, &s[4]);
    for t in ["c8", "c16", "dynamo", "sglang", "mooncake", "store"] {
        assert!(title.contains(&t.to_string()), "{t} in {title:?}");
    }
    let body = words(&index, &index["g"][s[7].as_u64().unwrap() as usize]);
    for t in [
        "mooncake_master",
        "etcd",
        "etcd_ip",
        "ib_devices",
        "mooncake_global_segment_size",
        "enable-unified-cache-external-linker",
        "unified-cache-external-linker-backend",
        "dynamo.frontend",
        "aggregated",
        "worker",
    ] {
        assert!(body.contains(&t.to_string()), "{t} in the body");
    }
    assert!(
        !body.contains(&"example/mini-fp8".to_string()),
        "flag values are not indexed"
    );
    let page = &index["p"][s[0].as_u64().unwrap() as usize];
    let id = words(&index, &page[7]);
    for t in [
        "mini-fp8-h200-sglang-agentic-mtp#0",
        "mini-fp8-h200-sglang-agentic-mtp",
        "mtp#0",
    ] {
        assert!(id.contains(&t.to_string()), "{t} in {id:?}");
    }
}

/// A deployment is found by its size (`4gpus`, `1node`, as book.js
/// reads `4 gpus`), a set by its router's words, and a set row names
/// its router (book.js reads `sglang` without `dynamo` as the SGLang
/// router).
#[test]
fn sizes_and_routers_are_words() {
    let (_, index) = mini_index();
    // The mini book's H200 cell mtp#0: 4 GPUs, one aggregated worker.
    let page = index["p"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p[1].as_str()
                .unwrap()
                .ends_with("mini-fp8-h200-sglang-agentic-mtp-0.html")
        })
        .unwrap();
    let ctx = words(&index, &page[6]);
    for w in ["4gpus", "4gpu", "gpus", "1node", "1nodes", "nodes"] {
        assert!(ctx.contains(&w.to_string()), "{w} in {ctx:?}");
    }
    for s in index["s"].as_array().unwrap() {
        let router = s[8].as_str().unwrap();
        assert!(
            s[1].as_str().unwrap().ends_with(&format!("-{router}")),
            "{s}"
        );
        let ctx = words(&index, &s[5]);
        assert_eq!(
            ctx.contains(&"sglang-router".to_string()),
            router == "sglang",
            "{s}"
        );
        assert_eq!(
            ctx.contains(&"dynamo".to_string()),
            router == "dynamo",
            "{s}"
        );
    }
}

/// A derived set is not found by its deployment's status: the
/// deployment's status words are its page's only.
#[test]
fn status_words_stay_with_their_entry() {
    let (_, index) = mini_index();
    for s in index["s"].as_array().unwrap() {
        let ctx = words(&index, &s[5]);
        let page = &index["p"][s[0].as_u64().unwrap() as usize];
        let page_ctx = words(&index, &page[6]);
        let derived = s[3] == "derived";
        assert_eq!(ctx.contains(&"derived".to_string()), derived, "{s}");
        assert_eq!(
            ctx.contains(&"verified".to_string()),
            s[3].as_str().unwrap().starts_with("verified")
        );
        assert!(
            !page_ctx.iter().any(|w| w == "verified" || w == "derived"),
            "{page}"
        );
    }
}

/// What a reader types of a deployment chip finds it: the checkpoint's
/// name without its owner is one word (`mini-fp8` of `example/Mini-FP8`;
/// its parts alone would also match `Mini-FP8-0813`), and a label's
/// worker counts are words as book.js reads a query's `2 nodes`.
#[test]
fn checkpoint_names_and_label_counts_are_words() {
    let (_, index) = mini_index();
    let pages: Vec<&Value> = (index["p"].as_array().unwrap().iter())
        .filter(|p| !p[6].as_array().unwrap().is_empty())
        .collect();
    assert!(!pages.is_empty());
    for p in &pages {
        let ctx = words(&index, &p[6]);
        assert!(ctx.contains(&"mini-fp8".to_string()), "{ctx:?}");
    }
    // The mini book shows its H200 cells only: labels without counts.
    for (label, want) in [
        ("Agg TP4", ""),
        (
            "Disagg 1P1D · prefill DEP8 (2 nodes) · decode DEP16 (4 nodes)",
            "2nodes 2node 4nodes 4node ",
        ),
        ("Agg TP8 (1 node)", "1nodes 1node "),
        ("Agg (8 GPUs)", "8gpus 8gpu "),
        ("MTP 4-1-5 · 2 workers", ""),
        ("Ünïcode (3 Nodes) ·", "3nodes 3node "),
    ] {
        assert_eq!(label_size_words(label), want, "{label}");
    }
}
