//! Following a path inside the book root, one component at a time
//! ([`Bounds::walk_inside`]), so that what lies outside is refused by its
//! path and never looked at.

use std::path::{Component, Path, PathBuf};

use super::{Bounds, Refusal, normalize};

impl Bounds {
    /// Follows `path` one component at a time from the book root, symlinks
    /// included, and refuses it the moment the next step would leave the
    /// root: nothing outside the book is ever looked at. A `..` is taken
    /// lexically, as it reads (`dir/../x` is `x` even when `dir` is a link).
    pub(super) fn walk_inside(&self, path: &Path) -> Result<Reach, Refusal> {
        let outside = |resolved: PathBuf| Refusal::Outside {
            path: path.to_path_buf(),
            resolved: normalize(&resolved),
            root: self.root.clone(),
        };
        let lexical = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.into()));
        let Some(rest) = [&self.root, &self.given_root]
            .iter()
            .find_map(|r| lexical.strip_prefix(r).ok())
        else {
            return Err(outside(lexical));
        };
        // Components still to follow, the next one last.
        let mut todo = Vec::new();
        push_steps(rest, &mut todo);
        let (mut cur, mut links) = (self.root.clone(), 0);
        while let Some(step) = todo.pop() {
            match step {
                Step::Root => cur = PathBuf::from("/"),
                Step::Up => {
                    cur.pop();
                }
                Step::Name(name) => {
                    let next = cur.join(name);
                    if !next.starts_with(&self.root) {
                        let mut resolved = next;
                        resolved.extend(todo.iter().rev().map(Step::as_path));
                        return Err(outside(resolved));
                    }
                    match std::fs::symlink_metadata(&next) {
                        Err(e) => return Ok(Reach::Missing(e)),
                        Ok(m) if m.file_type().is_symlink() => {
                            links += 1;
                            let target = match std::fs::read_link(&next) {
                                Ok(t) if links <= MAX_LINKS => t,
                                Ok(_) => return Ok(Reach::Missing(too_many_links())),
                                Err(e) => return Ok(Reach::Missing(e)),
                            };
                            push_steps(&target, &mut todo);
                        }
                        Ok(_) => cur = next,
                    }
                }
            }
        }
        // Ended on `/` or `..` (a link to `/`).
        if !cur.starts_with(&self.root) {
            return Err(outside(cur));
        }
        Ok(Reach::Found(cur))
    }
}

/// How far [`Bounds::walk_inside`] got, inside the book.
pub(super) enum Reach {
    /// The path exists; where it really is.
    Found(PathBuf),
    /// A component is missing (or cannot be examined).
    Missing(std::io::Error),
}

/// Symlinks followed for one path before giving up, as Linux does (`ELOOP`).
const MAX_LINKS: usize = 40;

fn too_many_links() -> std::io::Error {
    std::io::Error::other("too many levels of symbolic links")
}

/// One component of a path being followed.
enum Step {
    Root,
    Up,
    Name(std::ffi::OsString),
}

impl Step {
    fn as_path(&self) -> &Path {
        match self {
            Step::Root => Path::new("/"),
            Step::Up => Path::new(".."),
            Step::Name(n) => Path::new(n),
        }
    }
}

/// Pushes the components of `p` onto `todo` so that its first is popped first.
fn push_steps(p: &Path, todo: &mut Vec<Step>) {
    let steps = p.components().filter_map(|c| match c {
        Component::RootDir => Some(Step::Root),
        Component::ParentDir => Some(Step::Up),
        Component::Normal(n) => Some(Step::Name(n.to_os_string())),
        Component::CurDir | Component::Prefix(_) => None,
    });
    let steps: Vec<Step> = steps.collect();
    todo.extend(steps.into_iter().rev());
}
