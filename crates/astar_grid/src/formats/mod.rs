//! Reading and writing grids and queries: Moving AI `.map` and `.scen` files and a plain ASCII
//! form for tests.

pub(crate) mod ascii;
mod error;
mod legend;
mod map;
mod scenario;

pub use error::{ParseError, ParseErrorKind, ScenarioWriteError, ScenarioWriteErrorKind};
pub use legend::{Legend, Terrain};
pub use map::{
    MapFile, MapShape, parse_map, parse_map_file, parse_map_with, write_map, write_map_file,
};
pub use scenario::{Scenario, ScenarioQuery, parse_scenario, write_scenario};
