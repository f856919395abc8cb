//! Injection: every string field of the schema, filled with hostile text,
//! never becomes markup in the built site, the single-file export or
//! mdBook's output.
//!
//! The fields are the string values of `tests/fixtures/schema/maximal.json`,
//! which a unit test keeps equal to the serialized maximal sample built from
//! the schema types (`src/data/sample.rs`): the list is generated from the
//! types, not written here. Each payload goes into every field at once
//! (with the field's number in it, so a leak says where it came from); a
//! field whose payload makes the file fail to load is refused at load,
//! which is also safe, and the others are split into files that load.
//!
//! Pages are read by the WHATWG parser ([`html`]) and compared with the
//! same book built from the untouched sample: no page may have a script
//! element, `on*` attribute, script-capable URL or embedding element that
//! the untouched book does not have. In Chromium, no injected page changes
//! `document.title` (every payload tries to).

mod html;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mdbook_agentx::{BuildOptions, decode_str};
use serde_json::{Value, json};

use crate::support;

/// What every payload tries to do, and how a leak is recognised.
const MARK: &str = "pwned";

/// Payloads; `{n}` becomes the field's number.
const PAYLOADS: &[&str] = &[
    "<script>document.title='pwned{n}'</script>",
    "\"><img src=x onerror=\"document.title='pwned{n}'\">",
    "javascript:document.title='pwned{n}'",
    "`` ` </SCRIPT><svg onload=document.title='pwned{n}'> `",
    "[x](javascript:document.title='pwned{n}') ![y](data:text/html,<script>document.title='pwned{n}'</script>) <<agentx page=\"Maximal\">> *a* _b_ | c",
    "a\n\n<img src=x onerror=document.title='pwned{n}'>\n```\n# H {onclick=document.title='pwned{n}'}\r\n</style><iframe src=javascript:document.title='pwned{n}'>",
    "&lt;script&gt;document.title='pwned{n}'&lt;/script&gt; &#x3C;img src=x onerror=document.title='pwned{n}'&#x3E; \\<b onmouseover=document.title='pwned{n}'>",
    "{{#include /etc/passwd}} {{#title pwned{n}}}",
];

fn maximal() -> Value {
    serde_json::from_str(&support::read(&support::fixture("schema/maximal.json"))).unwrap()
}

fn pointers(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    support::string_pointers(v, String::new(), &mut out);
    out
}

/// The sample with payload `p` in the given fields, and a page name of its own.
fn injected(base: &Value, ptrs: &[String], p: usize, fields: &[usize], tag: &str) -> Value {
    let mut v = base.clone();
    v["model"] = json!(format!("Injected {tag}"));
    for &i in fields {
        let text = PAYLOADS[p].replace("{n}", &i.to_string());
        *v.pointer_mut(&ptrs[i]).unwrap() = Value::String(text);
    }
    v
}

fn loads(v: &Value) -> bool {
    decode_str(&v.to_string(), Path::new("injected.json")).is_ok()
}

/// The data files of an injected book, and what was refused at load.
#[derive(Default)]
struct Injection {
    files: Vec<(String, Value)>,
    /// (payload, field) pairs refused at load.
    refused: Vec<(usize, usize)>,
}

/// Payload `p` in every field that takes it: a field is tried alone first
/// (a refusal at load is safe, and is counted), then all the fields that
/// load alone go into one file. Should some not load together, the set is
/// halved until each part loads, so the book stays a few files.
fn inject(base: &Value, ptrs: &[String], p: usize, out: &mut Injection) {
    let mut accepted = Vec::new();
    for i in 0..ptrs.len() {
        if loads(&injected(base, ptrs, p, &[i], "probe")) {
            accepted.push(i);
        } else {
            out.refused.push((p, i));
        }
    }
    let mut pending = vec![accepted];
    while let Some(fields) = pending.pop() {
        let tag = format!("{p}-{}", out.files.len());
        let v = injected(base, ptrs, p, &fields, &tag);
        if loads(&v) || fields.len() == 1 {
            out.files.push((format!("p{tag}"), v));
        } else {
            let (a, b) = fields.split_at(fields.len() / 2);
            pending.push(a.to_vec());
            pending.push(b.to_vec());
        }
    }
}

fn injection() -> (Injection, Vec<String>) {
    let base = maximal();
    let ptrs = pointers(&base);
    let mut out = Injection::default();
    for p in 0..PAYLOADS.len() {
        inject(&base, &ptrs, p, &mut out);
    }
    (out, ptrs)
}

/// A book with one chapter per data file, each showing its page.
fn write_book(dir: &Path, files: &[(String, Value)]) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("book.toml"),
        "[book]\ntitle = \"Injected\"\nsrc = \"src\"\n\n[preprocessor.agentx]\ndata-dir = \"data\"\n",
    )
    .unwrap();
    let mut summary = String::from("# Summary\n\n");
    for (i, (name, v)) in files.iter().enumerate() {
        std::fs::write(dir.join(format!("data/{name}.json")), v.to_string()).unwrap();
        let chapter = format!("# Page {i}\n\n<<agentx data=\"data/{name}.json\">>\n");
        std::fs::write(dir.join(format!("src/{name}.md")), chapter).unwrap();
        summary.push_str(&format!("- [Page {i}]({name}.md)\n"));
    }
    std::fs::write(dir.join("src/SUMMARY.md"), summary).unwrap();
}

/// `script src=` values without `../` and content hashes, so pages at any
/// depth and builds of other content compare.
fn normalized(sig: &str) -> String {
    let Some(src) = sig.strip_prefix("script src=") else {
        return sig.to_string();
    };
    let src = src.trim_start_matches("../").trim_start_matches("./");
    let mut out = String::new();
    for part in src.split('-') {
        let hash = part.len() >= 8
            && part
                .split('.')
                .next()
                .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
        out.push_str(if hash { "HASH" } else { part });
        out.push('-');
    }
    out.pop();
    format!("script src={out}")
}

/// Signatures of every HTML file under `dir` (or of one file).
fn pages(dir: &Path) -> Vec<(PathBuf, BTreeMap<String, usize>)> {
    support::files_under(dir)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .map(|(p, bytes)| {
            let sig = html::signatures(&String::from_utf8_lossy(&bytes));
            let mut norm = BTreeMap::new();
            for (k, n) in sig {
                *norm.entry(normalized(&k)).or_insert(0) += n;
            }
            (p, norm)
        })
        .collect()
}

/// No page of `injected` has a signature more often than some page of the
/// untouched `baseline` has it.
fn assert_no_injection(
    what: &str,
    baseline: &[(PathBuf, BTreeMap<String, usize>)],
    injected: &[(PathBuf, BTreeMap<String, usize>)],
) {
    let mut allowed: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, sig) in baseline {
        for (k, n) in sig {
            let a = allowed.entry(k.as_str()).or_insert(0);
            *a = (*a).max(*n);
        }
    }
    assert!(!injected.is_empty(), "{what}: no pages");
    for (page, sig) in injected {
        for (k, n) in sig {
            let max = allowed.get(k.as_str()).copied().unwrap_or(0);
            assert!(
                *n <= max,
                "{what}: {}: `{k}` {n} time(s), the untouched book at most {max}",
                page.display()
            );
        }
    }
}

/// The three outputs of a book: the site, the directory of the single
/// file, mdBook's site (when mdBook is installed).
struct Outputs {
    site: PathBuf,
    single: PathBuf,
    mdbook: Option<PathBuf>,
}

fn build_all(book: &Path) -> Outputs {
    let site = book.join("out-site");
    let opts = BuildOptions {
        dest: Some(site.clone()),
        ..BuildOptions::default()
    };
    mdbook_agentx::build(book, &opts).unwrap();
    let single_dir = book.join("out-single");
    std::fs::create_dir_all(&single_dir).unwrap();
    let single = mdbook_agentx::export_single_file(book).unwrap().html;
    std::fs::write(single_dir.join("book.html"), single).unwrap();
    let mdbook = crate::support::mdbook_available().then(|| {
        let out = book.join("out-mdbook");
        support::mdbook_build(book, &out);
        out
    });
    Outputs {
        site,
        single: single_dir,
        mdbook,
    }
}

/// A JSON pointer with its array indices as `[]`: the schema field it is.
fn schema_path(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|s| if s.parse::<usize>().is_ok() { "[]" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// The injected book and an untouched one of the same shape (as many
/// chapters, each showing the sample as it is), built.
fn books() -> (support::Scratch, Outputs, Outputs, Injection, usize) {
    let scratch = support::temp("injection");
    let (inj, ptrs) = injection();
    let injected_book = scratch.join("injected");
    write_book(&injected_book, &inj.files);
    let baseline_book = scratch.join("baseline");
    let untouched: Vec<(String, Value)> = (0..inj.files.len())
        .map(|i| {
            let mut v = maximal();
            v["model"] = json!(format!("Untouched {i}"));
            (format!("u{i}"), v)
        })
        .collect();
    write_book(&baseline_book, &untouched);
    let injected = build_all(&injected_book);
    let baseline = build_all(&baseline_book);
    (scratch, injected, baseline, inj, ptrs.len())
}

/// Every string field × every payload: no executable injected markup in the
/// three outputs (parsed, not grepped), and in Chromium (when installed) no
/// page whose title a payload changed.
#[test]
fn injected_data_never_becomes_markup() {
    let (_scratch, injected, baseline, inj, fields) = books();
    let distinct: std::collections::BTreeSet<String> = pointers(&maximal())
        .iter()
        .map(|p| schema_path(p))
        .collect();
    eprintln!(
        "injection: {fields} string fields ({} distinct schema paths) × {} payloads; {} field/payload pairs refused at load, the rest in {} data files",
        distinct.len(),
        PAYLOADS.len(),
        inj.refused.len(),
        inj.files.len()
    );
    // Fields no payload gets into: names, ids and enum values the schema
    // restricts (listed, so a field that starts refusing text shows here).
    let ptrs = pointers(&maximal());
    let taken: std::collections::BTreeSet<String> = (0..fields)
        .filter(|i| (0..PAYLOADS.len()).any(|p| !inj.refused.contains(&(p, *i))))
        .map(|i| schema_path(&ptrs[i]))
        .collect();
    let always: Vec<&String> = distinct.difference(&taken).collect();
    eprintln!("injection: refused with every payload: {always:?}");
    // Every payload but mdBook's include syntax (refused at load in every
    // field) reached the pages in some field.
    for p in 0..PAYLOADS.len() - 1 {
        assert!(
            inj.files
                .iter()
                .any(|(n, _)| n.starts_with(&format!("p{p}-"))),
            "payload {p} was refused everywhere"
        );
    }
    assert_no_injection("site", &pages(&baseline.site), &pages(&injected.site));
    assert_no_injection(
        "single file",
        &pages(&baseline.single),
        &pages(&injected.single),
    );
    if let (Some(b), Some(i)) = (&baseline.mdbook, &injected.mdbook) {
        assert_no_injection("mdBook", &pages(b), &pages(i));
    }
    // The payloads are there, as text: the pages show them, escaped.
    let site_text: String = support::files_under(&injected.site)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .map(|(_, b)| String::from_utf8_lossy(&b).into_owned())
        .collect();
    assert!(
        site_text.contains("&lt;script&gt;document.title="),
        "the payload text is shown"
    );
    titles_unchanged_in_chromium(&injected);
}

/// In Chromium, no page of the three outputs gets a title a payload set
/// (every payload sets it to `pwned<field>`; a page's own title may show
/// payload text, which is not a change).
fn titles_unchanged_in_chromium(injected: &Outputs) {
    let Some(driver) = crate::browser::chromedriver() else {
        return;
    };
    let d = crate::browser::Driver::start(&driver, "injection");
    let mut dirs = vec![injected.site.clone(), injected.single.clone()];
    dirs.extend(injected.mdbook.clone());
    let mut visited = 0;
    for dir in dirs {
        for page in crate::browser::pages_of(&dir) {
            let url = format!("file://{}/{page}", dir.display());
            d.goto(&url);
            // Handlers such as `onerror` run after load.
            std::thread::sleep(Duration::from_millis(100));
            let title = d.exec("return document.title;", json!([]));
            let title = title.as_str().unwrap_or_default();
            assert!(!title.starts_with(MARK), "{url}: title became {title:?}");
            visited += 1;
        }
    }
    eprintln!("injection in Chromium: {visited} pages loaded, no title changed");
}
