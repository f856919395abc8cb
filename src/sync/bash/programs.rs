//! The two programs the interpreter judges by their arguments instead of by
//! name, before the launch: `awk` running a numeric test (computed, see
//! [`super::awk`]) and `sed`, which only prints unless it edits files in
//! place. An in-place edit of a file of the image (`sed -i … /sgl-workspace/…`)
//! patches the server the measured run started, which the page's command
//! cannot show: it is refused unless the lane's manifest entry vouches for it
//! (`image-patches`), and then the report says so. docs/sync-bash-lanes.md,
//! "Image patches". Uses `sync::bash::*` and `util::escape` (the note).

use brush_parser::ast::CommandPrefixOrSuffixItem as Item;

use super::interp::{Halt, Interp};
use super::library;
use crate::util::escape;

impl Interp<'_> {
    /// `awk`: the numeric-test form is computed; any other program is opaque
    /// in a condition (for the guard rule), refused elsewhere.
    pub(super) fn awk(&mut self, suffix: &[&Item]) -> Result<i32, Halt> {
        let vals = self.words(suffix)?;
        let args: Option<Vec<String>> = vals
            .iter()
            .map(|v| v.text().ok().map(str::to_string))
            .collect();
        let why = match args.as_deref().map(super::awk::numeric_test) {
            Some(Ok(status)) => return Ok(status),
            Some(Err(why)) => why,
            None => "an argument is not known statically".to_string(),
        };
        if self.in_condition > 0 {
            return Err(Halt::Opaque(format!(
                "`awk` would have to run to decide the condition ({why})"
            )));
        }
        Err(self.fail(format!("`awk` is not interpreted ({why})")))
    }

    /// `sed`: printing is skipped (in a condition its status is opaque); an
    /// in-place edit is an image patch.
    pub(super) fn sed(&mut self, suffix: &[&Item]) -> Result<i32, Halt> {
        let vals = self.words(suffix)?;
        let mut args = Vec::new();
        for v in &vals {
            args.push(self.known(v, "a `sed` argument")?);
        }
        match library::sed_in_place(&args) {
            Ok(Some(files)) => self.image_patch(&files),
            Ok(None) if self.in_condition > 0 => Err(Halt::Opaque(
                "`sed` would have to run to decide the condition".to_string(),
            )),
            Ok(None) => Ok(0),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// `sed -i` on files of the image: refused unless the manifest vouches
    /// for this line of this script.
    fn image_patch(&mut self, files: &[String]) -> Result<i32, Halt> {
        if let Some(f) = files.iter().find(|f| !f.starts_with('/')) {
            return Err(self.fail(format!(
                "`sed -i` edits `{f}`, a file of the repository the script runs from; not \
                 interpreted"
            )));
        }
        let shown = files.join(" ");
        let path = self.file.split_once('@').map_or(&*self.file, |(p, _)| p);
        let at = format!("{path}:{}", self.line);
        let Some(reason) = self.reviewed_patches.get(&at).cloned() else {
            return Err(self.fail(format!(
                "`sed -i` patches {shown} in the image before the launch: the server the page's \
                 command starts would run without the patch. If the patch does not change how \
                 the server serves, say why on the lane: image-patches = {{ \"{at}\" = \"…\" }}"
            )));
        };
        let patched: Vec<String> = files.iter().map(|f| escape::code(f)).collect();
        self.note(format!(
            "{}: the script patches {} in the image before the launch (`sed -i`); the page's \
             command starts the image as published. Reviewed in the manifest: {}",
            escape::code(&self.at()),
            patched.join(" "),
            escape::text(&reason)
        ));
        Ok(0)
    }
}
