//! `check`: flag registries per image, KV tiers per image, links and anchors.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use mdbook_agentx::check;

use crate::support;

#[test]
fn sample_book_passes_every_check() {
    let report = check(&support::repo()).unwrap();
    assert!(report.ok(), "{}", report.text(true));
    let lines: usize = report.images.iter().map(|t| t.lines).sum();
    let parsed: usize = report.images.iter().map(|t| t.parsed).sum();
    assert_eq!(lines, parsed);
    assert!(lines > 1000, "{lines}");
    // Every entry point of the sample book is covered.
    for ep in [
        "sglang.launch_server",
        "dynamo.sglang",
        "sglang_router.launch_router",
        "dynamo.frontend",
    ] {
        assert!(report.images.iter().any(|t| t.entrypoint == ep), "{ep}");
    }
    // Links are checked on every page but 404.html (its links are absolute).
    assert_eq!(report.links.pages, support::sample_pages());
    // The only warnings are the DP-attention deprecations of sglang 0.5.23.
    assert!(
        report
            .warnings
            .iter()
            .all(|w| w.flag == "--enable-dp-attention"),
        "{:?}",
        report.warnings.first()
    );
}

#[test]
fn fixture_failures_are_located() {
    let report = check(&support::fixture("books/bad-flags")).unwrap();
    assert!(!report.ok());
    let failures: Vec<String> = report.failures.iter().map(|f| f.to_string()).collect();
    assert_eq!(
        failures,
        [
            "Bad-Flags · bad-fp8-h200-sglang-agentic#0 · c1 · none · sglang · 1. Worker: --kv-cache-dtype: `fp4` is not a valid choice for --kv-cache-dtype; expected one of: auto, fp8_e4m3, fp8_e5m2",
            "Bad-Flags · bad-fp8-h200-sglang-agentic#0 · c1 · none · sglang · 1. Worker: --tp-siez: unknown option for sglang.launch_server fixture-new; did you mean --tp-size?",
            "Bad-Flags · bad-fp8-h200-sglang-agentic#0 · c1 · none · sglang · 1. Worker: --trust-remote-code: --trust-remote-code is a switch and takes no value, but is followed by `true`",
            "Bad-Flags · bad-fp8-h200-sglang-agentic#1 · c4 · mooncake · sglang · 2. Worker: --enable-unified-cache-external-linker: unknown option for sglang.launch_server fixture-old",
            "Bad-Flags · bad-fp8-h200-sglang-agentic#1 · c4 · mooncake · sglang · 2. Worker: --unified-cache-external-linker-backend: unknown option for sglang.launch_server fixture-old",
        ]
    );
    let tiers: Vec<String> = report.tiers.iter().map(|t| t.to_string()).collect();
    assert_eq!(
        tiers,
        [
            "Bad-Flags · bad-fp8-h200-sglang-agentic#1: tier `mooncake` is offered, but image example/sglang:old (sglang.launch_server fixture-old) has no --enable-unified-cache-external-linker, --unified-cache-external-linker-backend; list `mooncake` under kv.unavailable with the reason"
        ]
    );
    // Distinct argument lists, counted by hand from bad.json: cell #1's
    // worker without and with the Mooncake flags is two.
    let tally: Vec<(String, usize, usize, usize)> = report
        .images
        .iter()
        .map(|t| (t.image.clone(), t.parsed, t.lines, t.distinct))
        .collect();
    assert_eq!(
        tally,
        [
            ("example/sglang:new".to_string(), 0, 1, 1),
            ("example/sglang:new".to_string(), 1, 1, 1),
            ("example/sglang:old".to_string(), 1, 2, 2),
        ]
    );
    // The Mooncake tier's three KV flags (kvMooncake.args), two unknown to
    // the old registry.
    let kv: Vec<(&str, &str, usize, Vec<&str>)> = report
        .kv
        .iter()
        .map(|k| {
            let missing = k.missing.iter().map(String::as_str).collect();
            (
                k.image.as_str(),
                k.entrypoint.as_str(),
                k.flags.len(),
                missing,
            )
        })
        .collect();
    assert_eq!(
        kv,
        [(
            "example/sglang:old",
            "sglang.launch_server",
            3,
            vec![
                "--enable-unified-cache-external-linker",
                "--unified-cache-external-linker-backend"
            ]
        )]
    );
}

#[test]
fn cli_exit_codes_and_json() {
    let bin = env!("CARGO_BIN_EXE_mdbook-agentx");
    let out = Command::new(bin)
        .arg("check")
        .arg(support::fixture("books/bad-flags"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["failures"].as_array().unwrap().len(), 5);
    assert_eq!(v["failures"][1]["flag"], "--tp-siez");
    assert_eq!(v["failures"][1]["cell"], "bad-fp8-h200-sglang-agentic#0");
    assert_eq!(v["failures"][1]["router"], "sglang");
    assert_eq!(v["failures"][1]["tier"], "none");
    assert_eq!(v["failures"][1]["process"], "1. Worker");
    let out = Command::new(bin)
        .arg("check")
        .arg(support::repo())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("image lmsysorg/sglang:dev-muse-spark-open · sglang.launch_server (v0.5.23): 90/90 command lines parse"), "{text}");
    assert!(text.ends_with("check passed\n"));
}

/// A book of the real Qwen3.8-Flash-Next and DeepSeek-V4.1 pages, each image
/// mapped to the registry of the release it names.
fn real_book(data: &Path, flags: &Path) -> support::Scratch {
    let dir = support::temp("real-check");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut summary = String::from("# Summary\n\n");
    for (file, page) in [
        ("agentx-qwen3.8-flash-next.json", "Qwen3.8-Flash-Next"),
        ("agentx-deepseek-v4_1.json", "DeepSeek-V4.1"),
    ] {
        std::fs::copy(data.join(file), dir.join("data").join(file)).unwrap();
        let chapter = file.replace(".json", ".md");
        std::fs::write(
            dir.join("src").join(&chapter),
            format!("# {page}\n\n<<agentx page=\"{page}\">>\n"),
        )
        .unwrap();
        summary.push_str(&format!("- [{page}]({chapter})\n"));
    }
    std::fs::write(dir.join("src/SUMMARY.md"), summary).unwrap();
    let f = |name: &str| flags.join(name).display().to_string();
    let toml = format!(
        r#"[book]
src = "src"

[preprocessor.agentx]
data-dir = "data"
# The registries are read where they are, in ../shared.
allow-outside = true

[preprocessor.agentx.registries]
default = {{ "sglang.launch_server" = "{}", "dynamo.sglang" = "{}", "sglang_router.launch_router" = "{}", "dynamo.frontend" = "{}" }}
"lmsysorg/sglang:v0.5.21-cu130" = "{}"
"lmsysorg/sglang:qwen38flashnext" = "{}"
"#,
        // Nightlies name no release: the newest release is the closest registry.
        f("sglang.launch_server@v0.5.23.json"),
        f("dynamo.sglang@v1.6.1.json"),
        f("sglang_router.launch_router@v0.3.2.json"),
        f("dynamo.frontend@v1.6.1.json"),
        f("sglang.launch_server@v0.5.21.json"),
        // The Qwen3.8 image's tag names no release. Its commands use
        // --cuda-graph-max-bs, which v0.5.20 split into -decode/-prefill (the
        // bare spelling is then an ambiguous prefix): v0.5.19 is the newest
        // release that accepts them.
        f("sglang.launch_server@v0.5.19.json"),
    );
    std::fs::write(dir.join("book.toml"), toml).unwrap();
    dir
}

/// DeepSeek-V4.1's failures, classified.
fn deepseek_router_failures(report: &mdbook_agentx::CheckReport) {
    // DeepSeek-V4.1: every worker (sglang and dynamo.sglang) and frontend line
    // parses. What remains are router lines of the SGLang-router variants: the
    // DP-attention router flags `--connect-timeout-secs` and
    // `--policy consistent_hashing` are in no registry we have (sglang-router
    // v0.3.2, nor the later stored snapshot 05e589a); these nightly images ship
    // a newer sglang-router. They are exactly these, and nothing else.
    let mut classes: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for f in &report.failures {
        let what = if f.message.starts_with("unknown option") {
            "unknown option".to_string()
        } else {
            f.message.split(';').next().unwrap().to_string()
        };
        *classes
            .entry((f.entrypoint.clone(), f.flag.clone(), what))
            .or_default() += 1;
    }
    let classes: Vec<(String, String, String, usize)> = classes
        .into_iter()
        .filter(|((e, _, _), _)| e != "dynamo.sglang")
        .map(|((e, f, w), n)| (e, f, w, n))
        .collect();
    assert_eq!(
        classes,
        [
            (
                "sglang_router.launch_router".into(),
                "--connect-timeout-secs".into(),
                "unknown option".into(),
                21
            ),
            (
                "sglang_router.launch_router".into(),
                "--policy".into(),
                "`consistent_hashing` is not a valid choice for --policy".into(),
                12
            ),
        ]
    );
}

/// The real Qwen3.8-Flash-Next and DeepSeek-V4.1 command sets, each image
/// checked against the registry of the release it names. Every failure that
/// remains is listed and explained here.
#[test]
fn real_data_against_release_registries() {
    let (Some(flags), Some(data)) = (
        support::shared("reference/flags"),
        support::shared("reference/sglang-cookbook"),
    ) else {
        return;
    };
    let dir = real_book(&data, &flags);
    let report = check(&dir).unwrap();
    assert!(report.links.problems.is_empty(), "{:?}", report.links);
    assert!(report.unconfigured.is_empty(), "{:?}", report.unconfigured);
    assert!(
        report.tiers.is_empty(),
        "{:?}",
        report
            .tiers
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
    );

    // Qwen3.8-Flash-Next: every SGLang command line parses. The Dynamo
    // variants of the `qwen38flashnext` image fail on one flag: dynamo.sglang
    // v1.6.1 bundles sglang 0.5.21, where `--cuda-graph-max-bs` is an
    // ambiguous prefix. A real finding: those derived commands need a Dynamo
    // built against the image's own SGLang.
    let qwen: Vec<String> = report
        .failures
        .iter()
        .filter(|f| f.page == "Qwen3.8-Flash-Next")
        .map(|f| format!("{} {} {} {}", f.image, f.entrypoint, f.flag, f.message))
        .collect();
    assert_eq!(qwen.len(), 14, "{qwen:?}");
    assert!(qwen.iter().all(|f| f
        == "lmsysorg/sglang:qwen38flashnext dynamo.sglang --cuda-graph-max-bs ambiguous option: could match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill"));

    deepseek_router_failures(&report);
    for t in &report.images {
        eprintln!(
            "image {} · {} ({}): {}/{} command lines parse",
            t.image, t.entrypoint, t.registry, t.parsed, t.lines
        );
        let explained = t.entrypoint == "sglang_router.launch_router"
            || (t.entrypoint == "dynamo.sglang" && t.image == "lmsysorg/sglang:qwen38flashnext");
        if !explained {
            assert_eq!(t.parsed, t.lines, "{} {}", t.image, t.entrypoint);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
