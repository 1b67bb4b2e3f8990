//! What a search is asked to do: movement, costs, heuristic, weighting, limits and tracing.

use crate::{Cell, CostModel, Heuristic, Movement, Neighborhood, Weighting};

/// A rectangle of cells (inclusive bounds) outside which a search does not look.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchWindow {
    /// Top-left cell.
    pub min: Cell,
    /// Bottom-right cell, inclusive.
    pub max: Cell,
}

impl SearchWindow {
    /// The window from `min` to `max`, both inclusive.
    #[must_use]
    pub const fn new(min: Cell, max: Cell) -> Self {
        Self { min, max }
    }

    /// A `width` x `height` window centred on `center` (for example the 49x33 window around an
    /// agent that many games use); it may extend past the grid, which clips it.
    #[must_use]
    pub fn centered(center: Cell, width: u32, height: u32) -> Self {
        let half_w = width.saturating_sub(1) / 2;
        let half_h = height.saturating_sub(1) / 2;
        let min = Cell::new(
            center.x.saturating_sub(half_w),
            center.y.saturating_sub(half_h),
        );
        let max = Cell::new(
            min.x.saturating_add(width.saturating_sub(1)),
            min.y.saturating_add(height.saturating_sub(1)),
        );
        Self { min, max }
    }

    /// Whether `cell` lies inside the window.
    #[must_use]
    pub const fn contains(&self, cell: Cell) -> bool {
        cell.x >= self.min.x && cell.x <= self.max.x && cell.y >= self.min.y && cell.y <= self.max.y
    }
}

/// Options of one search. The defaults are the Moving AI rules: eight neighbours, no corner
/// cutting, exact octile costs, the octile heuristic, no weight, no limits, no trace.
///
/// ```
/// use astar_grid::{CornerRule, CostModel, Heuristic, Movement, SearchOptions};
///
/// let options = SearchOptions::default()
///     .with_movement(Movement::eight(CornerRule::One))
///     .with_cost(CostModel::INTEGER_10_14)
///     .with_weight(1.5)
///     .with_max_expansions(10_000);
/// assert_eq!(options.resolved_heuristic(), Heuristic::Octile);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchOptions {
    /// Neighbourhood and corner rule.
    pub movement: Movement,
    /// Step costs.
    pub cost: CostModel,
    /// The heuristic, or `None` for the neighbourhood's default
    /// ([`Heuristic::default_for`]).
    pub heuristic: Option<Heuristic>,
    /// Static or dynamic weight on the heuristic.
    pub weighting: Weighting,
    /// Stop after expanding this many cells.
    ///
    /// The limit is reported ([`Limit::Expansions`](crate::Limit::Expansions)) only when a cell
    /// is left to expand once it is reached: a search that runs out of cells as it reaches the
    /// limit reports [`SearchStatus::NoPath`](crate::SearchStatus::NoPath), one whose last
    /// allowed expansion is the goal reports it found, and a search whose start is its goal is
    /// found without expanding any cell, even with a limit of 0. A limit at or above the
    /// expansions a search needs changes nothing. Jump point search follows the same rule.
    pub max_expansions: Option<u32>,
    /// Only look at cells inside this rectangle.
    pub window: Option<SearchWindow>,
    /// When a limit stops the search, return the path to the expanded cell closest to the goal.
    pub partial_path: bool,
    /// Record a [`SearchTrace`](crate::SearchTrace) for debug views.
    pub trace: bool,
}

impl SearchOptions {
    /// Sets the movement rule.
    #[must_use]
    pub const fn with_movement(mut self, movement: Movement) -> Self {
        self.movement = movement;
        self
    }

    /// Sets four- or eight-connected movement, keeping the corner rule.
    #[must_use]
    pub const fn with_neighborhood(mut self, neighborhood: Neighborhood) -> Self {
        self.movement.neighborhood = neighborhood;
        self
    }

    /// Sets the cost model.
    #[must_use]
    pub const fn with_cost(mut self, cost: CostModel) -> Self {
        self.cost = cost;
        self
    }

    /// Sets the heuristic.
    #[must_use]
    pub const fn with_heuristic(mut self, heuristic: Heuristic) -> Self {
        self.heuristic = Some(heuristic);
        self
    }

    /// Sets a static weight (weighted A*; 1 is optimal).
    #[must_use]
    pub const fn with_weight(mut self, weight: f64) -> Self {
        self.weighting = Weighting::Static(weight);
        self
    }

    /// Sets dynamic weighting with the given epsilon.
    #[must_use]
    pub const fn with_dynamic_weight(mut self, epsilon: f64) -> Self {
        self.weighting = Weighting::Dynamic { epsilon };
        self
    }

    /// Limits the number of expansions.
    #[must_use]
    pub const fn with_max_expansions(mut self, max: u32) -> Self {
        self.max_expansions = Some(max);
        self
    }

    /// Restricts the search to a window.
    #[must_use]
    pub const fn with_window(mut self, window: SearchWindow) -> Self {
        self.window = Some(window);
        self
    }

    /// Asks for the best partial path when a limit stops the search.
    #[must_use]
    pub const fn with_partial_path(mut self, partial: bool) -> Self {
        self.partial_path = partial;
        self
    }

    /// Records a trace of the search.
    #[must_use]
    pub const fn with_trace(mut self, trace: bool) -> Self {
        self.trace = trace;
        self
    }

    /// Turns the search into Dijkstra's algorithm (the zero heuristic).
    #[must_use]
    pub const fn dijkstra(self) -> Self {
        self.with_heuristic(Heuristic::Zero)
    }

    /// The heuristic the search will use.
    #[must_use]
    pub const fn resolved_heuristic(&self) -> Heuristic {
        match self.heuristic {
            Some(heuristic) => heuristic,
            None => Heuristic::default_for(self.movement.neighborhood),
        }
    }

    /// Whether these options guarantee an optimal path when one is found: an admissible
    /// heuristic ([`Heuristic::is_admissible`], which every heuristic is for every cost model
    /// except Manhattan under eight neighbours with a diagonal cheaper than two straight
    /// steps), no weight, and no window.
    #[must_use]
    pub fn is_optimal(&self) -> bool {
        self.weighting.is_unit()
            && self.window.is_none()
            && self
                .resolved_heuristic()
                .is_admissible(self.movement.neighborhood, self.cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centered_window_has_the_requested_size() {
        let window = SearchWindow::centered(Cell::new(30, 30), 49, 33);
        assert_eq!(window.min, Cell::new(6, 14));
        assert_eq!(window.max, Cell::new(54, 46));
        assert!(window.contains(Cell::new(30, 30)));
        let clipped = SearchWindow::centered(Cell::new(2, 2), 49, 33);
        assert_eq!(clipped.min, Cell::new(0, 0));
        assert!(!clipped.contains(Cell::new(49, 0)));
    }

    #[test]
    fn optimality_depends_on_weight_heuristic_and_window() {
        assert!(SearchOptions::default().is_optimal());
        assert!(!SearchOptions::default().with_weight(2.0).is_optimal());
        assert!(
            !SearchOptions::default()
                .with_heuristic(Heuristic::Manhattan)
                .is_optimal()
        );
        assert!(
            SearchOptions::default()
                .with_neighborhood(Neighborhood::Four)
                .with_heuristic(Heuristic::Manhattan)
                .is_optimal()
        );
    }
}
