//! What `mdbook build` through the preprocessor checks of a book's set-up,
//! and says on stderr with the fix: the AgentX assets installed, listed in
//! `[output.html]` and as new as the binary; the data directory outside the
//! source directory (whose files mdBook publishes) and watched by `mdbook
//! serve`.

use std::path::{Path, PathBuf};

use super::assets::{AGENTX_ASSETS, AgentxAsset, Installed, installed_state, is_older};
use crate::book::BookDir;
use crate::util::fs::Bounds;

/// A set-up problem of an mdBook book, each with its fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SetupWarning {
    /// The asset file is not in the book.
    AssetMissing { name: &'static str },
    /// The file is there but `[output.html]` does not load it.
    AssetNotListed {
        name: &'static str,
        key: &'static str,
    },
    /// Installed by another version (`older`: by an older one; `None`: cannot tell).
    AssetOutdated {
        name: &'static str,
        version: String,
        older: Option<bool>,
    },
    /// The data directory is inside the source directory.
    DataPublished { data_dir: PathBuf, src: PathBuf },
    /// Neither in the source directory nor in `[build] extra-watch-dirs`.
    DataNotWatched { data_dir: PathBuf },
}

impl std::fmt::Display for SetupWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const FIX: &str = "run `mdbook-agentx install` in the book's directory";
        match self {
            SetupWarning::AssetMissing { name } => write!(
                f,
                "{name} is not in the book, so command sets lack the AgentX reader features; {FIX}"
            ),
            SetupWarning::AssetNotListed { name, key } => write!(
                f,
                "{name} is not in [output.html] {key} of book.toml, so pages do not load it; {FIX}"
            ),
            SetupWarning::AssetOutdated {
                name,
                version,
                older,
            } => match older {
                Some(false) => write!(
                    f,
                    "{name} was installed by mdbook-agentx {version}, newer than this one ({}); \
                     update mdbook-agentx (`cargo install mdbook-agentx`)",
                    super::assets::VERSION
                ),
                _ => write!(
                    f,
                    "{name} was installed by mdbook-agentx {version} and differs from this \
                     one's ({}); {FIX} to update it",
                    super::assets::VERSION
                ),
            },
            SetupWarning::DataPublished { data_dir, src } => write!(
                f,
                "the data directory {} is inside the source directory {}, so mdBook copies the \
                 data files into the published site; move it out (e.g. to `agentx/`), set \
                 `data-dir` in [preprocessor.agentx], then {FIX}",
                data_dir.display(),
                src.display()
            ),
            SetupWarning::DataNotWatched { data_dir } => write!(
                f,
                "`mdbook serve` does not rebuild when a data file in {} changes: it is not in \
                 [build] extra-watch-dirs; {FIX}",
                data_dir.display()
            ),
        }
    }
}

/// What a book's set-up looks like to the check: the parts of `book.toml`
/// it reads (all paths relative to `root`).
pub(crate) struct BookSetup<'a> {
    pub root: &'a Path,
    pub src: &'a Path,
    pub data_dir: &'a Path,
    pub extra_watch_dirs: &'a [PathBuf],
    pub additional_css: &'a [PathBuf],
    pub additional_js: &'a [PathBuf],
    /// What may be read (the asset files).
    pub bounds: &'a Bounds,
}

impl<'a> BookSetup<'a> {
    /// The set-up of a book as its `book.toml` describes it.
    pub(crate) fn of(book: &'a BookDir) -> BookSetup<'a> {
        BookSetup {
            root: &book.root,
            src: &book.config.book.src,
            data_dir: &book.agentx.data_dir,
            extra_watch_dirs: &book.config.build.extra_watch_dirs,
            additional_css: &book.html.additional_css,
            additional_js: &book.html.additional_js,
            bounds: &book.bounds,
        }
    }
}

/// Every problem of `book`, assets first.
pub(crate) fn setup_warnings(book: &BookSetup<'_>) -> Vec<SetupWarning> {
    let mut out = Vec::new();
    for asset in AGENTX_ASSETS {
        out.extend(asset_warning(book, asset));
    }
    let data = clean(book.data_dir);
    if data.starts_with(clean(book.src)) {
        out.push(SetupWarning::DataPublished {
            data_dir: book.data_dir.to_path_buf(),
            src: book.src.to_path_buf(),
        });
    } else if !book
        .extra_watch_dirs
        .iter()
        .any(|w| data.starts_with(clean(w)))
    {
        out.push(SetupWarning::DataNotWatched {
            data_dir: book.data_dir.to_path_buf(),
        });
    }
    out
}

fn asset_warning(book: &BookSetup<'_>, asset: &AgentxAsset) -> Option<SetupWarning> {
    let name = asset.name;
    let key = asset.kind().html_key();
    let listed = match asset.kind() {
        super::assets::AssetKind::Css => book.additional_css,
        super::assets::AssetKind::Js => book.additional_js,
    };
    let path = book.root.join(name);
    // A file that cannot be read is reported by mdBook when it copies it.
    match installed_state(asset, &path, book.bounds).ok()? {
        Installed::Missing => return Some(SetupWarning::AssetMissing { name }),
        Installed::Other { version } => {
            let older = is_older(&version);
            return Some(SetupWarning::AssetOutdated {
                name,
                version,
                older,
            });
        }
        // Edited or replaced by the user: theirs to keep.
        Installed::Current | Installed::Edited | Installed::Foreign => {}
    }
    let wanted = clean(Path::new(name));
    (!listed.iter().any(|p| clean(p) == wanted))
        .then_some(SetupWarning::AssetNotListed { name, key })
}

/// `p` without `.` components (`./agentx/` is `agentx`).
fn clean(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Case {
        what: &'static str,
        /// Installed file text, `None` for no file.
        installed: Option<String>,
        css: &'static [&'static str],
        src: &'static str,
        data: &'static str,
        watched: &'static [&'static str],
        want: Vec<SetupWarning>,
    }

    fn check(case: &Case) {
        let dir = tempfile::tempdir().unwrap();
        let asset = &AGENTX_ASSETS[0];
        if let Some(text) = &case.installed {
            std::fs::write(dir.path().join(asset.name), text).unwrap();
        }
        // The other assets (agentx.js) installed and listed: the cases vary the first.
        let mut js = Vec::new();
        for other in &AGENTX_ASSETS[1..] {
            std::fs::write(dir.path().join(other.name), other.installed_text()).unwrap();
            js.push(PathBuf::from(other.name));
        }
        let paths = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        let (css, watched) = (paths(case.css), paths(case.watched));
        let bounds = Bounds::strict(dir.path()).unwrap();
        let setup = BookSetup {
            bounds: &bounds,
            root: dir.path(),
            src: Path::new(case.src),
            data_dir: Path::new(case.data),
            extra_watch_dirs: &watched,
            additional_css: &css,
            additional_js: &js,
        };
        assert_eq!(setup_warnings(&setup), case.want, "{}", case.what);
    }

    #[test]
    fn warnings_for_each_set_up() {
        let name = AGENTX_ASSETS[0].name;
        let current = Some(AGENTX_ASSETS[0].installed_text());
        let old = AgentxAsset {
            name,
            text: "h3 { color: blue; }\n",
        }
        .installed_text_by("0.0.1");
        let cases = [
            Case {
                what: "installed, listed, watched",
                installed: current.clone(),
                css: &["agentx.css"],
                src: "src",
                data: "agentx",
                watched: &["./agentx/"],
                want: vec![],
            },
            Case {
                what: "nothing installed",
                installed: None,
                css: &[],
                src: "src",
                data: "agentx",
                watched: &[],
                want: vec![
                    SetupWarning::AssetMissing { name },
                    SetupWarning::DataNotWatched {
                        data_dir: "agentx".into(),
                    },
                ],
            },
            Case {
                what: "file there, not listed; data in src",
                installed: current.clone(),
                css: &["other.css"],
                src: "content",
                data: "content/agentx",
                watched: &[],
                want: vec![
                    SetupWarning::AssetNotListed {
                        name,
                        key: "additional-css",
                    },
                    SetupWarning::DataPublished {
                        data_dir: "content/agentx".into(),
                        src: "content".into(),
                    },
                ],
            },
            Case {
                what: "an older install",
                installed: Some(old),
                css: &["agentx.css"],
                src: "src",
                data: "agentx",
                watched: &["agentx"],
                want: vec![SetupWarning::AssetOutdated {
                    name,
                    version: "0.0.1".into(),
                    older: Some(true),
                }],
            },
            Case {
                what: "the user's own file: theirs, no warning",
                installed: Some("h3 { color: red }\n".into()),
                css: &["agentx.css"],
                src: "src",
                data: "agentx",
                watched: &["agentx"],
                want: vec![],
            },
        ];
        for case in &cases {
            check(case);
        }
    }

    #[test]
    fn messages_name_the_fix() {
        let w = SetupWarning::AssetMissing { name: "agentx.css" };
        assert!(w.to_string().contains("run `mdbook-agentx install`"));
        let w = SetupWarning::AssetOutdated {
            name: "agentx.css",
            version: "9.0.0".into(),
            older: Some(false),
        };
        assert!(w.to_string().contains("newer than this one"), "{w}");
    }
}
