//! The data library: every data file of the data directory by page name,
//! decoded up front (resident) or when a directive uses it (on demand).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow, bail};

use crate::book::BookDir;
use crate::data;
use crate::decode::{self, DecodedPage};
use crate::util::fs::{Bounds, shown_path};
use crate::util::notice::{Notice, Notices};
use crate::util::text::closest;

/// Why a data file is not in the library.
#[derive(Debug, Clone)]
enum LoadFailure {
    /// It could not be read, parsed or decoded (the message says where).
    Broken(String),
    /// Another file defines the same page: once that one is gone, this one
    /// may load.
    Duplicate {
        file: PathBuf,
        page: String,
        defined_by: PathBuf,
    },
}

impl std::fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadFailure::Broken(message) => f.write_str(message),
            LoadFailure::Duplicate {
                file,
                page,
                defined_by,
            } => write!(
                f,
                "{}: page `{page}` is already defined by {}",
                file.display(),
                defined_by.display()
            ),
        }
    }
}

/// When a [`Library`] decodes its data files, and whether it keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Residency {
    /// Every file is decoded on load and kept, so a rebuild re-decodes only
    /// the files that changed (`serve`, `watch`, `check`).
    #[default]
    Resident,
    /// Files are only indexed by page name on load; a directive decodes the
    /// file it uses and drops it when done. Why: a one-shot build of a large
    /// book must not hold every decoded page at once (decoded pages took
    /// 35 MiB for a book 10× the sample, so about 350 MiB at 100×).
    OnDemand,
}

/// What [`Library::open_visiting`] hands each decoded page to, with its file.
pub(crate) type Visit<'v> = dyn FnMut(&Path, &DecodedPage) + 'v;

/// Every data file of the data directory, by page name, plus files named by `data=`.
#[derive(Debug)]
pub struct Library {
    root: PathBuf,
    dir: PathBuf,
    /// What may be read: the data directory, every data file and every
    /// `data=` file must resolve inside the book.
    bounds: Bounds,
    residency: Residency,
    /// Page name → data file.
    by_page: BTreeMap<String, PathBuf>,
    /// Decoded files (resident libraries only).
    entries: HashMap<PathBuf, Arc<DecodedPage>>,
    /// Data files that failed to load, and why.
    failed: BTreeMap<PathBuf, LoadFailure>,
    /// Files whose warnings were given: an on-demand library may decode a
    /// file more than once.
    warned: Mutex<HashSet<PathBuf>>,
    /// Warnings not taken yet ([`Library::take_notices`]).
    notices: Notices,
}

impl Library {
    /// Loads and decodes every data file under `data_dir` (relative to
    /// `root`), reading only inside the book (files up to the default size).
    pub fn load(root: &Path, data_dir: &Path) -> Result<Library> {
        let bounds = Bounds::strict(root)?;
        let dir = root.join(data_dir);
        Library::open_with(root, (dir, data_dir), bounds, Residency::Resident, None)
    }

    /// Indexes every data file under `data_dir` by page name; each is decoded
    /// when a directive uses it.
    pub fn index(root: &Path, data_dir: &Path) -> Result<Library> {
        let bounds = Bounds::strict(root)?;
        let dir = root.join(data_dir);
        Library::open_with(root, (dir, data_dir), bounds, Residency::OnDemand, None)
    }

    /// The data directory of `book`, read within its bounds.
    pub(crate) fn open(book: &BookDir, residency: Residency) -> Result<Library> {
        let dir = (book.data_dir(), book.agentx.data_dir.as_path());
        Library::open_with(&book.root, dir, book.bounds.clone(), residency, None)
    }

    /// Decodes every data file as a resident library does (the same files
    /// load, fail and warn, in the same order), but hands each decoded page
    /// to `visit` (with its file) and drops it: afterwards the library
    /// decodes a page when a directive uses it, as an on-demand one does.
    /// Why: `check` reads every page once, and at 100× the sample all
    /// decoded pages would take about 350 MiB. `visit` may see a file whose
    /// page another file already defines; [`Library::page_files`] lists the
    /// files that count.
    pub(crate) fn open_visiting(book: &BookDir, visit: &mut Visit<'_>) -> Result<Library> {
        let dir = (book.data_dir(), book.agentx.data_dir.as_path());
        let bounds = book.bounds.clone();
        let mut lib =
            Library::open_with(&book.root, dir, bounds, Residency::Resident, Some(visit))?;
        lib.residency = Residency::OnDemand;
        Ok(lib)
    }

    /// `data_dir` is the data directory and its `data-dir` setting (for messages).
    fn open_with(
        root: &Path,
        (dir, data_dir): (PathBuf, &Path),
        bounds: Bounds,
        residency: Residency,
        mut visit: Option<&mut Visit<'_>>,
    ) -> Result<Library> {
        if !dir.is_dir() {
            bail!(
                "data directory {} does not exist; set `data-dir` under [preprocessor.agentx] in \
                 book.toml (relative to the book root)",
                dir.display()
            );
        }
        let setting = || format!("data-dir = {:?} under [preprocessor.agentx]", data_dir);
        bounds.resolve(&dir).with_context(setting)?;
        let files = bounds.files_below(&dir, |_| false).with_context(setting)?;
        let mut lib = Library {
            root: root.to_path_buf(),
            dir,
            bounds,
            residency,
            by_page: BTreeMap::new(),
            entries: HashMap::new(),
            failed: BTreeMap::new(),
            warned: Mutex::new(HashSet::new()),
            notices: Notices::default(),
        };
        for path in files.into_iter().filter(|p| data::is_data_file(p)) {
            lib.insert(path, visit.as_deref_mut());
        }
        Ok(lib)
    }

    /// The warnings of the data files decoded since the last call (keys
    /// they have that no reader knows), each file's once.
    pub fn take_notices(&self) -> Vec<Notice> {
        self.notices.take()
    }

    /// Messages of the data files that failed to load.
    pub fn failures(&self) -> Vec<String> {
        self.failed.values().map(LoadFailure::to_string).collect()
    }

    /// Whether a path is a data file this library reads.
    pub(crate) fn is_data_file(&self, path: &Path) -> bool {
        path.starts_with(&self.dir) && data::is_data_file(path)
    }

    /// Adds one data file; a resident library decodes it, and keeps it
    /// unless `visit` takes it.
    fn insert<'v>(&mut self, path: PathBuf, visit: Option<&mut Visit<'v>>) {
        let model = match self.residency {
            Residency::Resident => match self.load_entry(&path) {
                Ok(entry) => {
                    let model = entry.model.clone();
                    match visit {
                        Some(visit) => visit(&path, &entry),
                        None => {
                            self.entries.insert(path.clone(), Arc::new(entry));
                        }
                    }
                    model
                }
                Err(e) => {
                    self.failed
                        .insert(path, LoadFailure::Broken(format!("{e:#}")));
                    return;
                }
            },
            Residency::OnDemand => {
                let shown = shown_path(&path);
                let name = self
                    .bounds
                    .read(&path)
                    .and_then(|bytes| data::utf8_file(bytes, &shown))
                    .and_then(|text| data::page_name(&text, &shown));
                match name {
                    Ok(model) => model,
                    Err(e) => {
                        self.failed
                            .insert(path, LoadFailure::Broken(format!("{e:#}")));
                        return;
                    }
                }
            }
        };
        if self.residency == Residency::OnDemand
            && let Some(other) = self.by_page.get(&model).cloned()
        {
            // Two files claim one page. A resident library decodes both and
            // only a file that decodes claims a name; do the same here, so
            // `build` and `serve` agree on which file a page comes from.
            if let Err(e) = self.load_entry(&other) {
                self.failed
                    .insert(other, LoadFailure::Broken(format!("{e:#}")));
                self.by_page.remove(&model);
            }
            if let Err(e) = self.load_entry(&path) {
                self.failed
                    .insert(path, LoadFailure::Broken(format!("{e:#}")));
                return;
            }
        }
        if let Some(other) = self.by_page.get(&model) {
            self.entries.remove(&path);
            let duplicate = LoadFailure::Duplicate {
                file: path.clone(),
                page: model,
                defined_by: other.clone(),
            };
            self.failed.insert(path, duplicate);
            return;
        }
        self.by_page.insert(model, path);
    }

    /// Re-reads changed data files (new, edited or deleted); others stay decoded.
    pub(crate) fn reload(&mut self, changed: &[PathBuf]) {
        for path in changed {
            self.entries.remove(path);
            self.failed.remove(path);
            self.by_page.retain(|_, p| p != path);
            self.warned.lock().expect("warned lock").remove(path);
        }
        for path in changed {
            if path.is_file() && self.is_data_file(path) {
                self.insert(path.clone(), None);
            }
        }
        // A file that clashed with a removed one may now load.
        let retry: Vec<PathBuf> = self
            .failed
            .iter()
            .filter(|(_, f)| matches!(f, LoadFailure::Duplicate { .. }))
            .map(|(p, _)| p.clone())
            .collect();
        for p in retry {
            self.failed.remove(&p);
            self.insert(p, None);
        }
    }

    /// Every page name with its data file, by name.
    pub(crate) fn page_files(&self) -> impl Iterator<Item = (&str, &Path)> {
        self.by_page
            .iter()
            .map(|(name, path)| (name.as_str(), path.as_path()))
    }

    /// Every decoded page by name (resident libraries; an on-demand library has none).
    pub fn pages(&self) -> impl Iterator<Item = (&str, &DecodedPage)> {
        self.by_page
            .iter()
            .filter_map(|(name, path)| Some((name.as_str(), &**self.entries.get(path)?)))
    }

    /// A decoded page of a resident library.
    pub fn page(&self, name: &str) -> Option<&DecodedPage> {
        self.by_page
            .get(name)
            .and_then(|p| self.entries.get(p))
            .map(|e| &**e)
    }

    /// The page a directive names: kept, or decoded now.
    pub(super) fn entry_for_page(&self, name: &str) -> Result<Arc<DecodedPage>> {
        let Some(path) = self.by_page.get(name) else {
            // A file that failed to load is the likely root cause: it goes
            // below the message in the error chain (serve's overlay leads with it).
            let msg = self.unknown_page(name);
            if self.failed.is_empty() {
                bail!("{msg}");
            }
            return Err(anyhow!("{}", self.failures().join("; ")).context(msg));
        };
        match self.entries.get(path) {
            Some(e) => Ok(e.clone()),
            None => Ok(Arc::new(self.load_entry(path)?)),
        }
    }

    /// The decoded page a directive's (`data=`, `page=`) resolves to in a
    /// resident library, without reading anything: `None` when it is not
    /// decoded and kept (an on-demand library, an unknown page, a file
    /// outside the library).
    pub(super) fn resident_entry(
        &self,
        data: Option<&str>,
        page: Option<&str>,
    ) -> Option<Arc<DecodedPage>> {
        let path = match (data, page) {
            (Some(file), _) => self.root.join(file),
            (None, Some(page)) => self.by_page.get(page)?.clone(),
            (None, None) => return None,
        };
        self.entries.get(&path).cloned()
    }

    /// The data file a directive names with `data=` (relative to the book root).
    pub(super) fn entry_for_file(&self, rel: &str) -> Result<Arc<DecodedPage>> {
        let path = self.root.join(rel);
        match self.entries.get(&path) {
            Some(e) => Ok(e.clone()),
            None => Ok(Arc::new(self.load_entry(&path)?)),
        }
    }

    fn load_entry(&self, path: &Path) -> Result<DecodedPage> {
        // Messages name the file as the user would type it, not by its absolute path.
        let shown = shown_path(path);
        let text = data::utf8_file(self.bounds.read(path)?, &shown)?;
        let decoded = decode::decode_str(&text, &shown)?;
        if !decoded.ignored.is_empty()
            && self
                .warned
                .lock()
                .expect("warned lock")
                .insert(path.to_path_buf())
        {
            self.notices.extend(decoded.ignored.iter().map(|key| {
                Notice::warning(format!("{}: ignored unknown key `{key}`", shown.display()))
            }));
        }
        Ok(decoded.page)
    }

    /// The message for an unknown page: the known pages, the closest one, broken files.
    fn unknown_page(&self, name: &str) -> String {
        let known: Vec<&str> = self.by_page.keys().map(String::as_str).collect();
        let mut msg = format!("unknown page `{name}`");
        if !self.failed.is_empty() {
            // The page is most likely in a file that did not load, which the
            // error chain gives as the cause.
            let pages = match known.is_empty() {
                true => "no data file loaded".to_string(),
                false => format!("known pages: {}", known.join(", ")),
            };
            return format!(
                "{msg} ({pages}); {} data file(s) failed to load and may define it",
                self.failed.len()
            );
        } else if let Some(best) = closest(name, &known) {
            msg.push_str(&format!("; did you mean `{best}`?"));
        }
        if known.is_empty() {
            msg.push_str(" No data file loaded");
        } else {
            msg.push_str(&format!(" Known pages: {}", known.join(", ")));
        }
        msg
    }
}
