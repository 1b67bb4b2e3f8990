//! The terrain values that [`Legend::moving_ai_kinds`](crate::Legend::moving_ai_kinds) gives the
//! Moving AI map characters, so that profiles can tell trees, swamp, water and out-of-map cells
//! apart.
//!
//! Plain ground is value 1, as in every other grid; the four other kinds take the four highest
//! values, leaving 2 to 251 free for ordinary cost multipliers. These values are terrain, not
//! costs: read such a grid through a [`TerrainProfile`](crate::TerrainProfile) (the
//! [`walker`](crate::TerrainProfile::walker), [`flyer`](crate::TerrainProfile::flyer),
//! [`heavy`](crate::TerrainProfile::heavy) or [`boat`](crate::TerrainProfile::boat) preset, or
//! one of your own), never searched directly.
//!
//! ```
//! use astar_grid::{Cell, Legend, parse_map_with};
//! use astar_grid::agent::moving_ai::{GROUND, OUT_OF_MAP, SWAMP, TREES, WATER};
//!
//! let grid = parse_map_with("type octile\nheight 1\nwidth 6\nmap\n.GSTW@\n", &Legend::moving_ai_kinds())?;
//! let values: Vec<u8> = (0..6).map(|x| grid.value(Cell::new(x, 0))).collect();
//! assert_eq!(values, [GROUND, GROUND, SWAMP, TREES, WATER, OUT_OF_MAP]);
//! # Ok::<(), astar_grid::ParseError>(())
//! ```

/// Passable ground, `.` and `G`: value 1, plain ground in any grid.
pub const GROUND: u8 = 1;
/// Swamp, `S`: walkable for ground units at cost 1 in the benchmark's reading.
pub const SWAMP: u8 = 252;
/// Water, `W`: ground units cannot enter it; boats keep to it.
pub const WATER: u8 = 253;
/// Trees, `T`: impassable on foot, passable for flyers.
pub const TREES: u8 = 254;
/// Out of the map, `@` and `O`: impassable for every preset.
pub const OUT_OF_MAP: u8 = 255;
