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
