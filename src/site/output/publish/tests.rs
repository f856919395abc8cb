use std::os::unix::fs::symlink;
use std::path::PathBuf;

use super::*;

/// A staged site beside `out` holding `files` (path, text).
fn stage(out: &Path, files: &[(&str, &str)]) -> PathBuf {
    let (parent, name) = parent_and_name(out).unwrap();
    let dir = tempfile::Builder::new()
        .prefix(&staging_prefix(&name))
        .rand_bytes(RANDOM_LEN)
        .tempdir_in(parent)
        .unwrap()
        .keep();
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// Every entry of `dir` (not following symlinks), as `rel` or `rel -> target`.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            match std::fs::read_link(e.path()) {
                Ok(t) => format!("{rel} -> {}", t.display()),
                Err(_) => rel,
            }
        })
        .collect();
    v.sort();
    v
}

/// The names in `parent` with generation names of `out` replaced by `GEN`.
fn shape(parent: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if is_generation("out", &name) {
                "GEN".to_string()
            } else {
                name
            }
        })
        .collect();
    v.sort();
    v
}

fn no_exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(ErrorKind::Unsupported.into())
}

/// [`publish`] without the grace period: replaced generations go at once.
fn publish_now(staged: &Path, out: &Path) -> Result<Published> {
    publish_with(staged, out, exchange, Duration::ZERO, &Default::default())
}

#[test]
fn generations_swap_by_symlink_and_only_the_previous_one_stays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (i, text) in ["one", "two", "three"].iter().enumerate() {
        let staged = stage(&out, &[("index.html", text), ("m/x.html", text)]);
        assert_eq!(publish_now(&staged, &out).unwrap(), Published::Swapped);
        assert!(!staged.exists());
        assert_eq!(
            std::fs::read_to_string(out.join("index.html")).unwrap(),
            *text
        );
        let target = std::fs::read_link(&out).unwrap();
        assert!(is_generation("out", target.to_str().unwrap()), "{target:?}");
        // The new generation and the one it replaced; nothing older.
        let generations = 1 + usize::from(i > 0);
        let mut want = vec!["GEN"; generations];
        want.push("out");
        assert_eq!(shape(dir.path()), want, "publish {i}");
    }
}

#[test]
fn generations_replaced_within_the_grace_period_stay() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for text in ["one", "two", "three", "four"] {
        let staged = stage(&out, &[("index.html", text)]);
        publish(&staged, &out, &Default::default()).unwrap();
    }
    // All replaced within GRACE: all kept (a reader may still be in one).
    assert_eq!(shape(dir.path()), ["GEN", "GEN", "GEN", "GEN", "out"]);
    // Once it has passed, the next publish keeps the current and the previous.
    let staged = stage(&out, &[("index.html", "five")]);
    publish_with(&staged, &out, exchange, Duration::ZERO, &Default::default()).unwrap();
    assert_eq!(shape(dir.path()), ["GEN", "GEN", "out"]);
}

/// Regression: the old directory was renamed to the new generation's own
/// name when the staging name ended in `x` (one build in 62 failed with
/// "Directory not empty").
#[test]
fn a_real_output_directory_is_exchanged_whatever_the_staging_name() {
    for random in ["abcdefghijkx", "abcdefghijky", "abcdefghijk1"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("index.html"), "old").unwrap();
        let staged = dir
            .path()
            .join(format!("{}{random}", staging_prefix("out")));
        std::fs::create_dir(&staged).unwrap();
        std::fs::write(staged.join("index.html"), "new").unwrap();
        assert_eq!(
            publish(&staged, &out, &Default::default()).unwrap(),
            Published::Swapped,
            "{random}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("index.html")).unwrap(),
            "new"
        );
        assert_eq!(shape(dir.path()), ["GEN", "GEN", "out"], "{random}");
    }
}

#[test]
fn a_real_output_directory_is_exchanged_for_the_symlink_in_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("old")).unwrap();
    std::fs::write(out.join("index.html"), "old").unwrap();
    let staged = stage(&out, &[("index.html", "new")]);
    assert_eq!(
        publish(&staged, &out, &Default::default()).unwrap(),
        Published::Swapped
    );
    assert!(
        std::fs::symlink_metadata(&out)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(out.join("index.html")).unwrap(),
        "new"
    );
    // The old directory is now the previous generation, removed next time.
    assert_eq!(shape(dir.path()), ["GEN", "GEN", "out"]);
    let staged = stage(&out, &[("index.html", "newer")]);
    publish_now(&staged, &out).unwrap();
    assert_eq!(shape(dir.path()), ["GEN", "GEN", "out"]);
    assert!(listing(dir.path()).iter().all(|e| !e.ends_with("/old")));
}

#[test]
fn without_an_exchange_a_real_directory_is_synced_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(out.join("stale/deep")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(out.join("index.html"), "old").unwrap();
    std::fs::write(out.join("stale/deep/x.html"), "old").unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "not ours").unwrap();
    // A symlink in the output is replaced, never written through.
    symlink(&elsewhere, out.join("m")).unwrap();
    symlink(elsewhere.join("keep.txt"), out.join("gone.html")).unwrap();
    let staged = stage(&out, &[("index.html", "new"), ("m/x.html", "new")]);
    assert_eq!(
        publish_with(&staged, &out, no_exchange, GRACE, &Default::default()).unwrap(),
        Published::SyncedInPlace
    );
    assert_eq!(listing(&out), ["index.html", "m", "m/x.html"]);
    assert_eq!(
        std::fs::read_to_string(out.join("m/x.html")).unwrap(),
        "new"
    );
    assert_eq!(listing(&elsewhere), ["keep.txt"]);
    // No generation, link or staging directory is left beside it.
    assert_eq!(shape(dir.path()), ["elsewhere", "out"]);
}

#[test]
fn links_and_files_that_are_not_ours_are_replaced_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "not ours").unwrap();
    symlink(&elsewhere, &out).unwrap();
    let staged = stage(&out, &[("index.html", "new")]);
    assert_eq!(
        publish(&staged, &out, &Default::default()).unwrap(),
        Published::Swapped
    );
    assert_eq!(listing(&elsewhere), ["keep.txt"]);
    assert_eq!(shape(dir.path()), ["GEN", "elsewhere", "out"]);
    // A file where the output directory should be is an error; nothing moves.
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let staged = stage(&file, &[("index.html", "new")]);
    let err = publish(&staged, &file, &Default::default()).unwrap_err();
    assert!(
        format!("{err:#}").contains("is a file, not a directory"),
        "{err:#}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    assert_eq!(shape(dir.path()), ["GEN", "elsewhere", "file", "out"]);
}

#[test]
fn concurrent_publishes_leave_one_whole_site() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::thread::scope(|s| {
        for t in 0..4 {
            let out = &out;
            s.spawn(move || {
                for i in 0..10 {
                    let text = format!("{t}-{i}");
                    let staged = stage(out, &[("index.html", &text), ("a/b.html", &text)]);
                    publish_now(&staged, out).unwrap();
                }
            });
        }
    });
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("a/b.html")).unwrap(),
        index
    );
    assert_eq!(shape(dir.path()), ["GEN", "GEN", "out"]);
}
