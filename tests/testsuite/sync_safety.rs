//! A maintainer's mistakes with `mdbook-agentx sync`, each refused or
//! reported with a message that says what happened and how to proceed
//! (docs/sync.md, "What sync refuses"). Over the invented fixture in
//! `tests/fixtures/sync/`.

use std::path::Path;

use crate::sync::{fixture, scratch_dir, stderr, sync};

/// The fixture manifest with `extra` appended to its `[source]` table's file.
fn manifest_with(dir: &Path, extra: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(fixture("demo-lanes.toml")).unwrap();
    let text = text.replace(
        "registry = \"../../../flags/",
        &format!(
            "registry = \"{}/",
            crate::support::repo().join("flags").display()
        ),
    );
    let path = dir.join("lanes.toml");
    std::fs::write(&path, format!("{text}{extra}")).unwrap();
    path
}

/// Without `--previous` and without the donor lane in the run, the Mooncake
/// tier has no settings: every cell that would offer it is refused, and
/// nothing is written (it used to disappear silently, and the page then said
/// there were no verified Mooncake settings).
#[test]
fn a_mooncake_tier_without_a_donor_is_refused() {
    let dir = scratch_dir("no-donor");
    // The bash lane is carried over, which needs --previous: leave it out.
    let text = std::fs::read_to_string(manifest_with(&dir, "")).unwrap();
    let cut = text
        .find("[[lane]]\npage = \"Demo-30B\"\nconfig-key = \"demo-fp8-h200")
        .unwrap();
    let end = text[cut..].find("\n\n").map_or(text.len(), |e| cut + e);
    std::fs::write(
        dir.join("lanes.toml"),
        format!("{}{}", &text[..cut], &text[end..]),
    )
    .unwrap();
    let out = dir.join("out");
    let o = sync(&dir.join("lanes.toml"), &fixture("snapshot"), None, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "cell `demo-fp8-b200-sglang-agentic-mtp#0` offers the Mooncake tier (its image has the \
             external linker), but no lane of this run measured Mooncake and no page of --previous \
             carries the donor block (kvMooncake); sync the donor lane with it, pass --previous \
             with the current pages, or set [defaults] kv-mooncake = \"none\""
        ),
        "{err}"
    );
    assert!(!out.exists(), "a refused sync wrote {}", out.display());
    // Turned off on purpose, the tier is unavailable with that reason.
    let off = format!(
        "{}\n",
        std::fs::read_to_string(dir.join("lanes.toml")).unwrap()
    )
    .replacen(
        "[source]",
        "[defaults]\nkv-mooncake = \"none\"\n\n[source]",
        1,
    );
    std::fs::write(dir.join("off.toml"), off).unwrap();
    let o = sync(&dir.join("off.toml"), &fixture("snapshot"), None, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("agentx-demo-30b.json")).unwrap();
    assert!(
        text.contains("\"mooncake\": \"no verified Mooncake settings on this page (the manifest turns the Mooncake tier off)\""),
        "{text}"
    );
}
