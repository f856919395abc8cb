use super::*;

/// Texts by (page URL, id), as a test gives them.
struct Texts(Vec<(&'static str, &'static str, &'static str)>);

impl CopyAllTexts for Texts {
    fn get(&self, page_url: &str, id: &str) -> Result<Option<String>> {
        Ok(self
            .0
            .iter()
            .find(|(p, i, _)| *p == page_url && *i == id)
            .map(|(_, _, t)| t.to_string()))
    }
}

/// A set as the renderer wraps it (blank lines around the raw HTML).
fn set(id: &str, body: &str) -> String {
    format!(
        "<div class=\"agentx-set\" data-anchor=\"{id}\" data-status=\"derived\">\n\n\
         ### c1 · SGLang {{#{id} .agentx-set}}\n\n{body}</div>\n\n"
    )
}

#[test]
fn twins_add_each_sets_copy_all_and_drop_the_selector_and_picker_data() {
    let texts = Texts(vec![
        ("m/d.html", "s-1", "echo ü\n"),
        ("m/d.html", "s-2", "run ```x```\n"),
        ("m/other.html", "s-1", "wrong page\n"),
    ]);
    let md = format!(
        "# Dëployment {{#d}}\n\n<div class=\"agentx-selector\" hidden></div>\n\n\
         <script type=\"application/json\" class=\"agentx-selector-data\">{{\"a\":1}}</script>\n\n\
         <div class=\"agentx-picker\" hidden></div>\n\
         <script type=\"application/json\" class=\"agentx-model-data\">{{\"m\":1}}</script>\n\n{}{}{}",
        set("s-1", "```bash\necho ü\n```\n\n"),
        // A wrapper's closing line inside code is code, not the wrapper's end.
        set("s-2", "```text\n</div>\n```\n\n"),
        set("unknown", "")
    );
    let twin = twin(&md, Path::new("m/d.md"), MarkdownConfig::default(), &texts).unwrap();
    // By hand: headings anchored, the selector and the model picker gone
    // (each block's lines, not the blank line after it), each known set's
    // Copy all before its `</div>` (the fence longer than the text's
    // backticks).
    let want = "# <a id=\"d\"></a>Dëployment\n\n\n\n\n\
        <div class=\"agentx-set\" data-anchor=\"s-1\" data-status=\"derived\">\n\n\
        ### <a id=\"s-1\"></a>c1 · SGLang\n\n```bash\necho ü\n```\n\n\
        **Copy all** (the whole set as one script):\n\n```bash\necho ü\n```\n\n</div>\n\n\
        <div class=\"agentx-set\" data-anchor=\"s-2\" data-status=\"derived\">\n\n\
        ### <a id=\"s-2\"></a>c1 · SGLang\n\n```text\n</div>\n```\n\n\
        **Copy all** (the whole set as one script):\n\n````bash\nrun ```x```\n````\n\n</div>\n\n\
        <div class=\"agentx-set\" data-anchor=\"unknown\" data-status=\"derived\">\n\n\
        ### <a id=\"unknown\"></a>c1 · SGLang\n\n</div>\n\n";
    assert_eq!(twin, want);
}

#[test]
fn twin_paths_sit_beside_their_pages() {
    assert_eq!(
        twin_path(Path::new("models/x/a-1.md")),
        Path::new("models/x/a-1.md")
    );
    assert_eq!(
        twin_path(Path::new("intro.markdown")),
        Path::new("intro.md")
    );
}

fn row(model: &str, chapter: &str, title: &str, sets: usize) -> OverviewRow {
    let d = crate::preprocessor::DeploymentSummary {
        model: model.into(),
        model_chapter: PathBuf::from(format!("models/{}.md", model.to_lowercase())),
        section_anchor: "agentic-long-context-deployment".into(),
        chapter: PathBuf::from(chapter),
        cell: "c#0".into(),
        title: title.into(),
        hw: "gb200".into(),
        hw_label: "GB200".into(),
        checkpoint: "ck".into(),
        label: "Agg TP4".into(),
        detail: None,
        gpus: 4,
        nodes: 1,
        status: crate::decode::Status::Derived,
        sets: Vec::new(),
    };
    let mut r = OverviewRow::of(&d);
    r.sets = sets;
    r
}

#[test]
fn llms_txt_has_a_section_per_model_and_escapes_data() {
    let rows = [
        row("A[1]", "models/a[1]/c-0.md", "GB200 · Agg *TP4*", 3),
        row("B", "models/b/c 0.md", "H200 · Agg TP8", 2),
        row("A[1]", "models/a[1]/c-1.md", "B300 · Agg TP8", 1),
    ];
    let pages = [
        PageLink {
            path: Path::new("intro.md"),
            title: "Intro",
        },
        PageLink {
            path: Path::new("models/a[1].md"),
            title: "Model A",
        },
        PageLink {
            path: Path::new("models/a[1]/c-0.md"),
            title: "A · GB200",
        },
        PageLink {
            path: Path::new("models/b.md"),
            title: "Model B",
        },
    ];
    let txt = llms_txt("My <book>", None, &rows, &pages);
    let want_start =
        "# My \\<book\\>\n\n> Launch commands for 2 models: 3 deployments, 6 command sets.\n\n";
    assert!(txt.starts_with(want_start), "{txt}");
    let sections: Vec<&str> = txt.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        sections,
        ["## A\\[1\\]", "## B", "## Other pages", "## Optional"]
    );
    for line in [
        "- [Model A](models/a%5B1%5D.md): the model page, 2 deployments, 4 command sets",
        "- [GB200 · Agg \\*TP4\\*](models/a%5B1%5D/c-0.md): 3 command sets",
        "- [B300 · Agg TP8](models/a%5B1%5D/c-1.md): 1 command sets",
        "- [H200 · Agg TP8](models/b/c%200.md): 2 command sets",
        "- [Intro](intro.md)",
        "- [Every page in one file](llms-full.txt)",
        "- [Every command set as JSON](launches.json): schema version 1",
    ] {
        assert!(txt.lines().any(|l| l == line), "{line}\n{txt}");
    }
    // The book's description is the summary when it has one.
    let txt = llms_txt("T", Some("Recipes\nfor `x`"), &rows, &pages);
    assert!(txt.contains("\n> Recipes for \\`x\\`\n"), "{txt}");
}

#[test]
fn llms_full_is_every_twin_in_order() {
    let mut twins = vec![
        Ok((PathBuf::from("a.md"), Arc::new(b"# A\n".to_vec()))),
        Ok((PathBuf::from("b c.md"), Arc::new(b"# B".to_vec()))),
    ]
    .into_iter();
    let mut out = Vec::new();
    write_llms_full(&mut out, "T", &mut twins).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "# T\n\n> Every page of this site, in reading order, as Markdown.\n\n---\n\nSource: a.md\n\n# A\n\n---\n\nSource: b%20c.md\n\n# B\n"
    );
}
