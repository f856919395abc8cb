//! Cached reads of InferenceX files at commits: each commit is resolved once
//! and each YAML file parsed once, however many lanes use it. Uses
//! `sync::source` and `sync::yaml`.

use std::collections::HashMap;
use std::rc::Rc;

use super::source::{self, Source};
use super::yaml::{self, Node};

/// A parsed file and where it was found.
#[derive(Debug, Clone)]
pub(in crate::sync) struct Found {
    /// Repository path with the layout prefix (`inferencex-e2e/…`) when there is one.
    pub path: String,
    /// `path@<short commit>`, for messages.
    pub at: String,
    pub doc: Rc<Node>,
}

pub(in crate::sync) struct Reader<'a> {
    src: &'a dyn Source,
    resolved: HashMap<String, Result<String, String>>,
    files: HashMap<(String, String), Option<Found>>,
}

impl<'a> Reader<'a> {
    pub(in crate::sync) fn new(src: &'a dyn Source) -> Reader<'a> {
        Reader {
            src,
            resolved: HashMap::new(),
            files: HashMap::new(),
        }
    }

    pub(in crate::sync) fn describe(&self) -> String {
        self.src.describe()
    }

    /// The source's name for `commit`, or why it does not resolve.
    pub(in crate::sync) fn resolve(&mut self, commit: &str) -> Result<String, String> {
        if let Some(r) = self.resolved.get(commit) {
            return r.clone();
        }
        let r = self.src.resolve(commit);
        self.resolved.insert(commit.to_string(), r.clone());
        r
    }

    /// Parses `repo_path` at `commit`, trying the `inferencex-e2e/` layout
    /// first. `Ok(None)`: the file is not there in either layout.
    pub(in crate::sync) fn yaml(
        &mut self,
        commit: &str,
        repo_path: &str,
    ) -> Result<Option<Found>, String> {
        let resolved = self.resolve(commit)?;
        let key = (resolved.clone(), repo_path.to_string());
        if let Some(f) = self.files.get(&key) {
            return Ok(f.clone());
        }
        let short: String = commit.chars().take(8).collect();
        let found = match source::locate(self.src, &resolved, repo_path)? {
            None => None,
            Some((path, text)) => {
                let at = format!("{path}@{short}");
                let doc = yaml::parse(&text).map_err(|e| format!("{at}: {e}"))?;
                Some(Found {
                    path,
                    at,
                    doc: Rc::new(doc),
                })
            }
        };
        self.files.insert(key, found.clone());
        Ok(found)
    }

    /// The text of `repo_path` at `commit` (layout prefix first, as
    /// [`Reader::yaml`]): `(path, path@short, text)`; `Ok(None)` when absent.
    /// Not cached: bash lanes read a script and a library once per lane.
    pub(in crate::sync) fn text(
        &mut self,
        commit: &str,
        repo_path: &str,
    ) -> Result<Option<(String, String, String)>, String> {
        let resolved = self.resolve(commit)?;
        let short: String = commit.chars().take(8).collect();
        Ok(source::locate(self.src, &resolved, repo_path)?
            .map(|(path, text)| (path.clone(), format!("{path}@{short}"), text)))
    }
}
