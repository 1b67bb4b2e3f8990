//! Moving AI `.scen` files: `version 1`, then one query per row with its optimal length.

use super::error::{column_of, numbered_lines, words_with_offsets};
use super::{ParseError, ParseErrorKind, ScenarioWriteError, ScenarioWriteErrorKind};
use crate::Cell;
use core::fmt::Write as _;

/// One benchmark query.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioQuery {
    /// Difficulty bucket.
    pub bucket: u32,
    /// The map file named in the row.
    pub map: String,
    /// Map width named in the row.
    pub map_width: u32,
    /// Map height named in the row.
    pub map_height: u32,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// Optimal path length; negative when no path exists.
    pub optimal_length: f64,
}

/// A scenario file: its queries in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scenario {
    /// The queries.
    pub queries: Vec<ScenarioQuery>,
}

const FIELDS: [&str; 9] = [
    "bucket",
    "map",
    "map width",
    "map height",
    "start x",
    "start y",
    "goal x",
    "goal y",
    "optimal length",
];

/// Reads a Moving AI `.scen` file.
///
/// Its rows separate their fields by tabs, so that a map name may hold spaces; a row without
/// a tab is read as fields separated by spaces, as some older files are written. Spaces around
/// a field are not part of it. A row whose start or goal lies outside the map width and height
/// it states is an error.
///
/// ```
/// let text = "version 1\n0\tmaps/my arena.map\t49\t49\t1\t11\t1\t12\t1\n";
/// let scenario = astar_grid::parse_scenario(text)?;
/// assert_eq!(scenario.queries[0].map, "maps/my arena.map");
/// assert_eq!(scenario.queries[0].goal, astar_grid::Cell::new(1, 12));
///
/// let outside = astar_grid::parse_scenario("version 1\n0 m.map 8 8 8 1 2 2 1\n").unwrap_err();
/// assert_eq!((outside.line, outside.column), (2, 13));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
///
/// # Errors
/// A [`ParseError`] naming the line and column of the first problem.
pub fn parse_scenario(text: &str) -> Result<Scenario, ParseError> {
    let mut lines = numbered_lines(text);
    let (_, first) = lines.next().unwrap_or((1, ""));
    let mut words = words_with_offsets(first);
    if words.next().map(|(_, word)| word) != Some("version") {
        return Err(ParseError::new(
            1,
            1,
            ParseErrorKind::ExpectedHeader("version 1"),
        ));
    }
    let (offset, version) = words.next().unwrap_or((first.len(), ""));
    if !matches!(version, "1" | "1.0") {
        return Err(ParseError::new(
            1,
            column_of(first, offset),
            ParseErrorKind::UnsupportedVersion(version.to_owned()),
        ));
    }
    let mut queries = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        queries.push(parse_row(number, line)?);
    }
    Ok(Scenario { queries })
}

/// The fields of a row with their byte offsets: separated by tabs when the row holds one, else
/// by spaces; without the spaces around them, and without empty ones.
fn row_fields(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let separator = if line.contains('\t') { '\t' } else { ' ' };
    line.split(separator)
        .scan(0, |start, piece| {
            let offset = *start;
            *start += piece.len() + 1;
            Some((offset, piece))
        })
        .filter_map(|(offset, piece)| {
            let unindented = piece.trim_start_matches(' ');
            let field = unindented.trim_end_matches(' ');
            let offset = offset + piece.len() - unindented.len();
            (!field.is_empty()).then_some((offset, field))
        })
}

/// Index in [`FIELDS`] of the start's x, which the start's y and the goal's x and y follow.
const FIRST_COORDINATE: usize = 4;

/// The first coordinate of a query outside the map size it states: its index in [`FIELDS`],
/// its value and the width or height it must be below.
fn coordinate_outside_map(query: &ScenarioQuery) -> Option<(usize, u32, u32)> {
    let (width, height) = (query.map_width, query.map_height);
    [
        (query.start.x, width),
        (query.start.y, height),
        (query.goal.x, width),
        (query.goal.y, height),
    ]
    .into_iter()
    .zip(FIRST_COORDINATE..)
    .find(|&((value, limit), _)| value >= limit)
    .map(|((value, limit), index)| (index, value, limit))
}

/// The fields of a row, at most nine.
struct RowFields<'a> {
    /// Each field with its byte offset in the row; the first `count` are filled.
    fields: [(usize, &'a str); FIELDS.len()],
    count: usize,
}

/// The fields of a row; more than nine is an error.
fn split_row(number: usize, line: &str) -> Result<RowFields<'_>, ParseError> {
    let mut fields = [(line.len(), ""); FIELDS.len()];
    let mut count = 0;
    for (offset, word) in row_fields(line) {
        if count == FIELDS.len() {
            return Err(ParseError::new(
                number,
                column_of(line, offset),
                ParseErrorKind::ExtraField,
            ));
        }
        fields[count] = (offset, word);
        count += 1;
    }
    Ok(RowFields { fields, count })
}

fn parse_row(number: usize, line: &str) -> Result<ScenarioQuery, ParseError> {
    let RowFields { fields, count } = split_row(number, line)?;
    let field = |index: usize| {
        if index < count {
            Ok(fields[index])
        } else {
            Err(ParseError::new(
                number,
                column_of(line, line.len()),
                ParseErrorKind::MissingField(FIELDS[index]),
            ))
        }
    };
    let invalid = |offset: usize, text: &str| {
        ParseError::new(
            number,
            column_of(line, offset),
            ParseErrorKind::InvalidNumber(text.to_owned()),
        )
    };
    let integer = |index: usize| {
        let (offset, text) = field(index)?;
        text.parse::<u32>().map_err(|_| invalid(offset, text))
    };
    let bucket = integer(0)?;
    let map = field(1)?.1.to_owned();
    let map_width = integer(2)?;
    let map_height = integer(3)?;
    let start = Cell::new(integer(4)?, integer(5)?);
    let goal = Cell::new(integer(6)?, integer(7)?);
    let (offset, text) = field(8)?;
    let optimal_length = text
        .parse::<f64>()
        .ok()
        .filter(|length| length.is_finite())
        .ok_or_else(|| invalid(offset, text))?;
    let query = ScenarioQuery {
        bucket,
        map,
        map_width,
        map_height,
        start,
        goal,
        optimal_length,
    };
    if let Some((index, value, limit)) = coordinate_outside_map(&query) {
        return Err(ParseError::new(
            number,
            column_of(line, fields[index].0),
            ParseErrorKind::OutsideMap {
                field: FIELDS[index],
                value,
                limit,
            },
        ));
    }
    Ok(query)
}

/// Whether `parse_scenario` reads `name` back as the map name of a written row.
fn map_name_reads_back(name: &str) -> bool {
    !name.is_empty()
        && !name.contains(['\t', '\n'])
        && !name.starts_with(' ')
        && !name.ends_with(' ')
}

/// Writes a scenario in the Moving AI format, tab-separated, lengths with 8 decimals.
///
/// ```
/// let text = "version 1\n0\tmaps/my arena.map\t49\t49\t1\t11\t1\t12\t1.00000000\n";
/// let scenario = astar_grid::parse_scenario(text)?;
/// assert_eq!(astar_grid::write_scenario(&scenario).as_deref(), Ok(text));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
///
/// # Errors
/// A [`ScenarioWriteError`] for the first query that [`parse_scenario`] could not read back:
/// a map name that is empty, holds a tab or a line break, or starts or ends with a space; an
/// optimal length that is not finite; a start or goal outside the map size the query states.
pub fn write_scenario(scenario: &Scenario) -> Result<String, ScenarioWriteError> {
    let mut text = String::from("version 1\n");
    for (index, query) in scenario.queries.iter().enumerate() {
        let refuse = |kind| ScenarioWriteError { query: index, kind };
        if !map_name_reads_back(&query.map) {
            return Err(refuse(ScenarioWriteErrorKind::MapName(query.map.clone())));
        }
        if !query.optimal_length.is_finite() {
            return Err(refuse(ScenarioWriteErrorKind::OptimalLength(
                query.optimal_length,
            )));
        }
        if let Some((field, value, limit)) = coordinate_outside_map(query) {
            return Err(refuse(ScenarioWriteErrorKind::OutsideMap {
                field: FIELDS[field],
                value,
                limit,
            }));
        }
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.8}",
            query.bucket,
            query.map,
            query.map_width,
            query.map_height,
            query.start.x,
            query.start.y,
            query.goal.x,
            query.goal.y,
            query.optimal_length
        );
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_space_and_tab_separated_rows() {
        let text =
            "version 1.0\n1 a.map 4 4 0 1 2 3 2.41421356\n\n2\tb.map\t4\t4\t3\t3\t0\t0\t-1\n";
        let scenario = parse_scenario(text).expect("valid");
        assert_eq!(scenario.queries.len(), 2);
        assert_eq!(scenario.queries[0].start, Cell::new(0, 1));
        assert!(scenario.queries[1].optimal_length < 0.0);
    }

    #[test]
    fn names_line_and_column_of_each_problem() {
        let error = parse_scenario("version 2\n").expect_err("bad version");
        assert_eq!((error.line, error.column), (1, 9));
        let error = parse_scenario("version 1\n0\tm\t4\t4\t1\tx\t2\t3\t1\n").expect_err("bad y");
        assert_eq!(
            (error.line, error.column, error.kind),
            (2, 11, ParseErrorKind::InvalidNumber("x".into()))
        );
        let error = parse_scenario("version 1\n0\tm\t4\t4\t1\t1\n").expect_err("short");
        assert_eq!(error.kind, ParseErrorKind::MissingField("goal x"));
        let error = parse_scenario("version 1\n0 m 4 4 1 1 2 2 1 9\n").expect_err("long");
        assert_eq!(
            (error.line, error.column, error.kind),
            (2, 19, ParseErrorKind::ExtraField)
        );
        assert!(parse_scenario("").is_err());
    }
}
