//! The Moving AI readers and writers and the sizes a grid accepts: headers and rows that
//! claim what their file cannot hold, scenario rows outside their own map, map names with
//! spaces, grid sizes at the limits of 32-bit arithmetic, and hexagonal map files.

use astar_grid::hex::HexLayout;
use astar_grid::{
    Cell, Grid, GridError, JumpGrid, ParseErrorKind, Scenario, ScenarioQuery, ScenarioWriteError,
    ScenarioWriteErrorKind, SearchError, SearchOptions, Searcher, parse_map, parse_scenario,
    write_scenario,
};
use astar_grid::{Legend, MapShape, parse_map_file, write_map_file};

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

/// A scenario row whose start or goal lies outside the width and height the row states is
/// refused at the offending coordinate.
#[test]
fn scenario_rows_outside_their_own_map_are_refused() {
    let cases = [
        ("version 1\n0 m.map 8 8 8 1 2 2 1\n", 13, "start x", 8, 8),
        (
            "version 1\n0\tm.map\t8\t8\t1\t8\t2\t2\t1\n",
            15,
            "start y",
            8,
            8,
        ),
        (
            "version 1\n0\tm.map\t8\t8\t1\t1\t9\t2\t1\n",
            17,
            "goal x",
            9,
            8,
        ),
        (
            "version 1\n0\tm.map\t8\t8\t1\t1\t2\t4000000000\t1\n",
            19,
            "goal y",
            4_000_000_000,
            8,
        ),
        (
            "version 1\n0\tm.map\t0\t0\t0\t0\t0\t0\t0\n",
            13,
            "start x",
            0,
            0,
        ),
        (
            "version 1\n0\tm.map\t5\t0\t0\t0\t0\t0\t0\n",
            15,
            "start y",
            0,
            0,
        ),
    ];
    for (text, column, field, value, limit) in cases {
        let error = parse_scenario(text).expect_err(text);
        assert_eq!((error.line, error.column), (2, column), "{text:?}: {error}");
        assert_eq!(
            error.kind,
            ParseErrorKind::OutsideMap {
                field,
                value,
                limit
            }
        );
    }
    let inside = parse_scenario("version 1\n0\tm.map\t8\t8\t7\t0\t0\t7\t1\n").expect("inside");
    assert_eq!(inside.queries[0].start, Cell::new(7, 0));
}

fn query(map: &str) -> ScenarioQuery {
    ScenarioQuery {
        bucket: 3,
        map: map.to_owned(),
        map_width: 8,
        map_height: 6,
        start: Cell::new(1, 2),
        goal: Cell::new(7, 5),
        optimal_length: 6.5,
    }
}

/// What `write_scenario` writes, `parse_scenario` reads back: map names may hold spaces.
#[test]
fn written_scenarios_with_spaces_in_map_names_read_back() {
    let scenario = Scenario {
        queries: vec![query("maps/my map.map"), query("a  b"), query("plain.map")],
    };
    let written = write_scenario(&scenario).expect("names with spaces can be written");
    assert!(written.contains("\tmaps/my map.map\t"), "{written}");
    assert_eq!(parse_scenario(&written), Ok(scenario));
}

/// What could not be read back is refused with the query and the reason, not written.
#[test]
fn write_scenario_refuses_what_would_not_read_back() {
    let mut outside = query("m.map");
    outside.goal = Cell::new(8, 0);
    let mut endless = query("m.map");
    endless.optimal_length = f64::INFINITY;
    let cases = [
        (query(""), ScenarioWriteErrorKind::MapName(String::new())),
        (
            query("a\tb"),
            ScenarioWriteErrorKind::MapName("a\tb".into()),
        ),
        (
            query("a\nb"),
            ScenarioWriteErrorKind::MapName("a\nb".into()),
        ),
        (query(" a"), ScenarioWriteErrorKind::MapName(" a".into())),
        (query("a "), ScenarioWriteErrorKind::MapName("a ".into())),
        (
            endless,
            ScenarioWriteErrorKind::OptimalLength(f64::INFINITY),
        ),
        (
            outside,
            ScenarioWriteErrorKind::OutsideMap {
                field: "goal x",
                value: 8,
                limit: 8,
            },
        ),
    ];
    for (refused, kind) in cases {
        let scenario = Scenario {
            queries: vec![query("fine.map"), refused],
        };
        assert_eq!(
            write_scenario(&scenario),
            Err(ScenarioWriteError { query: 1, kind })
        );
    }
}

/// Space-separated rows, as older files write them, still read; tabs and spaces around fields
/// do not shift them.
#[test]
fn space_separated_and_padded_rows_still_read() {
    let expected = Scenario {
        queries: vec![query("m.map"); 3],
    };
    let text = "version 1\n3 m.map 8 6 1 2 7 5 6.5\n3  m.map  8 6 1 2 7 5 6.5\n3 \tm.map\t 8\t6\t1\t2\t7\t5\t6.5\n";
    assert_eq!(parse_scenario(text), Ok(expected));
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
    // A hexagonal map is read by `parse_map_file`, and `parse_map` says so where it is named.
    let hex = "type hex-row-odd\nheight 1\nwidth 1\nmap\n.\n";
    let error = parse_map(hex).expect_err("not octile");
    assert_eq!((error.line, error.column), (1, 6));
    assert_eq!(
        error.kind,
        ParseErrorKind::UnsupportedMapType("hex-row-odd".to_owned())
    );
    assert!(parse_map_file(hex, &Legend::moving_ai()).is_ok());
    // The type is refused before the rows are read: a faulty row does not hide it.
    let faulty = "type hex-row\nheight 2\nwidth 1\nmap\n?\n";
    let error = parse_map(faulty).expect_err("not octile");
    assert_eq!((error.line, error.column), (1, 6));
    assert!(matches!(error.kind, ParseErrorKind::UnsupportedMapType(_)));
    let error = parse_map_file(
        "type hex-diagonal\nheight 1\nwidth 1\nmap\n.\n",
        &Legend::moving_ai(),
    )
    .expect_err("no such layout");
    assert_eq!((error.line, error.column), (1, 6));
}

/// A hexagonal map file reads into the axial grid of its layout, tile by tile, and writes back
/// to the same text; a square one reads as `parse_map` reads it.
#[test]
fn hexagonal_map_files_read_tile_by_tile_and_write_back() {
    let legend = Legend::moving_ai();
    let rows = ["...@.@", "@.....", ".@..@.", "......"];
    for layout in HexLayout::ALL {
        let text = format!(
            "type {layout}\nheight 4\nwidth 6\nmap\n{}\n",
            rows.join("\n")
        );
        let file = parse_map_file(&text, &legend).expect("valid");
        let MapShape::Hex(map) = file.shape else {
            panic!("{layout}: not read as hexagonal");
        };
        assert_eq!((map.layout(), map.tiles()), (layout, (6, 4)));
        for (y, row) in rows.iter().enumerate() {
            for (x, symbol) in row.chars().enumerate() {
                let cell = map.cell_of((x as u32, y as u32)).expect("on the map");
                let expected = legend.get(symbol).expect("in the legend").value();
                assert_eq!(file.grid.value(cell), expected, "{layout} ({x}, {y})");
            }
        }
        let tiles = file
            .grid
            .cells()
            .filter(|&(cell, _)| map.tile_of(cell).is_some());
        assert_eq!(tiles.count(), 24, "{layout}");
        assert_eq!(
            write_map_file(&file, &legend).as_deref(),
            Some(text.as_str())
        );
    }
    let square = "type octile\nheight 1\nwidth 3\nmap\n.@.\n";
    let file = parse_map_file(square, &legend).expect("valid");
    assert_eq!(file.shape, MapShape::Square);
    assert_eq!(file.grid, parse_map(square).expect("valid"));
}

/// A hexagonal map one tile wide and many rows tall would need an axial grid far wider than its
/// file: it is refused before that grid is made, at the header.
#[test]
fn a_tall_thin_hexagonal_map_cannot_claim_a_huge_grid() {
    let rows = 60_000;
    let text = format!(
        "type hex-row-odd\nheight {rows}\nwidth 1\nmap\n{}",
        ".\n".repeat(rows)
    );
    let error = parse_map_file(&text, &Legend::moving_ai()).expect_err("too large");
    assert_eq!((error.line, error.kind), (4, ParseErrorKind::TooLarge));
    // The same map as columns is a narrow strip, and reads.
    let text = text.replacen("hex-row-odd", "hex-column-odd", 1);
    assert!(parse_map_file(&text, &Legend::moving_ai()).is_ok());
    // Small maps many times longer one way than the other read too.
    let row = format!(
        "type hex-column-odd\nheight 1\nwidth 40\nmap\n{}\n",
        ".".repeat(40)
    );
    assert!(parse_map_file(&row, &Legend::moving_ai()).is_ok());
    let tall = format!(
        "type hex-row-odd\nheight 200\nwidth 10\nmap\n{}",
        "..........\n".repeat(200)
    );
    assert!(parse_map_file(&tall, &Legend::moving_ai()).is_ok());
}

/// A header or version value that is not a number is reported where it stands, even when the
/// same letters also occur earlier on the line (in the key word itself).
#[test]
fn header_errors_point_at_the_offending_value() {
    let cases = [
        (parse_map("type octile\nheight he\nwidth 2\nmap\n"), (2, 8)),
        (parse_map("type octile\nheight 2\nwidth dt\nmap\n"), (3, 7)),
    ];
    for (parsed, position) in cases {
        let error = parsed.expect_err("invalid header");
        assert_eq!((error.line, error.column), position, "{error}");
    }
    for (text, position) in [("version v\n", (1, 9)), ("version on\n", (1, 9))] {
        let error = parse_scenario(text).expect_err("unsupported version");
        assert_eq!((error.line, error.column), position, "{error}");
    }
}

/// Indented ASCII rows (as in source code) report unknown characters at their column in the
/// text, not in the row with its indentation removed.
#[test]
fn ascii_errors_count_columns_in_the_text() {
    let text = "..\n   .x\n";
    let error = Grid::from_ascii(text).expect_err("unknown character");
    assert_eq!(error.kind, ParseErrorKind::UnknownTerrain('x'));
    assert_eq!((error.line, error.column), (2, 5), "{error}");
}
