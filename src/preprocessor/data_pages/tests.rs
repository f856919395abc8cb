use mdbook_preprocessor::book::SectionNumber;
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::*;
use crate::decode::Deployment;
use crate::render::{SECTION_ANCHOR, SectionOptions, model_data_scripts};
use crate::test_support::fixture;

/// The mini fixture's section as a chapter's Markdown (its model named
/// `model`), its model data's JSON, and a repeat of it naming the section.
fn mini_section(model: &str) -> (String, String) {
    let mut page = crate::decode::decode_file(&fixture("data/mini.json"))
        .unwrap()
        .page;
    page.model = model.to_string();
    let deployments: Vec<&Deployment> = page.deployments.iter().collect();
    let opts = SectionOptions {
        heading_level: 2,
        anchor: SECTION_ANCHOR.into(),
        subchapter_dir: "mini".into(),
        chapter_file: "mini.md".into(),
    };
    let picker = crate::render::model_data_json(&page, &deployments, "mini");
    let section =
        crate::render::render_section(&page, &deployments, &picker, &opts, &|_| true, None);
    let scripts = model_data_scripts(&section.markdown).unwrap();
    assert_eq!(scripts.len(), 1);
    let json = section.markdown[scripts[0].clone()].to_string();
    (section.markdown, json)
}

fn chapter(name: &str, path: &str, content: String, number: Vec<u32>) -> Chapter {
    let mut ch = Chapter::new(name, content, path, Vec::new());
    ch.number = Some(SectionNumber::new(number));
    ch
}

fn chapters(items: &[BookItem]) -> Vec<&Chapter> {
    (items.iter())
        .filter_map(|i| match i {
            BookItem::Chapter(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// The JSON of the `agentx-data-part` script of a data page's Markdown.
fn piece(markdown: &str) -> &str {
    let open = "<script type=\"application/json\" class=\"agentx-data-part\">";
    let at = markdown.find(open).unwrap() + open.len();
    &markdown[at..at + markdown[at..].find("</script>").unwrap()]
}

/// A chapter with a picker (and a repeat of it naming its section) keeps
/// the light part; its whole data goes into pages at the end of the book,
/// under a part of their own, in order, whose pieces join back to the data
/// exactly; a page name a chapter of the book already has is skipped; the
/// repeat and a chapter without data are left alone; each page's Markdown
/// says what it is, with the model's name as text (not markup) and a link
/// back.
#[test]
fn whole_data_goes_into_pages_and_the_chapter_keeps_the_light_part() {
    let model = "Mini *FP8* <b>";
    let (section, json) = mini_section(model);
    let repeat = format!(
        "<script type=\"application/json\" class=\"agentx-model-data\">{}</script>",
        "{\"like\":\"agentx-launches\"}"
    );
    let mut ch = chapter(
        "Mini",
        "mini.md",
        format!("# Mini\n\n{section}\n{repeat}\n"),
        vec![1],
    );
    let deployment = chapter("Dep", "mini/dep.md", "# Dep\n".into(), vec![1, 1]);
    let taken = chapter(
        "Taken",
        "mini/agentx_launch_data.md",
        "x".into(),
        vec![1, 2],
    );
    ch.sub_items = vec![BookItem::Chapter(deployment), BookItem::Chapter(taken)];
    let plain = chapter("Plain", "plain.md", "# Plain\n".into(), vec![2]);
    let mut book = Book::new_with_items(vec![BookItem::Chapter(ch), BookItem::Chapter(plain)]);
    let max = json.len() / 3 + 1;
    split_book(&mut book, max);

    assert_eq!(book.items.len(), 6);
    assert!(matches!(&book.items[2], BookItem::PartTitle(t) if t == "Launch data"));
    let top = chapters(&book.items);
    assert_eq!(top[1].content, "# Plain\n");
    assert_eq!(
        chapters(&top[0].sub_items).len(),
        2,
        "the chapter's own sub-chapters"
    );
    let pages = &top[2..];
    let names: Vec<&str> = pages.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("{model} (1 of 3)"),
            format!("{model} (2 of 3)"),
            format!("{model} (3 of 3)")
        ]
    );
    let paths: Vec<String> = (pages.iter())
        .map(|c| c.path.as_ref().unwrap().display().to_string())
        .collect();
    assert_eq!(
        paths,
        [
            "mini/agentx_launch_data_2.md",
            "mini/agentx_launch_data_3.md",
            "mini/agentx_launch_data_4.md"
        ]
    );
    for p in pages {
        assert_eq!(p.number, None);
        assert!(p.parent_names.is_empty());
    }
    let joined: String = pages.iter().map(|p| piece(&p.content)).collect();
    assert_eq!(joined, json);

    // The chapter: the light part, naming the pages as a deployment's href
    // is written; the repeat as it was.
    let content = &top[0].content;
    let scripts = model_data_scripts(content).unwrap();
    assert_eq!(scripts.len(), 2);
    let light: Value = serde_json::from_str(&content[scripts[0].clone()]).unwrap();
    assert_eq!(light["parts"], serde_json::json!(paths));
    assert_eq!(light["full"], "mini/agentx_launch_data_2.md");
    assert_eq!(
        light["deps"][0]["href"].as_str().unwrap().split('/').next(),
        Some("mini")
    );
    assert!(content[scripts[0].clone()].len() * 3 < json.len());
    assert_eq!(
        &content[scripts[1].clone()],
        "{\"like\":\"agentx-launches\"}"
    );
    assert!(content.ends_with(&format!("{repeat}\n")));

    // A data page as a reader sees it: its heading's text is the model's
    // name as written, and it links back to the chapter.
    let mut heading = String::new();
    let mut links = Vec::new();
    let mut in_heading = false;
    for e in Parser::new(&pages[0].content) {
        match e {
            Event::Start(Tag::Heading { .. }) => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Text(t) | Event::Code(t) if in_heading => heading.push_str(&t),
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
            Event::Html(h) | Event::InlineHtml(h) if in_heading => panic!("markup: {h}"),
            _ => {}
        }
    }
    assert_eq!(heading, format!("Launch data of {model} (1 of 3)"));
    assert_eq!(links, ["../mini.md"]);
}

/// With the whole data in one piece, the page's name has no count; a
/// chapter whose script is not model data (or not closed) stays as it is.
#[test]
fn one_page_is_named_plainly_and_what_is_not_model_data_stays() {
    let (section, json) = mini_section("Mini");
    let mut book = Book::new_with_items(vec![BookItem::Chapter(chapter(
        "Mini",
        "models/mini.md",
        section,
        vec![1],
    ))]);
    split_book(&mut book, PART_BYTES);
    let top = chapters(&book.items);
    assert_eq!(top.len(), 2);
    assert_eq!(top[1].name, "Mini");
    assert_eq!(
        top[1].path.as_deref(),
        Some(Path::new("models/mini/agentx_launch_data.md"))
    );
    assert_eq!(piece(&top[1].content), json);

    for odd in [
        "<script type=\"application/json\" class=\"agentx-model-data\">{\"a\":1}</script>",
        "<script type=\"application/json\" class=\"agentx-model-data\">{\"a\":1}",
    ] {
        let mut book = Book::new_with_items(vec![BookItem::Chapter(chapter(
            "X",
            "x.md",
            odd.into(),
            vec![1],
        ))]);
        split_book(&mut book, PART_BYTES);
        assert_eq!(book.items.len(), 1, "no part for no pages");
        assert_eq!(chapters(&book.items)[0].content, odd);
    }
}
