use super::*;
use crate::test_support::{fixture, read};

/// Two env values that load would refuse (the first opens a link),
/// deserialized here without that check: the command joins them into a
/// link mdBook would expand (the first value's quote and line
/// continuation become its target), and the generated Markdown is
/// refused.
#[test]
fn generated_markdown_with_a_joined_link_is_refused() {
    let mut v: serde_json::Value = serde_json::from_str(&read(&fixture("data/mini.json"))).unwrap();
    v["envs"][0]["AAA"] = "{{#include /etc/passwd ".into();
    v["envs"][0]["AAB"] = "}}".into();
    let data: crate::data::AgentxData = serde_json::from_value(v).unwrap();
    let page = decode::decode_page(&data).unwrap();
    let deployments: Vec<&decode::Deployment> = page.deployments.iter().collect();
    let opts = SectionOptions {
        heading_level: 2,
        anchor: SECTION_ANCHOR.into(),
        subchapter_dir: "mini".into(),
        chapter_file: "mini.md".into(),
    };
    let picker = render::model_data_json(&page, &deployments, "mini");
    let section = render::render_section(&page, &deployments, &picker, &opts, &|_| true, None);
    let mut texts = vec![(None, section.markdown.as_str())];
    texts.extend(
        section
            .subchapters
            .iter()
            .map(|s| (Some(s.rel_path.as_str()), s.markdown.as_str())),
    );
    let refused: Vec<String> = texts
        .iter()
        .filter_map(|(c, md)| refuse_mdbook_links(&page.model, *c, md).err())
        .map(|e| e.to_string())
        .collect();
    assert!(!refused.is_empty(), "no generated text refused");
    assert!(refused[0].contains("would hold"), "{}", refused[0]);
    // In a deployment chapter the match runs from the first value over
    // the line break into the second (the model page's data joins the
    // two strings as JSON, and is refused as well).
    assert!(
        refused
            .iter()
            .any(|r| r.contains(r#""{{#include /etc/passwd ' \\\nAAB=\"}}""#)),
        "{refused:?}"
    );
}
