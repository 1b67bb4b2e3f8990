//! A plain ASCII form of grids for tests and debugging: `.` free, `#` blocked, `1`-`9` costs.

use super::error::{column_of, numbered_lines};
use super::{ParseError, ParseErrorKind};
use crate::{Cell, Grid};

impl Grid {
    /// Reads a grid drawn in ASCII, one row per line: `.` walkable, `#` or `@` blocked, `1` to `9`
    /// walkable with that cost multiplier. Leading and trailing white space on each line and
    /// blank lines are ignored, so the text can be indented in source code.
    ///
    /// ```
    /// let grid = astar_grid::Grid::from_ascii(
    ///     "..#
    ///      .3.",
    /// )?;
    /// assert_eq!(grid.cost(astar_grid::Cell::new(1, 1)), Some(3));
    /// # Ok::<(), astar_grid::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// A [`ParseError`] for an unknown character or rows of different lengths.
    pub fn from_ascii(text: &str) -> Result<Self, ParseError> {
        // Passes over the text for the size, the checks and the cells, so that nothing but the
        // grid is allocated.
        let width = ascii_rows(text)
            .next()
            .map_or(0, |(_, _, line)| line.chars().count());
        let height = ascii_rows(text).count();
        let (Ok(width32), Ok(height32)) = (u32::try_from(width), u32::try_from(height)) else {
            return Err(ParseError::new(1, 1, ParseErrorKind::TooLarge));
        };
        // Every row is checked before the grid is allocated: a long first row followed by
        // many short ones would otherwise claim far more cells than the text holds.
        for (number, indent, line) in ascii_rows(text) {
            let found = line.chars().count();
            if found != width {
                return Err(ParseError::new(
                    number,
                    1,
                    ParseErrorKind::RowLength {
                        expected: width32,
                        found,
                    },
                ));
            }
            if let Some((offset, character)) = line
                .char_indices()
                .find(|&(_, character)| ascii_value(character).is_none())
            {
                return Err(ParseError::new(
                    number,
                    indent + column_of(line, offset),
                    ParseErrorKind::UnknownTerrain(character),
                ));
            }
        }
        let mut grid = Self::try_new(width32, height32)
            .map_err(|_| ParseError::new(1, 1, ParseErrorKind::TooLarge))?;
        for (y, (_, _, line)) in ascii_rows(text).enumerate() {
            for (x, character) in line.chars().enumerate() {
                // In bounds and known: every row was checked above.
                let value = ascii_value(character).unwrap_or(0);
                let _ = grid.set_cost(Cell::new(x as u32, y as u32), value);
            }
        }
        Ok(grid)
    }

    /// The grid in the form [`Grid::from_ascii`] reads (costs above 9 are written as `9`).
    #[must_use]
    pub fn to_ascii(&self) -> String {
        to_ascii(self)
    }

    /// The grid drawn as [`Grid::to_ascii`] does, except that `overlay` may choose the character
    /// of any cell (for example `*` for the cells of a path).
    ///
    /// ```
    /// use astar_grid::{Cell, Grid};
    ///
    /// let grid = Grid::new(3, 1);
    /// let drawn = grid.to_ascii_with(|cell| (cell.x == 1).then_some('*'));
    /// assert_eq!(drawn, ".*.\n");
    /// ```
    #[must_use]
    pub fn to_ascii_with(&self, overlay: impl Fn(Cell) -> Option<char>) -> String {
        render(self, overlay)
    }
}

/// The grid value an ASCII character stands for, if any.
const fn ascii_value(character: char) -> Option<u8> {
    match character {
        '.' => Some(1),
        '#' | '@' => Some(0),
        '1'..='9' => Some(character as u8 - b'0'),
        _ => None,
    }
}

/// The rows of an ASCII grid: each non-blank line with its number, the characters of white
/// space before it, and the line without its surrounding white space.
fn ascii_rows(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    numbered_lines(text)
        .map(|(number, line)| {
            let indent = line
                .chars()
                .take_while(|character| character.is_whitespace())
                .count();
            (number, indent, line.trim())
        })
        .filter(|(_, _, line)| !line.is_empty())
}

pub(crate) fn to_ascii(grid: &Grid) -> String {
    render(grid, |_| None)
}

/// Draws the rows of `grid`; a grid without cells draws as nothing (blank lines would read back
/// as no rows either).
fn render(grid: &Grid, overlay: impl Fn(Cell) -> Option<char>) -> String {
    if grid.is_empty() {
        return String::new();
    }
    // At most 2^31 cells and rows: the sum fits a `usize` of 64 bits and saturates below.
    let mut text = String::with_capacity(grid.len().saturating_add(grid.height() as usize));
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let cell = Cell::new(x, y);
            text.push(overlay(cell).unwrap_or(match grid.value(cell) {
                0 => '#',
                1 => '.',
                cost => char::from(b'0' + cost.min(9)),
            }));
        }
        text.push('\n');
    }
    text
}

impl core::fmt::Debug for Grid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "Grid {}x{}", self.width(), self.height())?;
        f.write_str(&to_ascii(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let text = "..#\n.3.\n";
        assert_eq!(Grid::from_ascii(text).expect("valid").to_ascii(), text);
    }

    #[test]
    fn rejects_ragged_rows_and_unknown_characters() {
        let error = Grid::from_ascii("...\n..\n").expect_err("ragged");
        assert_eq!(error.line, 2);
        let error = Grid::from_ascii("..\n.x\n").expect_err("unknown");
        assert_eq!((error.line, error.column), (2, 2));
    }
}
