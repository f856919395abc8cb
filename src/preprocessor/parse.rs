//! The attribute syntax of one directive: `<<agentx name="value" …>>`, and
//! the typed errors that say what is wrong with one.

use std::fmt;

/// How a directive starts and ends.
pub(crate) const OPEN: &str = "<<agentx";
pub(crate) const CLOSE: &str = ">>";

/// The attributes a directive may carry.
pub(crate) const ATTRIBUTES: [&str; 4] = ["page", "hardware", "level", "data"];

/// A parsed directive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Directive {
    /// The data file's `model` to show.
    pub page: Option<String>,
    /// Hardware ids to keep (`hardware="b200,gb200"`).
    pub hardware: Option<Vec<String>>,
    /// Heading level of the section.
    pub level: Option<u8>,
    /// Data file to use instead of looking the page up, relative to the book root.
    pub data: Option<String>,
}

/// Why a directive cannot be used; its text is the message a reader sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DirectiveError {
    MissingClose,
    /// A character where an attribute name or `>>` belongs.
    Unexpected(char),
    UnknownAttribute(String),
    Repeated(String),
    MissingEquals(String),
    Unquoted(String),
    UnterminatedQuote(String),
    EmptyHardware,
    BadLevel(String),
    /// A character right after a value (attribute, character).
    AfterValue(String, char),
    MissingPage,
    /// Text before or after the directive on its line.
    NotOnOwnLine,
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DirectiveError::{
            AfterValue, BadLevel, EmptyHardware, MissingClose, MissingEquals, MissingPage,
            NotOnOwnLine, Repeated, Unexpected, UnknownAttribute, Unquoted, UnterminatedQuote,
        };
        match self {
            MissingClose => write!(f, "missing `>>` at the end of the directive"),
            Unexpected(ch) => write!(
                f,
                "unexpected `{ch}`; expected an attribute like page=\"Model-Name\" or `>>`"
            ),
            UnknownAttribute(name) => write!(
                f,
                "unknown attribute `{name}`; expected one of: {}",
                ATTRIBUTES.join(", ")
            ),
            Repeated(name) => write!(f, "attribute `{name}` is given twice"),
            MissingEquals(name) => write!(f, "expected `=` after `{name}`"),
            Unquoted(name) => write!(
                f,
                "the value of `{name}` must be in double quotes: {name}=\"…\""
            ),
            UnterminatedQuote(name) => write!(f, "unterminated quote in `{name}`"),
            EmptyHardware => write!(f, "`hardware` is empty; expected ids like \"b200,gb200\""),
            BadLevel(value) => write!(
                f,
                "`level` must be a heading level from 1 to 5, not `{value}`"
            ),
            AfterValue(name, ch) => write!(f, "unexpected `{ch}` after the value of `{name}`"),
            MissingPage => write!(
                f,
                "missing `page`: write <<agentx page=\"Model-Name\">> (or give data=\"file\")"
            ),
            NotOnOwnLine => write!(
                f,
                "a directive must stand on its own line; move it to a line of its own (or \
                 write `\\<<agentx …>>` to show it literally)"
            ),
        }
    }
}

/// A directive and the length of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub directive: Directive,
    pub len: usize,
}

/// What is wrong, and the byte offset where parsing stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub error: DirectiveError,
    pub at: usize,
}

/// A position in the directive text.
struct Cursor<'s> {
    s: &'s str,
    i: usize,
}

impl Cursor<'_> {
    fn byte(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn skip_spaces(&mut self) {
        while matches!(self.byte(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn char(&self) -> char {
        self.s[self.i..].chars().next().unwrap_or(' ')
    }

    fn fail(&self, error: DirectiveError) -> ParseError {
        ParseError { error, at: self.i }
    }

    /// An attribute name (`[A-Za-z0-9_-]+`) that the directive knows.
    fn name(&mut self) -> Result<&'static str, ParseError> {
        let start = self.i;
        while matches!(self.byte(), Some(b) if b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            self.i += 1;
        }
        if self.i == start {
            return Err(self.fail(DirectiveError::Unexpected(self.char())));
        }
        let name = &self.s[start..self.i];
        ATTRIBUTES
            .into_iter()
            .find(|a| *a == name)
            .ok_or_else(|| ParseError {
                error: DirectiveError::UnknownAttribute(name.to_string()),
                at: start,
            })
    }

    /// `= "value"` (or single quotes); returns the value and where it starts.
    fn value(&mut self, name: &str) -> Result<(String, usize), ParseError> {
        self.skip_spaces();
        if self.byte() != Some(b'=') {
            return Err(self.fail(DirectiveError::MissingEquals(name.into())));
        }
        self.i += 1;
        self.skip_spaces();
        let quote = match self.byte() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return Err(self.fail(DirectiveError::Unquoted(name.into()))),
        };
        let start = self.i + 1;
        let end = self.s[start..]
            .find(|c: char| c as u32 == quote as u32 || c == '\n')
            .map(|len| start + len)
            .filter(|&end| self.s.as_bytes()[end] != b'\n')
            .ok_or_else(|| self.fail(DirectiveError::UnterminatedQuote(name.into())))?;
        self.i = end + 1;
        Ok((self.s[start..end].to_string(), start))
    }
}

/// Sets attribute `name` of `d`; `at` is where the value starts, for errors.
fn set(d: &mut Directive, name: &str, value: String, at: usize) -> Result<(), ParseError> {
    let fail = |error| Err(ParseError { error, at });
    match name {
        "page" => d.page = Some(value),
        "data" => d.data = Some(value),
        "hardware" => {
            let hw: Vec<String> = value
                .split(',')
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect();
            if hw.is_empty() {
                return fail(DirectiveError::EmptyHardware);
            }
            d.hardware = Some(hw);
        }
        "level" => match value.parse::<u8>() {
            Ok(l @ 1..=5) => d.level = Some(l),
            _ => return fail(DirectiveError::BadLevel(value)),
        },
        _ => unreachable!("checked against ATTRIBUTES"),
    }
    Ok(())
}

/// Parses `<<agentx name="value" …>>` at the start of `s`.
pub(crate) fn parse(s: &str) -> Result<Parsed, ParseError> {
    debug_assert!(s.starts_with(OPEN));
    let mut d = Directive::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut c = Cursor { s, i: OPEN.len() };
    loop {
        c.skip_spaces();
        if s[c.i..].starts_with(CLOSE) {
            c.i += CLOSE.len();
            break;
        }
        if matches!(c.byte(), None | Some(b'\n' | b'\r')) {
            return Err(c.fail(DirectiveError::MissingClose));
        }
        let name_start = c.i;
        let name = c.name()?;
        if seen.contains(&name) {
            return Err(ParseError {
                error: DirectiveError::Repeated(name.into()),
                at: name_start,
            });
        }
        seen.push(name);
        let (value, value_start) = c.value(name)?;
        set(&mut d, name, value, value_start)?;
        match c.byte() {
            Some(b' ' | b'\t' | b'>') => {}
            None => return Err(c.fail(DirectiveError::MissingClose)),
            Some(_) => return Err(c.fail(DirectiveError::AfterValue(name.into(), c.char()))),
        }
    }
    if d.page.is_none() && d.data.is_none() {
        return Err(c.fail(DirectiveError::MissingPage));
    }
    Ok(Parsed {
        directive: d,
        len: c.i,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(page: &str) -> Directive {
        Directive {
            page: Some(page.into()),
            ..Directive::default()
        }
    }

    #[test]
    fn parse_table() {
        let ok: &[(&str, Directive)] = &[
            ("<<agentx page=\"Qwen3.5\">>", dir("Qwen3.5")),
            ("<<agentx   page='Qwen3.5'  >>", dir("Qwen3.5")),
            (
                "<<agentx page=\"X\" hardware=\"B200, gb200\" level=\"3\" data=\"a/b.json\">>",
                Directive {
                    page: Some("X".into()),
                    hardware: Some(vec!["b200".into(), "gb200".into()]),
                    level: Some(3),
                    data: Some("a/b.json".into()),
                },
            ),
            (
                "<<agentx data=\"x.json\">>",
                Directive {
                    data: Some("x.json".into()),
                    ..Directive::default()
                },
            ),
            (
                "<<agentx page=\"Muse Spark Open\">>",
                dir("Muse Spark Open"),
            ),
            ("<<agentx page=\"a>>b\">>", dir("a>>b")),
        ];
        for (src, want) in ok {
            let p = parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
            assert_eq!(&p.directive, want, "{src}");
            assert_eq!(p.len, src.len(), "{src}");
        }
        let bad: &[(&str, &str, usize)] = &[
            ("<<agentx page=Qwen>>", "must be in double quotes", 14),
            ("<<agentx page=\"Qwen>>", "unterminated quote in `page`", 14),
            (
                "<<agentx pgae=\"Qwen\">>",
                "unknown attribute `pgae`; expected one of: page, hardware, level, data",
                9,
            ),
            ("<<agentx page=\"a\" page=\"b\">>", "given twice", 18),
            ("<<agentx page \"a\">>", "expected `=` after `page`", 14),
            ("<<agentx page=\"a\"", "missing `>>`", 17),
            (
                "<<agentx page=\"a\"x>>",
                "unexpected `x` after the value of `page`",
                17,
            ),
            ("<<agentx level=\"9\" page=\"a\">>", "from 1 to 5", 16),
            ("<<agentx hardware=\"b200\">>", "missing `page`", 26),
            ("<<agentx page=\"a\" ,>>", "unexpected `,`", 18),
        ];
        for (src, msg, at) in bad {
            let e = parse(src).expect_err(src);
            let m = e.error.to_string();
            assert!(m.contains(msg), "{src}: {m}");
            assert_eq!(e.at, *at, "{src}: {m}");
        }
    }
}
