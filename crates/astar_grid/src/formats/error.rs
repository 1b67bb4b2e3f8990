//! Parse errors that name the line and column of the problem.

use core::fmt;

/// A file that could not be read, with the 1-based line and column of the first problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column number (in characters).
    pub column: usize,
    /// What is wrong there.
    pub kind: ParseErrorKind,
}

/// What is wrong in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A header line was expected, such as `height 49`.
    ExpectedHeader(&'static str),
    /// A header value is not a valid number.
    InvalidNumber(String),
    /// The map is larger than a grid can hold.
    TooLarge,
    /// A map row has the wrong number of cells.
    RowLength {
        /// The width from the header.
        expected: u32,
        /// What the row holds.
        found: usize,
    },
    /// The file ends before all rows were read.
    MissingRows {
        /// The height from the header.
        expected: u32,
        /// Rows read.
        found: usize,
    },
    /// A character the legend does not know.
    UnknownTerrain(char),
    /// Content after the last map row.
    TrailingContent,
    /// A scenario row lacks a field.
    MissingField(&'static str),
    /// A scenario row has more than nine fields.
    ExtraField,
    /// A scenario's version line is missing or unsupported.
    UnsupportedVersion(String),
    /// The input is not UTF-8 text.
    NotText,
    /// A map's `type` line names a type other than `octile` (or, for
    /// [`parse_map_file`](crate::formats::parse_map_file), a hexagonal layout).
    UnsupportedMapType(String),
    /// A scenario row's start or goal lies outside the map size the row states.
    OutsideMap {
        /// The field: `start x`, `start y`, `goal x` or `goal y`.
        field: &'static str,
        /// Its value.
        value: u32,
        /// The map width (for x) or height (for y) the row states, which the value must be
        /// below.
        limit: u32,
    },
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ExpectedHeader(what) => write!(f, "expected `{what}`"),
            Self::InvalidNumber(text) => write!(f, "`{text}` is not a valid number"),
            Self::TooLarge => f.write_str("the map is too large"),
            Self::RowLength { expected, found } => {
                write!(f, "row has {found} cells, expected {expected}")
            }
            Self::MissingRows { expected, found } => {
                write!(f, "file ends after {found} of {expected} rows")
            }
            Self::UnknownTerrain(character) => write!(f, "unknown terrain {character:?}"),
            Self::TrailingContent => f.write_str("unexpected content after the last row"),
            Self::MissingField(field) => write!(f, "missing field `{field}`"),
            Self::ExtraField => f.write_str("more than nine fields"),
            Self::UnsupportedVersion(version) => write!(f, "unsupported version `{version}`"),
            Self::NotText => f.write_str("not UTF-8 text"),
            Self::UnsupportedMapType(map_type) => {
                write!(
                    f,
                    "unsupported map type `{map_type}`, expected `octile` (hexagonal maps are read by parse_map_file)"
                )
            }
            Self::OutsideMap {
                field,
                value,
                limit,
            } => write_outside_map(f, field, *value, *limit),
        }
    }
}

/// A scenario query that [`write_scenario`](crate::write_scenario) refuses, because
/// [`parse_scenario`](crate::parse_scenario) could not read it back as it is.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("query {query}: {kind}")]
pub struct ScenarioWriteError {
    /// Index of the query in the scenario, from 0.
    pub query: usize,
    /// What cannot be written.
    pub kind: ScenarioWriteErrorKind,
}

/// What of a scenario query cannot be written so that it reads back.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioWriteErrorKind {
    /// The map name is empty, holds a tab or a line break, or starts or ends with a space.
    MapName(String),
    /// The optimal length is not a finite number.
    OptimalLength(f64),
    /// The start or goal lies outside the map size the query states.
    OutsideMap {
        /// The field: `start x`, `start y`, `goal x` or `goal y`.
        field: &'static str,
        /// Its value.
        value: u32,
        /// The map width (for x) or height (for y), which the value must be below.
        limit: u32,
    },
}

impl fmt::Display for ScenarioWriteErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MapName(name) => write!(
                f,
                "map name {name:?} is empty, holds a tab or a line break, or starts or ends with a space"
            ),
            Self::OptimalLength(length) => write!(f, "optimal length {length} is not finite"),
            Self::OutsideMap {
                field,
                value,
                limit,
            } => write_outside_map(f, field, *value, *limit),
        }
    }
}

/// The message of a start or goal coordinate outside the map size its query states.
fn write_outside_map(
    f: &mut fmt::Formatter<'_>,
    field: &str,
    value: u32,
    limit: u32,
) -> fmt::Result {
    write!(
        f,
        "{field} {value} lies outside the map, whose size on that axis is {limit}"
    )
}

impl ParseError {
    pub(crate) const fn new(line: usize, column: usize, kind: ParseErrorKind) -> Self {
        Self { line, column, kind }
    }

    /// The error for input bytes that are not UTF-8, placed at the first invalid byte.
    #[must_use]
    pub fn not_text(bytes: &[u8], error: &core::str::Utf8Error) -> Self {
        let valid = &bytes[..error.valid_up_to()];
        let line = valid.iter().filter(|&&byte| byte == b'\n').count() + 1;
        let line_start = valid
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |newline| newline + 1);
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        Self::new(line, column, ParseErrorKind::NotText)
    }
}

/// Splits text into lines numbered from 1, without their line endings (`\n` or `\r\n`).
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .enumerate()
        .map(|(index, line)| (index + 1, line))
}

/// The white-space-separated words of `line` with their byte offsets.
pub(crate) fn words_with_offsets(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.char_indices()
        .filter(|&(offset, character)| {
            !character.is_whitespace()
                && line[..offset]
                    .chars()
                    .next_back()
                    .is_none_or(char::is_whitespace)
        })
        .map(move |(offset, _)| {
            let rest = &line[offset..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (offset, &rest[..end])
        })
}

/// 1-based column of the byte offset `offset` within `line`, counted in characters.
pub(crate) fn column_of(line: &str, offset: usize) -> usize {
    line[..offset].chars().count() + 1
}
