//! The AgentX assets an mdBook book loads through `[output.html]
//! additional-css / additional-js` (the reader features of command sets),
//! compiled into the binary, and how a copy installed in a book is told apart
//! from the binary's: every installed file starts with a stamp line naming the
//! version that wrote it and a hash of its body.
//!
//! May use: `util` (nothing else; `install` and the preprocessor's set-up
//! check use this).

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::util::fs::Bounds;

/// One asset file: its name in the book (and in the html output) and text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AgentxAsset {
    pub name: &'static str,
    pub text: &'static str,
}

/// Every AgentX asset, in the order pages load them. The one list `install`
/// writes, book.toml names and the preprocessor checks: a new asset (issue
/// 13's `agentx.js`) is one more entry here.
pub(crate) const AGENTX_ASSETS: &[AgentxAsset] = &[
    AgentxAsset {
        name: "agentx.css",
        text: include_str!("../../assets/agentx/agentx.css"),
    },
    AgentxAsset {
        name: "agentx.js",
        text: AGENTX_JS,
    },
];

/// `agentx.js`: the files of `assets/agentx/js/` in name order, each a part
/// of one function (the head opens it, the tail closes it), so the reader
/// code stays in files of one concern each and ships as one script.
pub(crate) const AGENTX_JS: &str = concat!(
    include_str!("../../assets/agentx/js/00-head.js"),
    include_str!("../../assets/agentx/js/10-util.js"),
    include_str!("../../assets/agentx/js/20-data.js"),
    include_str!("../../assets/agentx/js/30-selector.js"),
    include_str!("../../assets/agentx/js/35-budget.js"),
    include_str!("../../assets/agentx/js/40-window.js"),
    include_str!("../../assets/agentx/js/50-picker.js"),
    include_str!("../../assets/agentx/js/55-find.js"),
    include_str!("../../assets/agentx/js/60-start.js"),
    include_str!("../../assets/agentx/js/99-tail.js"),
);

/// Whether an `[output.html] additional-css/-js` entry is an installed AgentX
/// asset (`agentx.css` at the book root): the standalone builder ships its
/// own copy of those, so it does not load them twice.
pub(crate) fn is_agentx_asset(entry: &Path) -> bool {
    let parts: Vec<_> = entry
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    AGENTX_ASSETS
        .iter()
        .any(|a| parts.len() == 1 && parts[0].as_os_str() == a.name)
}

/// The version of this binary, as stamps name it.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

const STAMP_PREFIX: &str = "/* mdbook-agentx ";

/// Which `[output.html]` list loads an asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AssetKind {
    Css,
    Js,
}

impl AssetKind {
    /// The `[output.html]` key that lists assets of this kind.
    pub(crate) fn html_key(self) -> &'static str {
        match self {
            AssetKind::Css => "additional-css",
            AssetKind::Js => "additional-js",
        }
    }
}

impl AgentxAsset {
    pub(crate) fn kind(&self) -> AssetKind {
        if self.name.ends_with(".js") {
            AssetKind::Js
        } else {
            AssetKind::Css
        }
    }

    /// The file `install` writes: the stamp line, then the text.
    pub(crate) fn installed_text(&self) -> String {
        self.installed_text_by(VERSION)
    }

    /// The file `install` of mdbook-agentx `version` writes for this text.
    pub(crate) fn installed_text_by(&self, version: &str) -> String {
        format!("{}{}", stamp(version, &body_hash(self.text)), self.text)
    }
}

/// `/* mdbook-agentx 0.1.0 sha256:0123456789abcdef — … */` and a newline. A
/// block comment in both CSS and JavaScript.
fn stamp(version: &str, hash: &str) -> String {
    format!(
        "{STAMP_PREFIX}{version} sha256:{hash} — written by `mdbook-agentx install`; \
         run it again to update this file, do not edit it */\n"
    )
}

/// The first 16 hex digits of the SHA-256 of `text`.
fn body_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// What a book holds where an asset is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Installed {
    /// No file.
    Missing,
    /// Exactly what this binary installs.
    Current,
    /// An install by another build of mdbook-agentx (the version its stamp
    /// names), unedited.
    Other { version: String },
    /// A stamped file whose body was edited after it was installed.
    Edited,
    /// A file without a stamp: not written by `install`.
    Foreign,
}

/// What is installed at `path` for `asset`, read inside `bounds` (a symlink
/// out of the book, a FIFO or a device is an error naming it, not a read).
pub(crate) fn installed_state(
    asset: &AgentxAsset,
    path: &Path,
    bounds: &Bounds,
) -> anyhow::Result<Installed> {
    if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(Installed::Missing);
    }
    // Not UTF-8: certainly not ours.
    Ok(String::from_utf8(bounds.read(path)?)
        .map_or(Installed::Foreign, |text| classify(asset, &text)))
}

/// The state of an installed file's `text` (see [`installed_state`]).
fn classify(asset: &AgentxAsset, text: &str) -> Installed {
    let Some((first, body)) = text.split_once('\n') else {
        return Installed::Foreign;
    };
    let Some(rest) = first.strip_prefix(STAMP_PREFIX) else {
        return Installed::Foreign;
    };
    let mut words = rest.split(' ');
    let (Some(version), Some(hash)) = (words.next(), words.next()) else {
        return Installed::Foreign;
    };
    let Some(hash) = hash.strip_prefix("sha256:") else {
        return Installed::Foreign;
    };
    if body_hash(body) != hash {
        Installed::Edited
    } else if body == asset.text {
        Installed::Current
    } else {
        Installed::Other {
            version: version.to_string(),
        }
    }
}

/// Whether `installed` (a version a stamp names) is older than this binary,
/// comparing numeric `major.minor.patch`; `None` when either does not parse.
pub(crate) fn is_older(installed: &str) -> Option<bool> {
    fn parse(v: &str) -> Option<(u64, u64, u64)> {
        let core = v.split(['-', '+']).next()?;
        let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
        let triple = (parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(triple)
    }
    Some(parse(installed)? < parse(VERSION)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASSET: AgentxAsset = AgentxAsset {
        name: "agentx.css",
        text: "h3 { color: red; } /* ü */\n",
    };

    #[test]
    fn installed_text_reads_back_as_current() {
        assert_eq!(
            classify(&ASSET, &ASSET.installed_text()),
            Installed::Current
        );
        for a in AGENTX_ASSETS {
            assert_eq!(
                classify(a, &a.installed_text()),
                Installed::Current,
                "{}",
                a.name
            );
            assert!(a.installed_text().starts_with("/* mdbook-agentx "));
        }
    }

    #[test]
    fn states_of_installed_files() {
        let old = AgentxAsset {
            name: "agentx.css",
            text: "h3 { color: blue; }\n",
        }
        .installed_text_by("0.0.9");
        let edited = ASSET.installed_text().replace("red", "green");
        let cases: [(&str, &str, Installed); 6] = [
            (
                "older install",
                &old,
                Installed::Other {
                    version: "0.0.9".into(),
                },
            ),
            ("edited body", &edited, Installed::Edited),
            ("no stamp", ASSET.text, Installed::Foreign),
            ("empty", "", Installed::Foreign),
            (
                "stamp without hash",
                "/* mdbook-agentx 0.1.0 */\nx",
                Installed::Foreign,
            ),
            (
                "stamp, bad hash word",
                "/* mdbook-agentx 0.1.0 md5:ab */\nx",
                Installed::Foreign,
            ),
        ];
        for (what, text, want) in cases {
            assert_eq!(classify(&ASSET, text), want, "{what}");
        }
    }

    #[test]
    fn versions_compare_numerically() {
        assert_eq!(is_older("0.0.9"), Some(true));
        assert_eq!(is_older(VERSION), Some(false));
        assert_eq!(is_older("99.0.0"), Some(false));
        assert_eq!(is_older("0.1"), None);
        assert_eq!(is_older("x.y.z"), None);
    }

    #[test]
    fn installed_assets_named_in_book_toml() {
        for (entry, is) in [
            ("agentx.css", true),
            ("./agentx.js", true),
            ("css/agentx.css", false),
            ("custom.css", false),
        ] {
            assert_eq!(is_agentx_asset(Path::new(entry)), is, "{entry}");
        }
    }

    #[test]
    fn kinds_by_extension() {
        let js = AgentxAsset {
            name: "agentx.js",
            text: "",
        };
        assert_eq!(js.kind().html_key(), "additional-js");
        assert_eq!(ASSET.kind().html_key(), "additional-css");
    }
}
