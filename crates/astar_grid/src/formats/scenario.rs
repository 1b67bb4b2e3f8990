//! Moving AI `.scen` files: `version 1`, then one query per row with its optimal length.

use super::error::{column_of, numbered_lines, words_with_offsets};
use super::{ParseError, ParseErrorKind};
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

/// Reads a Moving AI `.scen` file (fields separated by tabs or spaces).
///
/// ```
/// let text = "version 1\n0\tmaps/arena.map\t49\t49\t1\t11\t1\t12\t1\n";
/// let scenario = astar_grid::parse_scenario(text)?;
/// assert_eq!(scenario.queries[0].goal, astar_grid::Cell::new(1, 12));
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

fn parse_row(number: usize, line: &str) -> Result<ScenarioQuery, ParseError> {
    // Byte offsets of each field, for error columns.
    let mut fields = Vec::with_capacity(9);
    let mut offset = 0;
    for word in line.split(['\t', ' ']) {
        if !word.is_empty() {
            fields.push((offset, word));
        }
        offset += word.len() + 1;
    }
    if fields.len() > FIELDS.len() {
        let (offset, _) = fields[FIELDS.len()];
        return Err(ParseError::new(
            number,
            column_of(line, offset),
            ParseErrorKind::ExtraField,
        ));
    }
    let field = |index: usize| {
        fields.get(index).copied().ok_or_else(|| {
            ParseError::new(
                number,
                column_of(line, line.len()),
                ParseErrorKind::MissingField(FIELDS[index]),
            )
        })
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
    Ok(ScenarioQuery {
        bucket,
        map,
        map_width,
        map_height,
        start,
        goal,
        optimal_length,
    })
}

/// Writes a scenario in the Moving AI format, tab-separated, lengths with 8 decimals.
///
/// ```
/// let text = "version 1\n0\tmaps/arena.map\t49\t49\t1\t11\t1\t12\t1.00000000\n";
/// let scenario = astar_grid::parse_scenario(text)?;
/// assert_eq!(astar_grid::write_scenario(&scenario), text);
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn write_scenario(scenario: &Scenario) -> String {
    let mut text = String::from("version 1\n");
    for query in &scenario.queries {
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
    text
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
