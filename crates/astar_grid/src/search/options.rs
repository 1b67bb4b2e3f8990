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
/// cutting, exact octile costs, the octile heuristic, no weight, no limits, no partial or
/// closest-reachable paths, no trace.
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
    /// When a limit stops the search (the expansion limit, or a window that holds no path to the
    /// goal), return the path to the expanded cell closest to the goal, "closest" measured and
    /// ties broken as for [`SearchOptions::closest_reachable`]. Before its first expansion that
    /// cell is the start. The result keeps its [`SearchStatus::LimitReached`](crate::SearchStatus::LimitReached)
    /// status; [`SearchResult::partial`](crate::SearchResult::partial) reads the path.
    pub partial_path: bool,
    /// When the goal cannot be reached (no path leads to it, or the goal cell is blocked),
    /// return the path to the reachable cell closest to the goal instead of no path, and search
    /// from a blocked goal's neighbourhood instead of refusing it with
    /// [`SearchError::GoalBlocked`](crate::SearchError::GoalBlocked).
    ///
    /// The result is marked by its status, which is never
    /// [`SearchStatus::Found`](crate::SearchStatus::Found) for such a path:
    /// [`SearchStatus::NoPath`](crate::SearchStatus::NoPath), or
    /// [`LimitReached(Limit::Window)`](crate::Limit::Window) when a window held the search in
    /// (the path then ends at the closest cell inside the window).
    /// [`SearchResult::found`](crate::SearchResult::found) is the path that reaches the goal,
    /// [`SearchResult::partial`](crate::SearchResult::partial) the one that ends short of it.
    /// A goal that can be reached is found as without the option, at the same cost.
    ///
    /// **Closest** means the smallest distance in cells from the goal on open ground, whatever
    /// the terrain and cost model: the octile distance (a straight step 1, a diagonal
    /// `sqrt(2)`) with eight neighbours, the Manhattan distance with four. Among cells at the
    /// same distance the one with the lowest path cost from the start wins (costs compared as
    /// computed, so two routes of equal length whose sums differ by rounding are not a tie),
    /// then the one with the smaller `(y, x)`. The start is a candidate: when nothing reachable
    /// is closer, the path is the start alone.
    ///
    /// **Optimality.** When the search is optimal ([`SearchOptions::is_optimal`]; every
    /// admissible heuristic is also consistent), the path is a cheapest path to the chosen
    /// cell. Otherwise (a weight, or an inadmissible heuristic) the chosen cell is still at the
    /// smallest distance, since an unreachable goal makes the search expand every cell it can
    /// reach, but the path to it, and the tie between cells at that distance, use the costs the
    /// search found, which may exceed the cheapest.
    ///
    /// **Cost.** Off, the option costs nothing. On, each expansion also measures its distance
    /// from the goal; A* and Dijkstra visit every reachable cell anyway before they report an
    /// unreachable goal, so nothing else changes. An expansion limit still stops the search,
    /// with a path only under [`SearchOptions::partial_path`]. Jump point search
    /// ([`JpsOptions::closest_reachable`](crate::JpsOptions::closest_reachable)) and flow fields
    /// do not visit every cell and fall back to a flood of the start's region instead.
    ///
    /// It is an option of its own, not part of [`SearchOptions::partial_path`], because it
    /// promises more (the closest of all reachable cells, not of those a limit left expanded),
    /// may cost more (the floods above), and turns a refused request (a blocked goal) into a
    /// result: searches that ask for partial paths keep their answers.
    ///
    /// An unreachable goal:
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, SearchOptions, SearchStatus, Searcher};
    ///
    /// let grid = Grid::from_ascii(
    ///     "...#..
    ///      ...#..
    ///      ...#..",
    /// )?;
    /// let (start, goal) = (Cell::new(0, 0), Cell::new(5, 1));
    /// let options = SearchOptions::default().with_closest_reachable(true);
    /// let result = Searcher::new().find_path(&grid, start, goal, &options)?;
    /// assert_eq!(result.status, SearchStatus::NoPath);
    /// assert!(result.found().is_none());
    /// let path = result.partial().expect("the closest reachable cell");
    /// // The wall's near side, level with the goal.
    /// assert_eq!(path.end(), Some(Cell::new(2, 1)));
    /// assert_eq!(path.cost, 1.0 + 2f64.sqrt());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A blocked goal, refused without the option:
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, SearchError, SearchOptions, SearchStatus, Searcher};
    ///
    /// let grid = Grid::from_ascii(
    ///     ".....
    ///      .###.
    ///      .###.",
    /// )?;
    /// let (start, goal) = (Cell::new(0, 2), Cell::new(2, 2));
    /// let mut searcher = Searcher::new();
    /// let refused = searcher.find_path(&grid, start, goal, &SearchOptions::default());
    /// assert_eq!(refused, Err(SearchError::GoalBlocked(goal)));
    ///
    /// let options = SearchOptions::default().with_closest_reachable(true);
    /// let result = searcher.find_path(&grid, start, goal, &options)?;
    /// assert_eq!(result.status, SearchStatus::NoPath);
    /// let path = result.partial().expect("the closest reachable cell");
    /// // (0, 2), (2, 0) and (4, 2) are all two cells away; the start costs nothing to reach.
    /// assert_eq!(path.cells, [start]);
    /// assert_eq!(path.cost, 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub closest_reachable: bool,
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

    /// Asks for the path to the reachable cell closest to the goal when the goal cannot be
    /// reached or is blocked (see [`SearchOptions::closest_reachable`]).
    #[must_use]
    pub const fn with_closest_reachable(mut self, closest: bool) -> Self {
        self.closest_reachable = closest;
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
