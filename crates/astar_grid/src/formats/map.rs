//! Moving AI `.map` files: `type octile`, `height H`, `width W`, `map`, then H rows of W cells;
//! and the same format for hexagonal maps, whose `type` names their [`HexLayout`].

use super::error::{column_of, numbered_lines, words_with_offsets};
use super::{Legend, ParseError, ParseErrorKind};
use crate::hex::{HexLayout, HexMap};
use crate::{Cell, Grid};
use core::fmt::Write as _;

/// The shape of a map file's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapShape {
    /// Square cells: `type octile`, the Moving AI maps. Cell `(x, y)` is column `x` of row `y`.
    Square,
    /// Hexagons in a [`HexLayout`]: `type hex-row-odd` and so on ([`HexLayout::name`]). The
    /// file's rows are the tile rows; the grid holds them in axial coordinates
    /// ([`crate::hex`]), to be searched with [`Movement::HEX`](crate::Movement::HEX).
    Hex(HexMap),
}

/// A map read from a file of any shape ([`parse_map_file`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MapFile {
    /// The grid to search: the cells as written for square maps, the axial grid for hexagonal
    /// ones (cells that hold no tile blocked).
    pub grid: Grid,
    /// The shape of the cells.
    pub shape: MapShape,
}

/// Reads a map file of any shape: a Moving AI `.map` file (`type octile`) or a hexagonal map in
/// the same format, whose `type` line names its layout (`type hex-row-odd`, and the other
/// names of [`HexLayout::name`]) and whose `height` rows of `width` characters are its tile rows
/// and columns.
///
/// ```
/// use astar_grid::formats::{MapShape, parse_map_file, write_map_file};
/// use astar_grid::{Legend, Movement, SearchOptions, Searcher};
///
/// let text = "type hex-row-odd\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n";
/// let file = parse_map_file(text, &Legend::moving_ai())?;
/// let MapShape::Hex(map) = file.shape else { panic!("a hex map") };
/// let (start, goal) = (map.cell_of((0, 1)).unwrap(), map.cell_of((3, 1)).unwrap());
/// let options = SearchOptions::default().with_movement(Movement::HEX);
/// let result = Searcher::new().find_path(&file.grid, start, goal, &options)?;
/// assert_eq!(result.found().map(|path| path.cost), Some(4.0)); // around the two walls
/// assert_eq!(write_map_file(&file, &Legend::moving_ai()).as_deref(), Some(text));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A [`ParseError`] naming the line and column of the first problem, as [`parse_map_with`];
/// [`ParseErrorKind::TooLarge`] also when a hexagonal map's axial grid would take far more
/// memory than the file's size warrants.
pub fn parse_map_file(text: &str, legend: &Legend) -> Result<MapFile, ParseError> {
    let (tiles, header) = parse_tiles(text, legend, ShapesRead::Any)?;
    let layout = match header.shape {
        None => {
            return Ok(MapFile {
                grid: tiles,
                shape: MapShape::Square,
            });
        }
        Some(layout) => layout,
    };
    let too_large = || ParseError::new(header.last_line, 1, ParseErrorKind::TooLarge);
    let map = HexMap::new(layout, tiles.width(), tiles.height()).map_err(|_| too_large())?;
    let (width, height) = map.grid_size();
    let buffer = Grid::buffer_len(width, height).ok_or_else(too_large)?;
    let allowed = (text.len() as u64)
        .saturating_mul(BUFFER_BYTES_PER_CELL)
        .max(HEX_BUFFER_FLOOR);
    if buffer as u64 > allowed {
        return Err(too_large());
    }
    let grid = map
        .grid_from_tiles(|(x, y)| tiles.value(Cell::new(x, y)))
        .map_err(|_| too_large())?;
    Ok(MapFile {
        grid,
        shape: MapShape::Hex(map),
    })
}

/// Writes a map file of any shape, as [`parse_map_file`] reads it; `None` when some cell's cost
/// has no character in the legend.
#[must_use]
pub fn write_map_file(file: &MapFile, legend: &Legend) -> Option<String> {
    match file.shape {
        MapShape::Square => write_map(&file.grid, legend),
        MapShape::Hex(map) => {
            let (columns, rows) = map.tiles();
            let tiles = Grid::from_fn(columns, rows, |cell| {
                map.cell_of((cell.x, cell.y))
                    .map_or(0, |at| file.grid.value(at))
            });
            write_grid(&tiles, map.layout().name(), legend)
        }
    }
}

/// Reads a Moving AI `.map` file with the benchmark legend ([`Legend::moving_ai`]).
///
/// ```
/// let text = "type octile\nheight 2\nwidth 3\nmap\n..@\nT..\n";
/// let grid = astar_grid::parse_map(text)?;
/// assert_eq!((grid.width(), grid.height()), (3, 2));
/// assert!(!grid.is_walkable(astar_grid::Cell::new(2, 0)));
///
/// let error = astar_grid::parse_map("type octile\nheight 2\nwidth 3\nmap\n..@\nT.?\n").unwrap_err();
/// assert_eq!((error.line, error.column), (6, 3));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
///
/// # Errors
/// A [`ParseError`] naming the line and column of the first problem.
pub fn parse_map(text: &str) -> Result<Grid, ParseError> {
    parse_map_with(text, &Legend::moving_ai())
}

/// Reads a Moving AI `.map` file with a custom legend.
///
/// # Errors
/// A [`ParseError`] naming the line and column of the first problem.
pub fn parse_map_with(text: &str, legend: &Legend) -> Result<Grid, ParseError> {
    parse_tiles(text, legend, ShapesRead::Square).map(|(grid, _)| grid)
}

/// Which map types a reader takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ShapesRead {
    /// `type octile` only: another type is refused where it is named, before the rows are read.
    Square,
    /// Every type.
    Any,
}

/// Reads a map file's header and its rows of cells as written, one cell per character.
fn parse_tiles(
    text: &str,
    legend: &Legend,
    shapes: ShapesRead,
) -> Result<(Grid, Header), ParseError> {
    // A final line ending does not start another (empty) row.
    let mut lines = numbered_lines(text.strip_suffix('\n').unwrap_or(text));
    let header = read_header(&mut lines)?;
    if let (ShapesRead::Square, Some(layout)) = (shapes, header.shape) {
        return Err(ParseError::new(
            header.type_at.0,
            header.type_at.1,
            ParseErrorKind::UnsupportedMapType(layout.name().to_owned()),
        ));
    }
    check_claimed_size(text, &header)?;
    let mut grid = Grid::try_new(header.width, header.height)
        .map_err(|_| ParseError::new(header.last_line, 1, ParseErrorKind::TooLarge))?;
    let mut rows = 0;
    for (number, line) in lines {
        if rows == header.height {
            if line.trim().is_empty() {
                continue;
            }
            return Err(ParseError::new(number, 1, ParseErrorKind::TrailingContent));
        }
        read_row(&mut grid, rows, (number, line), legend)?;
        rows += 1;
    }
    if rows < header.height {
        return Err(ParseError::new(
            header.last_line + rows as usize + 1,
            1,
            ParseErrorKind::MissingRows {
                expected: header.height,
                found: rows as usize,
            },
        ));
    }
    Ok((grid, header))
}

/// What a map's header says.
struct Header {
    /// `None` for `type octile`, else the hexagonal layout named.
    shape: Option<HexLayout>,
    /// Line and column of the type's name.
    type_at: (usize, usize),
    width: u32,
    height: u32,
    /// Number of the header's last line, `map`.
    last_line: usize,
}

/// Reads the header lines, up to and including `map`.
fn read_header<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<Header, ParseError> {
    let mut last_line = 0;
    let mut next_header = |name: &'static str| {
        let (number, line) = lines.next().ok_or(ParseError::new(
            last_line + 1,
            1,
            ParseErrorKind::ExpectedHeader(name),
        ))?;
        last_line = number;
        Ok::<_, ParseError>((number, line))
    };
    let (number, line) = next_header("type octile")?;
    let (shape, type_column) = check_map_type(number, line)?;
    let mut height = None;
    let mut width = None;
    loop {
        let (number, line) = next_header("map")?;
        if line.trim() == "map" {
            break;
        }
        let mut words = words_with_offsets(line);
        let slot = match words.next().map(|(_, word)| word) {
            Some("height") => &mut height,
            Some("width") => &mut width,
            _ => {
                let expected = match (height, width) {
                    (None, _) => "height H",
                    (_, None) => "width W",
                    _ => "map",
                };
                return Err(ParseError::new(
                    number,
                    1,
                    ParseErrorKind::ExpectedHeader(expected),
                ));
            }
        };
        let (offset, value) = words.next().unwrap_or((line.len(), ""));
        *slot = Some(value.parse::<u32>().map_err(|_| {
            ParseError::new(
                number,
                column_of(line, offset),
                ParseErrorKind::InvalidNumber(value.to_owned()),
            )
        })?);
    }
    let missing = |what| ParseError::new(last_line, 1, ParseErrorKind::ExpectedHeader(what));
    Ok(Header {
        shape,
        type_at: (number, type_column),
        height: height.ok_or_else(|| missing("height H"))?,
        width: width.ok_or_else(|| missing("width W"))?,
        last_line,
    })
}

/// Refuses a header that announces more than the file holds, before the grid is allocated.
/// The check bounds the grid's bordered buffer, the memory actually taken: each cell of a row
/// takes at least one byte, and a grid with cells has a buffer of at most
/// [`BUFFER_BYTES_PER_CELL`] bytes a cell (a grid without cells has none).
fn check_claimed_size(text: &str, header: &Header) -> Result<(), ParseError> {
    let rows_start = text
        .split_inclusive('\n')
        .take(header.last_line)
        .map(str::len)
        .sum::<usize>();
    let available = text.len().saturating_sub(rows_start) as u64;
    let buffer = Grid::buffer_len(header.width, header.height).ok_or(ParseError::new(
        header.last_line,
        1,
        ParseErrorKind::TooLarge,
    ))?;
    if buffer as u64 <= available.saturating_mul(BUFFER_BYTES_PER_CELL) {
        return Ok(());
    }
    let rows_present = text
        .get(rows_start..)
        .map_or(0, |rows| rows.lines().count());
    Err(ParseError::new(
        header.last_line + rows_present + 1,
        1,
        ParseErrorKind::MissingRows {
            expected: header.height,
            found: rows_present.min(header.height as usize),
        },
    ))
}

/// Reads row `y` of `grid` from the numbered `line`.
fn read_row(
    grid: &mut Grid,
    y: u32,
    (number, line): (usize, &str),
    legend: &Legend,
) -> Result<(), ParseError> {
    let width = grid.width() as usize;
    let mut cells = 0;
    for (offset, character) in line.char_indices() {
        if cells == width {
            cells += 1;
            break;
        }
        let terrain = legend.get(character).ok_or_else(|| {
            ParseError::new(
                number,
                column_of(line, offset),
                ParseErrorKind::UnknownTerrain(character),
            )
        })?;
        // In bounds by construction: cells < width and y < height.
        let _ = grid.set_cost(Cell::new(cells as u32, y), terrain.value());
        cells += 1;
    }
    if cells == width {
        return Ok(());
    }
    let found = if cells > width {
        line.chars().count()
    } else {
        cells
    };
    Err(ParseError::new(
        number,
        column_of(line, line.len()).min(width + 1),
        ParseErrorKind::RowLength {
            expected: grid.width(),
            found,
        },
    ))
}

/// Bytes a hexagonal map's axial grid may take whatever its file's size: its cells that hold
/// no tile make a long, narrow map's grid many times larger than its file, and below this no
/// file is refused for it (16 MiB).
const HEX_BUFFER_FLOOR: u64 = 1 << 24;

/// Bytes of a grid's bordered buffer for each of its cells, at most: a `w` x `h` grid with cells
/// keeps `(w + 2) * (h + 2)` bytes, no more than `9 * w * h`.
const BUFFER_BYTES_PER_CELL: u64 = 9;

/// Checks the first line of a map: `type octile`, the only type of the Moving AI maps, or the
/// name of a hexagonal layout; returns the layout (`None` for octile) and the column of the
/// type's name.
fn check_map_type(number: usize, line: &str) -> Result<(Option<HexLayout>, usize), ParseError> {
    let mut words = words_with_offsets(line);
    if words.next().map(|(_, word)| word) != Some("type") {
        return Err(ParseError::new(
            number,
            1,
            ParseErrorKind::ExpectedHeader("type octile"),
        ));
    }
    match words.next() {
        Some((offset, "octile")) => Ok((None, column_of(line, offset))),
        Some((offset, name)) if HexLayout::from_name(name).is_some() => {
            Ok((HexLayout::from_name(name), column_of(line, offset)))
        }
        found => {
            let (offset, map_type) = found.unwrap_or((line.trim_end().len(), ""));
            Err(ParseError::new(
                number,
                column_of(line, offset),
                ParseErrorKind::UnsupportedMapType(map_type.to_owned()),
            ))
        }
    }
}

/// Writes a grid as a Moving AI `.map` file, naming each cell by the legend's first character
/// for its value; returns `None` when some cell's cost has no character in the legend.
///
/// ```
/// use astar_grid::{parse_map, write_map, Legend};
///
/// let text = "type octile\nheight 1\nwidth 3\nmap\n.@.\n";
/// let grid = parse_map(text)?;
/// assert_eq!(write_map(&grid, &Legend::moving_ai()).as_deref(), Some(text));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn write_map(grid: &Grid, legend: &Legend) -> Option<String> {
    write_grid(grid, "octile", legend)
}

/// Writes `grid`'s cells as rows of a map file of type `map_type`.
fn write_grid(grid: &Grid, map_type: &str, legend: &Legend) -> Option<String> {
    let mut symbols = [None; 256];
    // At most 2^31 cells and 2^32 rows: the sum fits a `usize` of 64 bits and saturates below.
    let mut text = String::with_capacity(
        grid.len()
            .saturating_add(grid.height() as usize)
            .saturating_add(48),
    );
    let _ = write!(
        text,
        "type {map_type}\nheight {}\nwidth {}\nmap\n",
        grid.height(),
        grid.width()
    );
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let value = grid.value(Cell::new(x, y));
            let symbol = match symbols[usize::from(value)] {
                Some(symbol) => symbol,
                None => {
                    let symbol = legend.character_for(value)?;
                    symbols[usize::from(value)] = Some(symbol);
                    symbol
                }
            };
            text.push(symbol);
        }
        text.push('\n');
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_at(text: &str) -> (usize, usize, ParseErrorKind) {
        let error = parse_map(text).expect_err("should not parse");
        (error.line, error.column, error.kind)
    }

    #[test]
    fn reads_the_header_in_either_order_and_crlf() {
        let grid = parse_map("type octile\r\nwidth 2\r\nheight 1\r\nmap\r\n.@\r\n").expect("valid");
        assert_eq!((grid.width(), grid.height()), (2, 1));
        assert_eq!(grid.value(Cell::new(1, 0)), 0);
    }

    #[test]
    fn names_line_and_column_of_each_problem() {
        assert_eq!(error_at("").0, 1);
        assert_eq!(
            error_at("type octile\nheight x\nwidth 2\nmap\n"),
            (2, 8, ParseErrorKind::InvalidNumber("x".into()))
        );
        assert_eq!(
            error_at("type octile\nheight 2\nwidth 2\nmap\n..\n.\n"),
            (
                6,
                2,
                ParseErrorKind::RowLength {
                    expected: 2,
                    found: 1
                }
            )
        );
        assert_eq!(
            error_at("type octile\nheight 1\nwidth 2\nmap\n...\n").2,
            ParseErrorKind::RowLength {
                expected: 2,
                found: 3
            }
        );
        assert_eq!(
            error_at("type octile\nheight 3\nwidth 2\nmap\n..\n"),
            (
                6,
                1,
                ParseErrorKind::MissingRows {
                    expected: 3,
                    found: 1
                }
            )
        );
        assert_eq!(
            error_at("type octile\nheight 1\nwidth 2\nmap\n.é\n"),
            (5, 2, ParseErrorKind::UnknownTerrain('é'))
        );
        assert_eq!(
            error_at("type octile\nheight 1\nwidth 1\nmap\n.\nextra\n"),
            (6, 1, ParseErrorKind::TrailingContent)
        );
        assert_eq!(
            error_at("type octile\nheight 1\nmap\n").2,
            ParseErrorKind::ExpectedHeader("width W")
        );
    }

    #[test]
    fn swamp_costs_follow_the_legend() {
        let text = "type octile\nheight 1\nwidth 2\nmap\nSW\n";
        assert_eq!(parse_map(text).expect("valid").value(Cell::new(0, 0)), 1);
        let terrain = parse_map_with(text, &Legend::terrain()).expect("valid");
        assert_eq!(terrain.value(Cell::new(0, 0)), 3);
        assert_eq!(terrain.value(Cell::new(1, 0)), 0);
        assert_eq!(write_map(&terrain, &Legend::moving_ai()), None);
        assert!(write_map(&terrain, &Legend::terrain()).is_some_and(|text| text.ends_with("S@\n")));
    }
}
