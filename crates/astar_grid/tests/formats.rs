//! Formats and sizes: map headers that claim what their file cannot hold, map types, grids
//! without cells, and grid sizes at the limits of 32-bit arithmetic.

use astar_grid::{
    Cell, Grid, GridError, JumpGrid, ParseErrorKind, SearchError, SearchOptions, Searcher,
    parse_map,
};

/// Grids with a zero width or height have no cells: they keep no memory, whatever their other
/// dimension, and are refused by nothing but their searches.
#[test]
fn grids_without_cells_hold_no_memory() {
    for (width, height) in [
        (0, 0),
        (0, 1),
        (3, 0),
        (0, 99_999_999),
        (99_999_999, 0),
        (0, u32::MAX),
        (u32::MAX, 0),
    ] {
        let grid = Grid::try_new(width, height).expect("a grid without cells");
        assert_eq!((grid.width(), grid.height()), (width, height));
        assert!(grid.is_empty());
        assert_eq!(grid.memory_bytes(), 0, "{width}x{height}");
        assert_eq!(grid.walkable_count(), 0);
        assert_eq!(grid.cells().count(), 0);
    }
}

/// A jump grid built from a grid without cells keeps nothing either.
#[test]
fn a_jump_grid_without_cells_holds_no_memory() {
    let grid = Grid::try_new(0, 1_000_000).expect("a grid without cells");
    let jump_grid = JumpGrid::new(&grid).expect("no terrain costs");
    assert_eq!(jump_grid.memory_bytes(), 0);
    assert!(!jump_grid.is_walkable(Cell::new(0, 0)));
    let mut searcher = Searcher::for_grid(&grid);
    assert_eq!(searcher.memory_bytes(), 0);
    let (start, goal) = (Cell::new(0, 0), Cell::new(0, 5));
    assert_eq!(
        searcher.find_path(&grid, start, goal, &SearchOptions::default()),
        Err(SearchError::EmptyGrid)
    );
    assert_eq!(
        searcher.find_path_jps(&jump_grid, start, goal, &astar_grid::JpsOptions::default()),
        Err(SearchError::EmptyGrid)
    );
}

/// A header with a zero dimension claims no cells, so it passes the check against the bytes
/// of the file; the grid it builds must then hold nothing.
#[test]
fn a_map_header_with_a_zero_dimension_builds_an_empty_grid() {
    let grid = parse_map("type octile\nheight 0\nwidth 99999999\nmap\n").expect("a map of no rows");
    assert_eq!((grid.width(), grid.height()), (99_999_999, 0));
    assert_eq!(grid.memory_bytes(), 0);
    let error = parse_map("type octile\nheight 99999999\nwidth 0\nmap\n").expect_err("no rows");
    assert_eq!(error.line, 5);
}

/// Sizes whose bordered buffer does not fit 32-bit indices are refused with a typed error,
/// however large: the size arithmetic is checked, not left to overflow.
#[test]
fn grid_sizes_at_the_limits_of_the_arithmetic_are_refused() {
    for (width, height) in [
        (u32::MAX, u32::MAX),
        (u32::MAX, u32::MAX - 1),
        (u32::MAX - 1, u32::MAX - 2),
        (u32::MAX - 2, u32::MAX - 2),
        (u32::MAX, 1),
        (1, u32::MAX),
        (u32::MAX - 2, 1),
        (1 << 16, 1 << 16),
        (1 << 31, 1),
    ] {
        assert_eq!(
            Grid::try_new(width, height),
            Err(GridError::TooLarge { width, height }),
            "{width}x{height}"
        );
    }
}

/// Moving AI maps are octile maps; any other type is refused where it is named.
#[test]
fn map_types_other_than_octile_are_refused() {
    for (text, column) in [
        ("type tile\nheight 1\nwidth 1\nmap\n.\n", 6),
        ("type  Octile\nheight 1\nwidth 1\nmap\n.\n", 7),
        ("type\nheight 1\nwidth 1\nmap\n.\n", 5),
    ] {
        let error = parse_map(text).expect_err(text);
        assert_eq!((error.line, error.column), (1, column), "{text:?}: {error}");
        assert!(matches!(error.kind, ParseErrorKind::UnsupportedMapType(_)));
    }
    assert!(parse_map("type octile\nheight 1\nwidth 1\nmap\n.\n").is_ok());
}
