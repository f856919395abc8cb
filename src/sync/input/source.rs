//! Where InferenceX files come from: a git directory (read with `git show
//! <commit>:<path>`) or a snapshot folder `SRC/<commit or unique prefix>/<path>`.
//! One trait hides which. Uses `util::fs` to read a snapshot's files, and the size
//! bound of [`super::capped`] for git blobs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Read access to InferenceX at given commits.
pub(in crate::sync) trait Source {
    /// The commit as this source knows it (a full id, or the snapshot folder
    /// holding it). Errors say why the commit does not resolve.
    fn resolve(&self, commit: &str) -> Result<String, String>;
    /// The text of `path` at a resolved commit; `Ok(None)` when no such file exists there.
    fn read(&self, resolved: &str, path: &str) -> Result<Option<String>, String>;
    /// For messages: what the source is.
    fn describe(&self) -> String;
}

/// Opens `dir` as a git directory (bare, or a work tree with `.git`) or else a snapshot folder.
pub(in crate::sync) fn open(dir: &Path) -> Result<Box<dyn Source>, String> {
    if !dir.is_dir() {
        return Err(format!(
            "--inferencex {}: not a directory (give a git directory of InferenceX or a snapshot \
             folder with one subfolder per commit)",
            dir.display()
        ));
    }
    let bare = dir.join("HEAD").is_file() && dir.join("objects").is_dir();
    if bare || dir.join(".git").exists() {
        Ok(Box::new(GitSource {
            dir: dir.to_path_buf(),
            bare,
        }))
    } else {
        Ok(Box::new(SnapshotSource {
            dir: dir.to_path_buf(),
        }))
    }
}

/// Rejects repository paths that could leave the source (`..`, absolute paths).
pub(in crate::sync) fn check_repo_path(path: &str) -> Result<(), String> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path.contains('\0')
        || path
            .split('/')
            .any(|c| c == ".." || c == "." || c.is_empty());
    if bad {
        Err(format!("`{path}` is not a plain repository path"))
    } else {
        Ok(())
    }
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit())
}

pub(in crate::sync) struct GitSource {
    dir: PathBuf,
    bare: bool,
}

impl GitSource {
    fn git(&self) -> Command {
        let mut c = Command::new("git");
        if self.bare {
            c.arg("--git-dir").arg(&self.dir);
        } else {
            c.arg("-C").arg(&self.dir);
        }
        c
    }
}

impl Source for GitSource {
    fn resolve(&self, commit: &str) -> Result<String, String> {
        if !is_hex(commit) {
            return Err(format!("`{commit}` is not a hexadecimal commit id"));
        }
        let out = self
            .git()
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{commit}^{{commit}}"))
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "commit {commit} does not resolve in the git directory {}",
                self.dir.display()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn read(&self, resolved: &str, path: &str) -> Result<Option<String>, String> {
        check_repo_path(path)?;
        let spec = format!("{resolved}:{path}");
        let kind = self
            .git()
            .args(["cat-file", "-t", "--end-of-options", &spec])
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !kind.status.success() {
            let err = String::from_utf8_lossy(&kind.stderr);
            if err.contains("does not exist") || err.contains("Not a valid object name") {
                return Ok(None);
            }
            return Err(format!("git cat-file {spec}: {}", err.trim()));
        }
        if String::from_utf8_lossy(&kind.stdout).trim() != "blob" {
            return Ok(None);
        }
        // The size first: `git show` would hold all of it in memory.
        let size = self
            .git()
            .args(["cat-file", "-s", "--end-of-options", &spec])
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        let size: u64 = String::from_utf8_lossy(&size.stdout)
            .trim()
            .parse()
            .unwrap_or(u64::MAX);
        if size > super::capped::MAX_FILE_BYTES {
            return Err(format!(
                "{path} at {resolved}: {}",
                super::capped::too_large()
            ));
        }
        let out = self
            .git()
            .args(["show", "--end-of-options", &spec])
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git show {spec}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        String::from_utf8(out.stdout)
            .map(Some)
            .map_err(|_| format!("{path} at {resolved} is not UTF-8 text"))
    }

    fn describe(&self) -> String {
        format!("git directory {}", self.dir.display())
    }
}

pub(in crate::sync) struct SnapshotSource {
    dir: PathBuf,
}

impl SnapshotSource {
    /// Snapshot folders: names of at least 7 hex digits.
    fn folders(&self) -> Result<Vec<String>, String> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|e| format!("cannot list {}: {e}", self.dir.display()))?;
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.len() >= 7 && is_hex(&name) && entry.path().is_dir() {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }
}

impl Source for SnapshotSource {
    fn resolve(&self, commit: &str) -> Result<String, String> {
        if !is_hex(commit) || commit.len() < 7 {
            return Err(format!(
                "`{commit}` is not a commit id of at least 7 hexadecimal digits"
            ));
        }
        let commit = commit.to_ascii_lowercase();
        let matches: Vec<String> = self
            .folders()?
            .into_iter()
            .filter(|f| {
                let f = f.to_ascii_lowercase();
                commit.starts_with(&f) || f.starts_with(&commit)
            })
            .collect();
        match matches.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(format!(
                "commit {commit} is not in the snapshot folder {} (no subfolder named by it or a \
                 prefix of it)",
                self.dir.display()
            )),
            many => Err(format!(
                "commit {commit} is ambiguous in the snapshot folder {}: {}",
                self.dir.display(),
                many.join(", ")
            )),
        }
    }

    /// Only regular files are read, through real directories: a symlink
    /// anywhere on the way (the commit folder included) is refused, since it
    /// could read anything on this machine (`/proc/self/environ`, a
    /// `/dev/zero` that never ends); a FIFO, device or socket is refused
    /// before it is opened (a FIFO would block the sync for good); a file
    /// over the cap of data files is refused too.
    fn read(&self, resolved: &str, path: &str) -> Result<Option<String>, String> {
        check_repo_path(path)?;
        let mut p = self.dir.clone();
        let parts: Vec<&str> = std::iter::once(resolved).chain(path.split('/')).collect();
        for (i, part) in parts.iter().enumerate() {
            p.push(part);
            let last = i + 1 == parts.len();
            match std::fs::symlink_metadata(&p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(format!("cannot read {}: {e}", p.display())),
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(format!(
                        "{} in the {} is a symlink: a snapshot is read as regular files and \
                         directories only (a symlink could read any file of this machine); \
                         replace it with what it points to",
                        p.display(),
                        self.describe()
                    ));
                }
                Ok(m) if m.is_dir() && last => {
                    return Err(format!("{} is a directory, not a file", p.display()));
                }
                // A file where a directory should be: the path is not there.
                Ok(m) if !m.is_dir() && !last => return Ok(None),
                Ok(_) => {}
            }
        }
        crate::util::fs::read_regular_to_string(&p, super::capped::MAX_FILE_BYTES)
            .map(Some)
            .map_err(|e| match e.downcast_ref::<crate::util::fs::Refusal>() {
                // Sync reads no book.toml: its bound is fixed, so say that
                // rather than the build's "raise max-file-mib".
                Some(crate::util::fs::Refusal::TooLarge { .. }) => {
                    format!("{}: {}", p.display(), super::capped::too_large())
                }
                _ => format!("{e:#}"),
            })
    }

    fn describe(&self) -> String {
        format!("snapshot folder {}", self.dir.display())
    }
}

/// Where a file lives at one commit: InferenceX moved everything under
/// `inferencex-e2e/` in late September 2026, so the layout is detected per
/// commit, by which of the two paths exists.
pub(in crate::sync) fn locate(
    src: &dyn Source,
    resolved: &str,
    repo_path: &str,
) -> Result<Option<(String, String)>, String> {
    for prefix in ["inferencex-e2e/", ""] {
        let path = format!("{prefix}{repo_path}");
        if let Some(text) = src.read(resolved, &path)? {
            return Ok(Some((path, text)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_paths_stay_inside() {
        for bad in ["", "/etc/passwd", "a/../b", "./a", "a//b", "a\\b"] {
            assert!(check_repo_path(bad).is_err(), "{bad}");
        }
        assert!(check_repo_path("inferencex-e2e/configs/nvidia-master.yaml").is_ok());
    }

    /// Regression (issue 25): a snapshot folder's symlinks were followed, a
    /// FIFO hung the sync and `/dev/zero` was read without end. Each is now
    /// refused with its path, quickly.
    /// A snapshot folder `snap/` holding every kind of entry, and the cases
    /// to read: (commit, path, a piece of the refusal).
    #[cfg(unix)]
    fn snapshot_of_every_kind(
        dir: &Path,
    ) -> (
        std::os::unix::net::UnixListener,
        Vec<(&'static str, &'static str, &'static str)>,
    ) {
        use std::os::unix::fs::symlink;
        let commit = dir.join("snap/e79239ba");
        std::fs::create_dir_all(commit.join("configs")).unwrap();
        std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
        std::fs::write(dir.join("elsewhere/secret.yaml"), "secret: 1\n").unwrap();
        std::fs::write(commit.join("configs/ok.yaml"), "a: 1\n").unwrap();
        symlink(
            dir.join("elsewhere/secret.yaml"),
            commit.join("linked.yaml"),
        )
        .unwrap();
        symlink("/dev/zero", commit.join("zero.yaml")).unwrap();
        symlink(dir.join("elsewhere"), commit.join("linked-dir")).unwrap();
        symlink("e79239ba", dir.join("snap/0f45d5f4")).unwrap();
        use rustix::fs::{CWD, FileType, Mode, makedev, mknodat};
        let mode = Mode::from_raw_mode(0o644);
        mknodat(CWD, commit.join("fifo.yaml"), FileType::Fifo, mode, 0).unwrap();
        let socket = std::os::unix::net::UnixListener::bind(commit.join("socket.yaml")).unwrap();
        let mut cases = vec![
            (
                "e79239ba",
                "linked.yaml",
                "linked.yaml in the snapshot folder",
            ),
            ("e79239ba", "zero.yaml", "zero.yaml in the snapshot folder"),
            (
                "e79239ba",
                "linked-dir/secret.yaml",
                "linked-dir in the snapshot folder",
            ),
            (
                "0f45d5f4",
                "configs/ok.yaml",
                "0f45d5f4 in the snapshot folder",
            ),
            (
                "e79239ba",
                "fifo.yaml",
                "fifo.yaml is a FIFO, not a regular file",
            ),
            (
                "e79239ba",
                "socket.yaml",
                "socket.yaml is a socket, not a regular file",
            ),
        ];
        // A device node, where this system lets the test make one.
        let dev = commit.join("dev.yaml");
        // /dev/zero's numbers.
        if mknodat(CWD, &dev, FileType::CharacterDevice, mode, makedev(1, 5)).is_ok() {
            cases.push(("e79239ba", "dev.yaml", "dev.yaml is a character device"));
        }
        (socket, cases)
    }

    #[cfg(unix)]
    #[test]
    fn snapshot_reads_regular_files_only() {
        let dir = crate::test_support::temp("snapshot-kinds");
        let (_socket, cases) = snapshot_of_every_kind(&dir);
        let (tx, rx) = std::sync::mpsc::channel();
        let snap = dir.join("snap");
        let reads = cases.clone();
        std::thread::spawn(move || {
            let src = open(&snap).unwrap();
            for (commit, path, _) in reads {
                let _ = tx.send(src.read(commit, path));
            }
        });
        for (commit, path, want) in cases {
            let got = rx
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("{commit}/{path}: still reading after 10 s"));
            let err = got.expect_err(path);
            assert!(
                err.contains(want),
                "{commit}/{path}: want {want:?} in {err}"
            );
            assert!(!err.contains("secret"), "{err}");
        }
        let src = open(&dir.join("snap")).unwrap();
        assert_eq!(
            src.read("e79239ba", "configs/ok.yaml").unwrap().as_deref(),
            Some("a: 1\n")
        );
        assert_eq!(src.read("e79239ba", "configs/ok.yaml/x").unwrap(), None);
        assert_eq!(src.read("e79239ba", "nothing/here.yaml").unwrap(), None);
        assert!(
            src.read("e79239ba", "configs")
                .unwrap_err()
                .contains("is a directory")
        );
    }

    #[test]
    fn snapshot_resolves_unique_prefixes() {
        let dir = crate::test_support::temp("snapshot");
        for f in ["0f45d5f4", "0f45d5f4c3", "e79239ba", "notes"] {
            std::fs::create_dir_all(dir.join(f)).unwrap();
        }
        std::fs::write(dir.join("e79239ba/x.yaml"), "a: 1\n").unwrap();
        let src = open(&dir).unwrap();
        assert_eq!(src.resolve("e79239bab1e1cb48").unwrap(), "e79239ba");
        assert!(src.resolve("0f45d5").unwrap_err().contains("at least 7"));
        assert!(
            src.resolve("0f45d5f4c3d5")
                .unwrap_err()
                .contains("ambiguous")
        );
        assert_eq!(src.resolve("0f45d5f4a000").unwrap(), "0f45d5f4");
        assert!(
            src.resolve("1234567")
                .unwrap_err()
                .contains("not in the snapshot")
        );
        assert_eq!(
            src.read("e79239ba", "x.yaml").unwrap().as_deref(),
            Some("a: 1\n")
        );
        assert_eq!(src.read("e79239ba", "y.yaml").unwrap(), None);
        assert!(src.read("e79239ba", "../x.yaml").is_err());
    }
}
