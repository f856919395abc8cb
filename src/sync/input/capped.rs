//! The size bound on every file `sync` reads: the one builds put on data
//! files (`max-file-mib`'s default, 64 MiB), so a snapshot's `/dev/zero` or
//! a multi-GB recipe stops there instead of filling memory. The largest real
//! master config is under 1 MiB. Uses nothing else of the crate but that
//! default.

use std::io::{self, Read};
use std::path::Path;

use crate::util::fs::DEFAULT_MAX_FILE_MIB;

/// The most bytes of one file sync reads.
pub(in crate::sync) const MAX_FILE_BYTES: u64 = DEFAULT_MAX_FILE_MIB << 20;

/// The text of `path`, as [`std::fs::read_to_string`] reads it, but an
/// error of kind `FileTooLarge` past [`MAX_FILE_BYTES`] (of which at most
/// one byte more is read).
pub(in crate::sync) fn read_to_string(path: &Path) -> io::Result<String> {
    // A FIFO would block the read and a device never end: regular files only
    // (the snapshot's own files are read through `util::fs`, which also
    // refuses symlinks; this covers curves, manifests and previous data).
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: sync reads regular files only",
        ));
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(text)
}

/// The refusal of a file over [`MAX_FILE_BYTES`].
pub(in crate::sync) fn too_large() -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "larger than {DEFAULT_MAX_FILE_MIB} MiB, the most sync reads of one file (the \
             default `max-file-mib` of data files)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_past_the_bound() {
        let dir = crate::test_support::temp("capped");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        assert_eq!(read_to_string(&path).unwrap(), "a: 1\n");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = read_to_string(&path).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().starts_with("larger than 64 MiB"), "{e}");
        let missing = read_to_string(&dir.join("missing.yaml")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    /// `/dev/zero` never ends and a FIFO blocks: neither is opened.
    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_not_read() {
        let e = read_to_string(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        let dir = crate::test_support::temp("capped-fifo");
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("curve.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_to_string(&fifo).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        }
    }
}
