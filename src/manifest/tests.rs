use super::*;

fn entry(page: &str, id: &str, text: &str) -> ManifestEntry {
    ManifestEntry {
        id: id.into(),
        permalink: format!("models/x/h200-agg.html#{id}"),
        page: page.into(),
        cell: "h200-agg".into(),
        hardware: "h200".into(),
        hardware_label: "H200".into(),
        checkpoint: "FP8".into(),
        deployment: "Agg TP8".into(),
        detail: None,
        gpus: 8,
        nodes: 1,
        concs: vec![1, 64],
        tier: "none".into(),
        router: "sglang".into(),
        status: "measured".into(),
        image: "img".into(),
        provenance: LaunchProvenance::default(),
        hash: text_hash(text),
        text: text.into(),
    }
}

#[test]
fn provenance_keeps_only_links_a_reader_may_follow() {
    let p = Provenance {
        config_key: "k".into(),
        run_url: Some("https://github.com/o/r/actions/runs/1".into()),
        pr_url: Some("javascript:alert(1)".into()),
        job_url: Some("java\tscript:x".into()),
        recipe_url: Some("recipes/x.yaml".into()),
        pr: Some("12".into()),
        ..Provenance::default()
    };
    let l = LaunchProvenance::of(&p);
    assert_eq!(
        l.run.as_deref(),
        Some("https://github.com/o/r/actions/runs/1")
    );
    assert_eq!((l.pull_request, l.job), (None, None));
    assert_eq!(l.recipe.as_deref(), Some("recipes/x.yaml"));
    assert_eq!(l.pr.as_deref(), Some("12"));
}

/// A manifest of builds before `launches.json` (its field names) reads
/// as a legacy manifest: version 0, its sets with what they had.
#[test]
fn legacy_manifests_read() {
    let legacy = r#"{"generator": "mdbook-agentx 0.1.0", "command_sets": [{"id": "a",
        "page": "P", "cell": "c", "concs": [1, 4], "tier": "none", "router": "sglang",
        "status": "derived", "hash": "0", "text": "echo\n"}]}"#;
    let m: Manifest = serde_json::from_str(legacy).unwrap();
    assert_eq!(m.version, 0);
    let e = &m.command_sets[0];
    assert_eq!(
        (e.page.as_str(), e.concs.as_slice(), e.text.as_str()),
        ("P", &[1, 4][..], "echo\n")
    );
    assert_eq!((e.permalink.as_str(), e.gpus), ("", 0));
    // And a current one names them as the schema does.
    let now = Manifest::new(vec![entry("P", "a", "t")]).to_json();
    let v: serde_json::Value = serde_json::from_str(&now).unwrap();
    assert_eq!(v["version"], LAUNCHES_VERSION);
    let keys: Vec<&str> = v["launches"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "permalink",
            "model",
            "cell",
            "hardware",
            "hardware_label",
            "checkpoint",
            "deployment",
            "detail",
            "gpus",
            "nodes",
            "concurrency",
            "tier",
            "router",
            "status",
            "image",
            "provenance",
            "hash",
            "copy_all"
        ]
    );
}

#[test]
fn streamed_manifest_is_serde_pretty_json_in_book_order_without_repeats() {
    let entries = vec![
        entry("Zeta", "b", "export A=\"1\"\npython3 -m x \\\n  --y\n"),
        entry("Alpha", "a", "tab\there — ünïcode"),
        entry("Zeta", "b", "shown again by a second directive"),
        entry("Alpha", "c", ""),
    ];
    let m = Manifest::new(entries.clone());
    let ids: Vec<&str> = m.command_sets.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "c"]);
    // serde_json's own pretty printer is the reference for the streamed text.
    let expected = serde_json::to_string_pretty(&m).unwrap() + "\n";
    assert_eq!(m.to_json(), expected);
    let mut w = ManifestWriter::new(Vec::new()).unwrap();
    for e in &entries {
        w.push(e).unwrap();
    }
    let (bytes, n) = w.finish().unwrap();
    assert_eq!(
        (String::from_utf8(bytes).unwrap(), n),
        (expected.clone(), 3)
    );
    // Cached per chapter: the same bytes, first and again after an edit
    // (a changed entry, a chapter's list replaced) and its revert.
    let mut cache = ManifestCache::default();
    let chapters = vec![
        Arc::new(entries[..2].to_vec()),
        Arc::new(entries[2..].to_vec()),
    ];
    assert_eq!(cache.write(&chapters).unwrap(), expected.as_bytes());
    let mut edited = entries.clone();
    edited[1].text = "edited".into();
    edited[3].id = "d".into();
    let fresh = |v: &[ManifestEntry]| {
        let mut w = ManifestWriter::new(Vec::new()).unwrap();
        v.iter().for_each(|e| {
            w.push(e).unwrap();
        });
        w.finish().unwrap().0
    };
    let now = vec![
        Arc::new(edited[..2].to_vec()),
        Arc::new(edited[2..].to_vec()),
    ];
    assert_eq!(cache.write(&now).unwrap(), fresh(&edited));
    assert_eq!(cache.write(&now).unwrap(), fresh(&edited));
    assert_eq!(cache.write(&chapters).unwrap(), expected.as_bytes());
    let empty = Manifest::new(Vec::new());
    assert_eq!(
        empty.to_json(),
        serde_json::to_string_pretty(&empty).unwrap() + "\n"
    );
}
