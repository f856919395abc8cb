//! What the library has to tell its user besides a result (a data file's
//! unknown key, a file not copied, a site synced in place): returned as
//! values in each command's report, never printed. Only the binary writes to
//! stdout and stderr, so a program using the library decides where they go.

use std::fmt;
use std::sync::Mutex;

use serde::Serialize;

/// How much a [`Notice`] matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The output may not be what was meant (`warning: …`).
    Warning,
    /// The output is right, but how it was made matters (`note: …`).
    Note,
    /// A summary line, shown as it is.
    Info,
}

/// One thing to tell the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    /// How much it matters.
    pub level: Level,
    /// The message, without its `warning: ` or `note: ` prefix.
    pub message: String,
}

impl Notice {
    /// A warning.
    pub fn warning(message: impl Into<String>) -> Notice {
        Notice {
            level: Level::Warning,
            message: message.into(),
        }
    }

    /// A note.
    pub fn note(message: impl Into<String>) -> Notice {
        Notice {
            level: Level::Note,
            message: message.into(),
        }
    }

    /// A summary line.
    pub fn info(message: impl Into<String>) -> Notice {
        Notice {
            level: Level::Info,
            message: message.into(),
        }
    }
}

/// As a terminal shows it: `warning: …`, `note: …`, or the line itself.
impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.level {
            Level::Warning => write!(f, "warning: {}", self.message),
            Level::Note => write!(f, "note: {}", self.message),
            Level::Info => f.write_str(&self.message),
        }
    }
}

/// Notices gathered while one operation runs, in the order they arose;
/// worker threads may add to it at once.
#[derive(Debug, Default)]
pub(crate) struct Notices(Mutex<Vec<Notice>>);

impl Notices {
    pub(crate) fn push(&self, notice: Notice) {
        self.lock().push(notice);
    }

    pub(crate) fn extend(&self, notices: impl IntoIterator<Item = Notice>) {
        self.lock().extend(notices);
    }

    /// Every notice so far, leaving none.
    pub(crate) fn take(&self) -> Vec<Notice> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Notice>> {
        // A notice is pushed whole, so a panic elsewhere leaves the list sound.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Clone for Notices {
    fn clone(&self) -> Self {
        Notices(Mutex::new(self.lock().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_with_their_level() {
        assert_eq!(Notice::warning("w").to_string(), "warning: w");
        assert_eq!(Notice::note("n").to_string(), "note: n");
        assert_eq!(Notice::info("i").to_string(), "i");
        assert_eq!(
            serde_json::to_string(&Notice::warning("w")).unwrap(),
            r#"{"level":"warning","message":"w"}"#
        );
        let all = Notices::default();
        all.push(Notice::note("a"));
        all.extend([Notice::info("b")]);
        assert_eq!(all.clone().take().len(), 2);
        assert_eq!(all.take(), [Notice::note("a"), Notice::info("b")]);
        assert!(all.take().is_empty());
    }
}
