//! The eroded map of one agent kind, by brute force: for every anchor, its whole footprint read
//! cell by cell through the profile. The reference the derived grids are checked against, so it
//! shares no code with the core's clearance or derived grids.

use astar_grid::{Cell, Grid, TerrainProfile};

/// For every anchor of a map (a footprint's top-left cell), the cost an agent pays to stand
/// there: the highest profile cost over its `size` x `size` footprint, or 0 when the footprint
/// leaves the map or covers a cell the profile may not enter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErodedGrid {
    width: u32,
    height: u32,
    /// Row-major; 0 where the footprint does not fit.
    costs: Vec<u8>,
}

impl ErodedGrid {
    /// Erodes `terrain` (terrain values, read through `profile`) for agents of side `size`,
    /// looking at all `size`² cells of every anchor's footprint.
    pub fn new(terrain: &Grid, profile: &TerrainProfile, size: u8) -> Self {
        let (width, height) = (terrain.width(), terrain.height());
        let mut costs = Vec::with_capacity(terrain.len());
        for y in 0..height {
            for x in 0..width {
                costs.push(footprint_cost(terrain, profile, Cell::new(x, y), size));
            }
        }
        Self {
            width,
            height,
            costs,
        }
    }

    /// Map width.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The cost of standing at `anchor`; 0 where the footprint does not fit or `anchor` is off
    /// the map.
    pub fn cost(&self, anchor: Cell) -> u8 {
        if anchor.x >= self.width || anchor.y >= self.height {
            return 0;
        }
        self.costs[self.index(anchor)]
    }

    /// Whether the footprint anchored at `anchor` fits.
    pub fn fits(&self, anchor: Cell) -> bool {
        self.cost(anchor) != 0
    }

    /// Row-major index of an anchor on the map.
    pub fn index(&self, anchor: Cell) -> usize {
        anchor.y as usize * self.width as usize + anchor.x as usize
    }

    /// The costs, row-major.
    pub fn costs(&self) -> &[u8] {
        &self.costs
    }
}

/// The highest profile cost over the footprint of side `size` anchored at `anchor`, or 0 when
/// part of it is off the map or impassable.
fn footprint_cost(terrain: &Grid, profile: &TerrainProfile, anchor: Cell, size: u8) -> u8 {
    let size = u32::from(size);
    let ends_inside =
        |start: u32, extent: u32| u64::from(start) + u64::from(size) <= u64::from(extent);
    if size == 0
        || !ends_inside(anchor.x, terrain.width())
        || !ends_inside(anchor.y, terrain.height())
    {
        return 0;
    }
    let mut highest = 0;
    for dy in 0..size {
        for dx in 0..size {
            let value = terrain.value(Cell::new(anchor.x + dx, anchor.y + dy));
            match profile.cost(value) {
                Some(cost) => highest = highest.max(cost),
                None => return 0,
            }
        }
    }
    highest
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::agent::moving_ai::{SWAMP, TREES, WATER};
    use astar_grid::{Legend, parse_map_with};

    fn terrain(rows: &[&str]) -> Grid {
        let text = format!(
            "type octile\nheight {}\nwidth {}\nmap\n{}\n",
            rows.len(),
            rows[0].len(),
            rows.join("\n")
        );
        parse_map_with(&text, &Legend::moving_ai_kinds()).expect("a valid map")
    }

    /// The costs as rows of characters: `#` for 0, else the cost's last digit.
    fn drawn(eroded: &ErodedGrid) -> Vec<String> {
        eroded
            .costs()
            .chunks(eroded.width() as usize)
            .map(|row| {
                row.iter()
                    .map(|&cost| {
                        if cost == 0 {
                            '#'
                        } else {
                            char::from(b'0' + cost % 10)
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn size_one_is_the_profile_cell_by_cell() {
        let map = terrain(&["..S", "TW@"]);
        let walker = ErodedGrid::new(&map, &TerrainProfile::walker(), 1);
        assert_eq!(drawn(&walker), ["111", "###"]);
        let flyer = ErodedGrid::new(&map, &TerrainProfile::flyer(), 1);
        assert_eq!(drawn(&flyer), ["111", "11#"]);
        let heavy = ErodedGrid::new(&map, &TerrainProfile::heavy(), 1);
        assert_eq!(drawn(&heavy), ["115", "###"]);
        let boat = ErodedGrid::new(&map, &TerrainProfile::boat(), 1);
        assert_eq!(drawn(&boat), ["###", "#1#"]);
        assert_eq!(map.value(Cell::new(2, 0)), SWAMP);
        assert_eq!(map.value(Cell::new(0, 1)), TREES);
        assert_eq!(map.value(Cell::new(1, 1)), WATER);
    }

    #[test]
    fn a_footprint_fits_only_on_the_map_and_on_passable_cells() {
        let map = terrain(&["....", "..T.", "....", "...S"]);
        let two = ErodedGrid::new(&map, &TerrainProfile::heavy(), 2);
        assert_eq!(drawn(&two), ["1###", "1###", "115#", "####"]);
        let three = ErodedGrid::new(&map, &TerrainProfile::flyer(), 3);
        assert_eq!(drawn(&three), ["11##", "11##", "####", "####"]);
        let four = ErodedGrid::new(&map, &TerrainProfile::flyer(), 4);
        assert_eq!(drawn(&four), ["1###", "####", "####", "####"]);
        let five = ErodedGrid::new(&map, &TerrainProfile::flyer(), 5);
        assert!(five.costs().iter().all(|&cost| cost == 0));
        assert!(!two.fits(Cell::new(9, 0)) && !two.fits(Cell::new(0, 9)));
        assert!(two.fits(Cell::new(0, 1)));
    }

    #[test]
    fn the_plain_reading_erodes_through_the_identity() {
        let map = Grid::from_fn(6, 5, |cell| match (cell.x, cell.y) {
            (3, 2) => 0,
            (0, 4) => 7,
            _ => 1,
        });
        let eroded = ErodedGrid::new(&map, &TerrainProfile::identity(), 2);
        assert_eq!(
            drawn(&eroded),
            ["11111#", "11##1#", "11##1#", "71111#", "######"]
        );
    }
}
