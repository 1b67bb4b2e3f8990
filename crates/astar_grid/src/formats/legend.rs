//! Which map characters are walkable, at what cost, and which are blocked.

/// What a map character stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terrain {
    /// Impassable.
    Blocked,
    /// Walkable with this cost multiplier (1 to 255).
    Walkable(u8),
}

impl Terrain {
    /// The grid value: 0 for blocked, else the cost.
    #[must_use]
    pub const fn value(self) -> u8 {
        match self {
            Self::Blocked => 0,
            Self::Walkable(cost) => cost,
        }
    }
}

/// A table from map characters to terrain.
///
/// [`Legend::moving_ai`] is the benchmark's reading: `.` and `G` ground, `S` swamp (walkable,
/// cost 1 so lengths match the benchmark files), `@`, `O`, `T` and `W` (water, which ground
/// units cannot enter) blocked. [`Legend::terrain`] gives swamp a cost of 3, as games often do.
/// [`Legend::moving_ai_kinds`] keeps every character's kind apart, for agents of several kinds.
///
/// ```
/// use astar_grid::{Legend, Terrain};
///
/// let legend = Legend::moving_ai().with('~', Terrain::Walkable(5));
/// assert_eq!(legend.get('~'), Some(Terrain::Walkable(5)));
/// assert_eq!(legend.get('T'), Some(Terrain::Blocked));
/// assert_eq!(legend.get('?'), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legend {
    table: [Option<Terrain>; 128],
}

impl Legend {
    /// A legend that knows no characters.
    #[must_use]
    pub const fn empty() -> Self {
        Self { table: [None; 128] }
    }

    /// The Moving AI benchmark legend.
    #[must_use]
    pub fn moving_ai() -> Self {
        Self::empty()
            .with('.', Terrain::Walkable(1))
            .with('G', Terrain::Walkable(1))
            .with('S', Terrain::Walkable(1))
            .with('@', Terrain::Blocked)
            .with('O', Terrain::Blocked)
            .with('T', Terrain::Blocked)
            .with('W', Terrain::Blocked)
    }

    /// The Moving AI characters as distinct terrain values, for agents of several kinds: `.`
    /// and `G` ground ([`GROUND`](crate::agent::moving_ai::GROUND), 1), `S` swamp, `W` water,
    /// `T` trees, and `@` and `O` out of the map, each its own value from
    /// [`agent::moving_ai`](crate::agent::moving_ai).
    ///
    /// The values are terrain, not costs: a grid read with this legend is searched through a
    /// [`TerrainProfile`](crate::TerrainProfile) by way of an
    /// [`AgentGrid`](crate::AgentGrid). Under [`TerrainProfile::walker`](crate::TerrainProfile::walker)
    /// it searches exactly like the grid [`Legend::moving_ai`] reads (swamp walkable at cost 1,
    /// trees, water and out-of-map cells blocked), while the flyer, heavy and boat presets give
    /// the other characters their meaning. [`write_map`](crate::write_map) with this legend
    /// writes such a grid back so that it reads as the same grid (`G` is written `.` and `O`
    /// as `@`); no character stands for value 0.
    ///
    /// ```
    /// use astar_grid::{Cell, Legend, Terrain, parse_map_with, write_map};
    /// use astar_grid::agent::moving_ai::{TREES, WATER};
    ///
    /// let legend = Legend::moving_ai_kinds();
    /// assert_eq!(legend.get('T'), Some(Terrain::Walkable(TREES)));
    /// let text = "type octile\nheight 1\nwidth 4\nmap\n.TW@\n";
    /// let grid = parse_map_with(text, &legend)?;
    /// assert_eq!(grid.value(Cell::new(2, 0)), WATER);
    /// assert_eq!(write_map(&grid, &legend).as_deref(), Some(text));
    /// # Ok::<(), astar_grid::ParseError>(())
    /// ```
    #[must_use]
    pub fn moving_ai_kinds() -> Self {
        use crate::agent::moving_ai::{GROUND, OUT_OF_MAP, SWAMP, TREES, WATER};
        Self::empty()
            .with('.', Terrain::Walkable(GROUND))
            .with('G', Terrain::Walkable(GROUND))
            .with('S', Terrain::Walkable(SWAMP))
            .with('W', Terrain::Walkable(WATER))
            .with('T', Terrain::Walkable(TREES))
            .with('@', Terrain::Walkable(OUT_OF_MAP))
            .with('O', Terrain::Walkable(OUT_OF_MAP))
    }

    /// The Moving AI legend with swamp (`S`) costing 3.
    #[must_use]
    pub fn terrain() -> Self {
        Self::moving_ai().with('S', Terrain::Walkable(3))
    }

    /// This legend with `character` (ASCII) standing for `terrain`; non-ASCII characters are
    /// ignored.
    #[must_use]
    pub fn with(mut self, character: char, terrain: Terrain) -> Self {
        if let Some(slot) = self.table.get_mut(character as usize) {
            *slot = Some(terrain);
        }
        self
    }

    /// What `character` stands for, if the legend knows it.
    #[must_use]
    pub fn get(&self, character: char) -> Option<Terrain> {
        self.table.get(character as usize).copied().flatten()
    }

    /// The first character (in ASCII order, preferring `.` and `@`) that stands for `value`.
    #[must_use]
    pub fn character_for(&self, value: u8) -> Option<char> {
        let wanted = if value == 0 {
            Terrain::Blocked
        } else {
            Terrain::Walkable(value)
        };
        ['.', '@']
            .into_iter()
            .chain((0u8..128).map(char::from))
            .find(|&character| self.get(character) == Some(wanted))
    }
}

impl Default for Legend {
    fn default() -> Self {
        Self::moving_ai()
    }
}
