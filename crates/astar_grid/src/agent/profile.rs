//! Terrain profiles: what each terrain value of a grid costs one kind of agent, or whether that
//! kind may enter it at all.

use super::moving_ai;
use core::fmt;

/// The cost multiplier the [`TerrainProfile::heavy`] preset gives swamp.
pub const HEAVY_SWAMP_COST: u8 = 5;

/// A table from a cell's terrain value (its [`Grid`](crate::Grid) byte) to what stepping onto it
/// costs one kind of agent: a multiplier from 1 to 255, or impassable.
///
/// Entries follow the grid's own convention: a cost of 0 is impassable, 1 to 255 is the
/// multiplier. [`TerrainProfile::identity`] (the default) reads every grid as searches do
/// today: value 0 is impassable and value `v` costs `v`. The other presets read grids loaded
/// with [`Legend::moving_ai_kinds`](crate::Legend::moving_ai_kinds), whose terrain values are
/// the [`moving_ai`] constants: they leave every other value as the identity does (except
/// [`TerrainProfile::boat`], which only enters water), so a grid that mixes those values with
/// plain cost multipliers keeps its costs.
///
/// A profile is 256 bytes, `Copy`, and hashes and compares by its table, so it can key a cache
/// of derived grids. A profile with no passable value is accepted here but refused by
/// [`AgentGrid::new`](crate::AgentGrid::new).
///
/// ```
/// use astar_grid::TerrainProfile;
/// use astar_grid::agent::moving_ai::{SWAMP, TREES, WATER};
///
/// let walker = TerrainProfile::walker();
/// assert_eq!(walker.cost(SWAMP), Some(1));
/// assert_eq!(walker.cost(TREES), None);
/// assert_eq!(walker.cost(7), Some(7)); // a plain cost multiplier keeps its cost
///
/// let boat = TerrainProfile::boat();
/// assert_eq!((boat.cost(WATER), boat.cost(1)), (Some(1), None));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TerrainProfile {
    /// Cost multiplier of each terrain value; 0 is impassable.
    costs: [u8; 256],
}

impl TerrainProfile {
    /// The profile every search uses without one: value 0 is impassable, value `v` costs `v`.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// let identity = TerrainProfile::identity();
    /// assert_eq!((identity.cost(0), identity.cost(1), identity.cost(200)), (None, Some(1), Some(200)));
    /// assert!(identity.is_identity());
    /// assert_eq!(identity, TerrainProfile::default());
    /// ```
    #[must_use]
    pub const fn identity() -> Self {
        let mut costs = [0u8; 256];
        let mut value = 0;
        while value < costs.len() {
            costs[value] = value as u8;
            value += 1;
        }
        Self { costs }
    }

    /// A profile under which nothing is passable: the starting point for an agent that may only
    /// enter a few terrains, opened with [`TerrainProfile::with_cost`].
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// let lava_walker = TerrainProfile::impassable().with_cost(9, 1);
    /// assert_eq!(lava_walker.passable_values().collect::<Vec<_>>(), [9]);
    /// assert!(!TerrainProfile::impassable().has_passable_terrain());
    /// ```
    #[must_use]
    pub const fn impassable() -> Self {
        Self { costs: [0; 256] }
    }

    /// A profile from a function of the terrain value: `cost(value)` is the multiplier, 0 for
    /// impassable.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// // Every terrain twice as dear, at most 255.
    /// let tired = TerrainProfile::from_fn(|value| value.saturating_mul(2));
    /// assert_eq!((tired.cost(0), tired.cost(3), tired.cost(200)), (None, Some(6), Some(255)));
    /// ```
    #[must_use]
    pub fn from_fn(mut cost: impl FnMut(u8) -> u8) -> Self {
        let mut costs = [0u8; 256];
        for (value, slot) in (0..=u8::MAX).zip(&mut costs) {
            *slot = cost(value);
        }
        Self { costs }
    }

    /// Ground units on a grid read with
    /// [`Legend::moving_ai_kinds`](crate::Legend::moving_ai_kinds): swamp costs 1, trees, water
    /// and out-of-map cells are impassable, every other value as the identity. The grid then
    /// searches exactly like one read with [`Legend::moving_ai`](crate::Legend::moving_ai).
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    /// use astar_grid::agent::moving_ai::{GROUND, OUT_OF_MAP, SWAMP, WATER};
    ///
    /// let walker = TerrainProfile::walker();
    /// assert_eq!((walker.cost(GROUND), walker.cost(SWAMP)), (Some(1), Some(1)));
    /// assert_eq!((walker.cost(WATER), walker.cost(OUT_OF_MAP)), (None, None));
    /// ```
    #[must_use]
    pub const fn walker() -> Self {
        Self::identity()
            .with_cost(moving_ai::SWAMP, 1)
            .with_cost(moving_ai::WATER, 0)
            .with_cost(moving_ai::TREES, 0)
            .with_cost(moving_ai::OUT_OF_MAP, 0)
    }

    /// Flying units: trees, water and swamp cost 1, out-of-map cells (`@`, `O`) and value 0
    /// stay impassable, every other value as the identity.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    /// use astar_grid::agent::moving_ai::{OUT_OF_MAP, TREES, WATER};
    ///
    /// let flyer = TerrainProfile::flyer();
    /// assert_eq!((flyer.cost(TREES), flyer.cost(WATER)), (Some(1), Some(1)));
    /// assert_eq!((flyer.cost(OUT_OF_MAP), flyer.cost(0)), (None, None));
    /// ```
    #[must_use]
    pub const fn flyer() -> Self {
        Self::identity()
            .with_cost(moving_ai::SWAMP, 1)
            .with_cost(moving_ai::WATER, 1)
            .with_cost(moving_ai::TREES, 1)
            .with_cost(moving_ai::OUT_OF_MAP, 0)
    }

    /// Heavy ground units: the walker, with swamp costing [`HEAVY_SWAMP_COST`].
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    /// use astar_grid::agent::{HEAVY_SWAMP_COST, moving_ai::{SWAMP, TREES}};
    ///
    /// let heavy = TerrainProfile::heavy();
    /// assert_eq!(heavy.cost(SWAMP), Some(HEAVY_SWAMP_COST));
    /// assert_eq!(heavy.cost(TREES), None);
    /// ```
    #[must_use]
    pub const fn heavy() -> Self {
        Self::walker().with_cost(moving_ai::SWAMP, HEAVY_SWAMP_COST)
    }

    /// Boats: water costs 1 and nothing else is passable.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    /// use astar_grid::agent::moving_ai::{GROUND, WATER};
    ///
    /// let boat = TerrainProfile::boat();
    /// assert_eq!((boat.cost(WATER), boat.cost(GROUND)), (Some(1), None));
    /// assert_eq!(boat.passable_values().count(), 1);
    /// ```
    #[must_use]
    pub const fn boat() -> Self {
        Self::impassable().with_cost(moving_ai::WATER, 1)
    }

    /// This profile with terrain `value` costing `cost`; a cost of 0 makes it impassable.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// let profile = TerrainProfile::identity().with_cost(3, 10).with_cost(4, 0);
    /// assert_eq!((profile.cost(3), profile.cost(4), profile.cost(5)), (Some(10), None, Some(5)));
    /// ```
    #[must_use]
    pub const fn with_cost(mut self, value: u8, cost: u8) -> Self {
        self.costs[value as usize] = cost;
        self
    }

    /// This profile with terrain `value` impassable: `with_cost(value, 0)`.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// let profile = TerrainProfile::identity().with_impassable(2);
    /// assert_eq!((profile.cost(1), profile.cost(2)), (Some(1), None));
    /// ```
    #[must_use]
    pub const fn with_impassable(self, value: u8) -> Self {
        self.with_cost(value, 0)
    }

    /// What stepping onto terrain `value` costs: the multiplier, or `None` when impassable.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// assert_eq!(TerrainProfile::identity().cost(4), Some(4));
    /// assert_eq!(TerrainProfile::identity().cost(0), None);
    /// ```
    #[must_use]
    pub const fn cost(&self, value: u8) -> Option<u8> {
        match self.costs[value as usize] {
            0 => None,
            cost => Some(cost),
        }
    }

    /// The grid byte terrain `value` becomes for a one-cell agent: its cost, 0 when impassable.
    #[must_use]
    pub(crate) const fn raw_cost(&self, value: u8) -> u8 {
        self.costs[value as usize]
    }

    /// Whether agents of this profile may enter terrain `value`.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    /// use astar_grid::agent::moving_ai::WATER;
    ///
    /// assert!(TerrainProfile::boat().is_passable(WATER));
    /// assert!(!TerrainProfile::walker().is_passable(WATER));
    /// ```
    #[must_use]
    pub const fn is_passable(&self, value: u8) -> bool {
        self.costs[value as usize] != 0
    }

    /// Whether any terrain value is passable; [`AgentGrid::new`](crate::AgentGrid::new) refuses a
    /// profile without one.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// assert!(TerrainProfile::boat().has_passable_terrain());
    /// assert!(!TerrainProfile::impassable().has_passable_terrain());
    /// ```
    #[must_use]
    pub fn has_passable_terrain(&self) -> bool {
        self.costs.iter().any(|&cost| cost != 0)
    }

    /// The passable terrain values, in increasing order.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// let profile = TerrainProfile::impassable().with_cost(8, 2).with_cost(3, 1);
    /// assert_eq!(profile.passable_values().collect::<Vec<_>>(), [3, 8]);
    /// ```
    pub fn passable_values(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=u8::MAX).filter(|&value| self.is_passable(value))
    }

    /// Whether this is [`TerrainProfile::identity`], under which a one-cell agent needs no
    /// derived grid: the terrain grid already is its grid.
    ///
    /// ```
    /// use astar_grid::TerrainProfile;
    ///
    /// assert!(TerrainProfile::identity().is_identity());
    /// assert!(!TerrainProfile::walker().is_identity());
    /// ```
    #[must_use]
    pub fn is_identity(&self) -> bool {
        *self == Self::identity()
    }
}

impl Default for TerrainProfile {
    fn default() -> Self {
        Self::identity()
    }
}

impl fmt::Debug for TerrainProfile {
    /// Lists the entries that differ from the identity, so that presets read at a glance.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let identity = Self::identity();
        let mut map = f.debug_map();
        for value in 0..=u8::MAX {
            if self.costs[usize::from(value)] != identity.costs[usize::from(value)] {
                map.entry(&value, &self.cost(value));
            }
        }
        map.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_differ_from_the_identity_only_on_the_moving_ai_values() {
        let kinds = [
            moving_ai::SWAMP,
            moving_ai::WATER,
            moving_ai::TREES,
            moving_ai::OUT_OF_MAP,
        ];
        let identity = TerrainProfile::identity();
        for preset in [
            TerrainProfile::walker(),
            TerrainProfile::flyer(),
            TerrainProfile::heavy(),
        ] {
            for value in 0..=u8::MAX {
                if !kinds.contains(&value) {
                    assert_eq!(preset.cost(value), identity.cost(value), "{preset:?}");
                }
            }
        }
        assert_eq!(
            format!("{:?}", TerrainProfile::heavy()),
            format!(
                "{{{}: Some({HEAVY_SWAMP_COST}), {}: None, {}: None, {}: None}}",
                moving_ai::SWAMP,
                moving_ai::WATER,
                moving_ai::TREES,
                moving_ai::OUT_OF_MAP
            )
        );
    }
}
