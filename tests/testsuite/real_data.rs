//! Decoding the real AgentX files in `../shared/reference/sglang-cookbook/`.
//! Each test returns early, saying so, when that folder is absent.

use mdbook_agentx::{DecodedFile, KvTier, Router, decode_file, page_stats};

use crate::support;

fn decode_shared(name: &str) -> Option<DecodedFile> {
    let path = support::shared(&format!("reference/sglang-cookbook/{name}"))?;
    Some(decode_file(&path).unwrap_or_else(|e| panic!("{e:#}")))
}

#[test]
fn qwen38_flash_next_counts() {
    for file in [
        "agentx-qwen3.8-flash-next.json",
        "agentx-qwen3.8-flash-next.jsx",
    ] {
        let Some(DecodedFile { page, ignored }) = decode_shared(file) else {
            return;
        };
        let s = page_stats(&page);
        assert_eq!(s.page, "Qwen3.8-Flash-Next");
        // 4 cells and 22 points, as the reference data's README says; the
        // command sets by rule from the JSON.
        let raw = support::raw_counts(
            &support::shared(&format!("reference/sglang-cookbook/{file}")).unwrap(),
        );
        assert_eq!((raw.deployments, raw.points), (4, 22), "{file}");
        assert_eq!(
            (s.deployments, s.points, s.command_sets),
            (raw.deployments, raw.points, raw.command_sets),
            "{file}"
        );
        assert_eq!(s.hardware, ["gb300", "b300", "b200", "h200"]);
        assert!(ignored.is_empty(), "{ignored:?}");
    }
}

#[test]
fn deepseek_v41_counts() {
    for file in ["agentx-deepseek-v4_1.json", "agentx-deepseek-v4_1.jsx"] {
        let Some(DecodedFile { page, ignored }) = decode_shared(file) else {
            return;
        };
        let s = page_stats(&page);
        assert_eq!(s.page, "DeepSeek-V4.1");
        // 19 cells and 83 points, as the reference data's README says; the
        // command sets by rule from the JSON.
        let raw = support::raw_counts(
            &support::shared(&format!("reference/sglang-cookbook/{file}")).unwrap(),
        );
        assert_eq!((raw.deployments, raw.points), (19, 83), "{file}");
        assert_eq!(
            (s.deployments, s.points, s.command_sets),
            (raw.deployments, raw.points, raw.command_sets),
            "{file}"
        );
        assert!(ignored.is_empty(), "{ignored:?}");
        // Exactly one command set per point is the submitted, measured one.
        let measured = page
            .command_sets()
            .filter(|c| c.status.id() != "derived")
            .count();
        assert_eq!(measured, raw.points);
    }
}

#[test]
fn glm_excerpt_older_schema_decodes() {
    let Some(DecodedFile { page, .. }) = decode_shared("agentx-glm-5.2.excerpt.jsx") else {
        return;
    };
    let s = page_stats(&page);
    assert_eq!((s.deployments, s.points), (2, 4));
    // Older schema: provenance comes from each point.
    let d = &page.deployments[0];
    assert!(
        d.provenance
            .run_url
            .as_deref()
            .unwrap()
            .contains("/actions/runs/")
    );
    assert_eq!(d.ckpt_label, "nvidia/GLM-5.2-NVFP4 (FP4)");
    assert_eq!(d.status.id(), "verified-pr");
    // The nginx tab gets its config file, and its FRONTEND_n placeholders are listed.
    let set = d
        .command_sets
        .iter()
        .find(|c| c.router == Router::Dynamo && c.tier == c.measured)
        .unwrap();
    let nginx = set
        .processes
        .iter()
        .find(|p| &*p.title == "nginx (optional)")
        .unwrap();
    assert_eq!(&*nginx.command, "nginx -c nginx.conf -g 'daemon off;'");
    assert_eq!(nginx.files[0].name, "nginx.conf");
    assert!(set.placeholders.iter().any(|p| p.name == "FRONTEND_2_IP"));
}

/// The two worked examples of `../shared/research/sglang-cookbook.md` §2.2
/// (read as data, never copied here), compared byte for byte with the text
/// written there (not with our own output).
#[test]
fn worked_examples_are_byte_identical() {
    let Some(doc) = support::shared("research/sglang-cookbook.md") else {
        return;
    };
    let Some(DecodedFile { page, .. }) = decode_shared("agentx-qwen3.8-flash-next.jsx") else {
        return;
    };
    let doc = support::read(&doc);
    let section = &doc[doc.find("### 2.2").expect("§2.2 in the research doc")..];
    let mut fences = section.split("```bash\n").skip(1).map(|s| {
        let end = s.find("\n```").expect("closing fence");
        &s[..end]
    });
    let sglang_expected = fences.next().unwrap();
    let dynamo_expected = fences.next().unwrap();

    let cell = "qwen3.8next-fp4-b300-sglang-agentic-mtp#0";
    let find = |router: Router| {
        page.command_sets()
            .find(|c| {
                c.cell_id == cell && c.concs == [4] && c.router == router && c.tier == KvTier::None
            })
            .unwrap()
    };
    let sg = find(Router::Sglang);
    assert_eq!(sg.status.id(), "verified");
    let blocks: Vec<&str> = sg.processes.iter().map(|p| &*p.command).collect();
    assert_eq!(blocks.join("\n\n"), sglang_expected);

    let dy = find(Router::Dynamo);
    assert_eq!(dy.status.id(), "derived");
    // The doc shows each block under a `# title` line; compare the blocks.
    let expected: Vec<String> = dynamo_expected
        .split("\n\n")
        .map(|b| b.lines().skip(1).collect::<Vec<_>>().join("\n"))
        .collect();
    let got: Vec<&str> = dy.processes.iter().map(|p| &*p.command).collect();
    assert_eq!(got, expected);
}

/// Every command set of the real files round-trips through the JSON CLI shape.
#[test]
fn every_real_combination_has_text_and_label() {
    for file in [
        "agentx-qwen3.8-flash-next.json",
        "agentx-deepseek-v4_1.json",
        "agentx-glm-5.2.excerpt.json",
    ] {
        let Some(DecodedFile { page, .. }) = decode_shared(file) else {
            return;
        };
        let mut anchors = std::collections::HashSet::new();
        for set in page.command_sets() {
            assert!(
                anchors.insert(set.anchor.clone()),
                "duplicate {}",
                set.anchor
            );
            assert!(!set.processes.is_empty());
            for p in &set.processes {
                assert!(!p.command.ends_with('\\'), "{}: {}", set.anchor, p.command);
                assert!(
                    !p.command.contains(" \n"),
                    "trailing space in {}",
                    set.anchor
                );
            }
            if set.status.id() == "derived" {
                assert!(set.notes.iter().any(|n| n.id() == "derived-from"));
            }
        }
    }
}
