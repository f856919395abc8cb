//! The real pages under real mdBook, beyond what `browser_real`'s long run
//! checks there (pages open with Copy all in view, the picker's choices,
//! control text): axe finds no serious or critical violation at 1400 px and
//! 390 px, light and dark (and at 1400 px in mdBook's rust, coal and ayu
//! themes), on the largest model page opened at a launch
//! beyond its light part (its whole data read from the book's data pages in
//! frames: the window it shows is checked too), on the largest deployment
//! page, and on a data page itself; and no console error. mdBook's own menu
//! bar and sidebar are left out: axe finds two violations in mdBook 0.5.4's
//! sidebar toggle (a `label` with `aria-expanded` and `aria-label`), which
//! is mdBook's markup, kept intact; they are printed.

use serde_json::json;

use crate::browser::{Driver, chromedriver};
use crate::browser_axe::{MDBOOK_OWN, axe_violations_in};
use crate::browser_chrome::{axe_source, view};
use crate::browser_real::real_book;
use crate::support;

#[test]
fn browser_real_pages_under_mdbook_pass_axe_with_their_data_loaded() {
    let Some(driver) = chromedriver() else { return };
    if !support::mdbook_available() {
        return;
    }
    let Some(book) = real_book("real-pages-mdbook-axe") else {
        eprintln!("SKIPPED: ../shared/reference/sglang-cookbook-pages is missing");
        return;
    };
    let Some(axe) = axe_source() else { return };
    let out = book.join("mdbook-out");
    support::mdbook_build(&book, &out);
    // The last set of the model's largest deployment: not the launch the
    // model page opens on, so not in its light part.
    let deployment = largest_deployment_page(&out);
    let last = last_set(&out.join(&deployment)).expect("a set on deepseek-v4's largest page");
    let pages = [
        format!("deepseek-v4.html#{last}"),
        deployment,
        "deepseek-v4/agentx_launch_data.html".to_string(),
    ];
    let base = format!("file://{}/", out.display());
    let d = Driver::start(&driver, "real-pages-mdbook-axe");
    let check = |page: &str, what: &str| {
        d.goto("about:blank");
        d.goto(&format!("{base}{page}"));
        if page.contains('#') {
            crate::browser_mdbook::wait_until(
                &d,
                &format!(
                    "var w = document.querySelector('.agentx-picker .agentx-data-window'); \
                     return !!w && w.getAttribute('data-anchor') === {};",
                    json!(last)
                ),
                "the model page shows the launch its URL names",
            );
        }
        let v = axe_violations_in(&d, &axe, json!({"exclude": MDBOOK_OWN}));
        assert!(
            v.is_empty(),
            "mdBook: {page} {what}: axe serious/critical: {v:#?}"
        );
    };
    for (w, h) in [(1400, 900), (390, 844)] {
        for dark in [false, true] {
            view(&d, w, h, dark);
            for page in &pages {
                check(page, &format!("at {w} px, dark {dark}"));
            }
            eprintln!(
                "real pages, mdBook, {w} px, dark {dark}: axe 0 serious/critical on {pages:?}"
            );
            if (w, dark) == (1400, false) {
                let own = axe_violations_in(&d, &axe, json!({"include": MDBOOK_OWN}));
                eprintln!("real pages, mdBook's own menu bar and sidebar (not ours): {own:#?}");
            }
        }
    }
    // mdBook's other themes, chosen as a reader chooses them (its theme
    // menu stores the choice): light and navy are the two above.
    view(&d, 1400, 900, false);
    for theme in ["rust", "coal", "ayu"] {
        d.goto(&format!("{base}index.html"));
        d.exec(
            "localStorage.setItem('mdbook-theme', arguments[0]);",
            json!([theme]),
        );
        for page in &pages {
            check(page, &format!("at 1400 px, theme {theme}"));
            let on = d.exec(
                "return document.documentElement.classList.contains(arguments[0]);",
                json!([theme]),
            );
            assert_eq!(on, true, "{page}: mdBook's {theme} theme is on");
        }
        eprintln!(
            "real pages, mdBook, 1400 px, theme {theme}: axe 0 serious/critical on {pages:?}"
        );
    }
    d.goto(&format!("{base}index.html"));
    d.exec("localStorage.removeItem('mdbook-theme');", json!([]));
    let errors = d.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}

/// The anchor of the last set on the deployment page at `page`.
fn last_set(page: &std::path::Path) -> Option<String> {
    let page = support::read(page);
    let anchor = page
        .rsplit("<div class=\"agentx-set\" data-anchor=\"")
        .next()?;
    Some(anchor.split('"').next()?.to_string())
}

/// The largest deployment page of deepseek-v4 (relative to the site).
fn largest_deployment_page(out: &std::path::Path) -> String {
    let mut pages: Vec<(u64, String)> = std::fs::read_dir(out.join("deepseek-v4"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| {
            !e.file_name()
                .to_string_lossy()
                .starts_with("agentx_launch_data")
        })
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (e.metadata().unwrap().len(), format!("deepseek-v4/{name}"))
        })
        .collect();
    pages.sort();
    pages.pop().unwrap().1
}
