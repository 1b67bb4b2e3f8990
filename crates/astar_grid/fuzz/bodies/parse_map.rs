//! Body of the `parse_map` fuzz target, run on stable by `tests/fuzz.rs` too: any bytes given
//! to the map readers (`parse_map`, `parse_map_with`, `Grid::from_ascii`) give a grid that
//! writes and reads back the same, or an error that points inside the text. Nothing panics,
//! and no grid read holds more than a small multiple of the text's bytes.

use crate::text_checks::{character_at, check_error_position, text_of};
use astar_grid::{Grid, Legend, ParseError, ParseErrorKind, parse_map, parse_map_with, write_map};

/// Bytes of grid a byte of map text may make: a row of `w` cells takes at least `w` bytes and a
/// grid's bordered buffer is at most 9 bytes a cell.
const GRID_BYTES_PER_TEXT_BYTE: usize = 9;

/// Feeds `data` to every map reader; panics when a reader breaks a rule.
pub fn run(data: &[u8]) {
    run_text(&text_of(data));
}

/// [`run`] for input that is already text.
pub fn run_text(text: &str) {
    for legend in [Legend::moving_ai(), Legend::terrain()] {
        match parse_map_with(text, &legend) {
            Err(error) => check_parse_error(text, &error),
            Ok(grid) => {
                check_grid_size(text, &grid);
                let written = write_map(&grid, &legend).expect("every value read has a character");
                assert_eq!(parse_map_with(&written, &legend).as_ref(), Ok(&grid));
            }
        }
    }
    assert_eq!(parse_map(text), parse_map_with(text, &Legend::moving_ai()));
    match Grid::from_ascii(text) {
        Err(error) => check_parse_error(text, &error),
        Ok(grid) => {
            check_grid_size(text, &grid);
            assert_eq!(Grid::from_ascii(&grid.to_ascii()).as_ref(), Ok(&grid));
        }
    }
}

/// A grid read from `text` holds no more than a small multiple of its bytes.
fn check_grid_size(text: &str, grid: &Grid) {
    assert!(
        grid.memory_bytes() <= GRID_BYTES_PER_TEXT_BYTE * text.len(),
        "a {}x{} grid of {} bytes from {} bytes of text",
        grid.width(),
        grid.height(),
        grid.memory_bytes(),
        text.len()
    );
}

/// A reader's error points inside `text`, and an unknown terrain error at that character.
fn check_parse_error(text: &str, error: &ParseError) {
    check_error_position(text, error);
    if let ParseErrorKind::UnknownTerrain(character) = error.kind {
        assert_eq!(character_at(text, error), Some(character), "{error}");
    }
}
