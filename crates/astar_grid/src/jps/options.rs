//! What a jump point search is asked to do, and which general search options it can honour.

use crate::{CornerRule, CostModel, Heuristic, Neighborhood, SearchError, SearchOptions};

/// Options of [`Searcher::find_path_jps`](crate::Searcher::find_path_jps).
///
/// Jump point search always moves in eight directions without cutting corners
/// ([`CornerRule::Both`]) and always uses the octile heuristic, so those are not options.
///
/// However they are made ([`JpsOptions::default`] or [`JpsOptions::try_from`]), the options
/// ask for full paths, every cell as A* returns it; waypoints are asked for with
/// [`JpsOptions::with_full_path`]`(false)`.
///
/// ```
/// use astar_grid::{JpsOptions, SearchOptions, Movement, CornerRule};
///
/// assert!(JpsOptions::default().full_path);
/// let waypoints = JpsOptions::default().with_full_path(false);
/// assert!(!waypoints.full_path);
/// // General search options convert when jump point search can honour them.
/// assert_eq!(JpsOptions::try_from(&SearchOptions::default()), Ok(JpsOptions::default()));
/// let cutting = SearchOptions::default().with_movement(Movement::eight(CornerRule::One));
/// assert!(JpsOptions::try_from(&cutting).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JpsOptions {
    /// Step costs. The diagonal step must cost at least the straight step and at most twice it
    /// (true of [`CostModel::Octile`] and of `10`/`14`): with a cheaper diagonal, the paths
    /// jump point search prunes can be the only cheapest ones, so such models are refused
    /// ([`SearchError::Unsupported`]).
    pub cost: CostModel,
    /// Return every cell of the path (the default) instead of its waypoints (start, goal, and
    /// the jump points and turns between them, each waypoint on a straight or diagonal line
    /// from the previous one).
    pub full_path: bool,
    /// Stop after expanding this many jump points, under the rule of
    /// [`SearchOptions::max_expansions`]: the limit is reported only when a jump point is left
    /// to expand, and a search whose start is its goal is found without expanding any.
    pub max_expansions: Option<u32>,
    /// When the goal cannot be reached (no path, or the goal cell is blocked), return the path
    /// to the reachable cell closest to the goal, as
    /// [`SearchOptions::closest_reachable`] defines it, with status
    /// [`SearchStatus::NoPath`](crate::SearchStatus::NoPath), instead of no path (or of
    /// [`SearchError::GoalBlocked`]).
    ///
    /// Jump point search expands only jump points, so it cannot tell which of the cells
    /// between them lies closest: once it has found no path (and straight away for a blocked
    /// goal) it floods the start's region with Dijkstra's algorithm, cell by cell as A* would,
    /// and returns the cheapest path to the closest cell, as waypoints (the cells where it
    /// turns) when [`JpsOptions::full_path`] is off. [`SearchStats`](crate::SearchStats) add
    /// the flood's settled cells to the expanded jump points. The flood's memory (9 bytes per
    /// cell and its queue) is kept in the [`Searcher`](crate::Searcher) for the next one. An
    /// expansion limit still stops the search first, without a path. A reachable goal is found
    /// as without the option.
    pub closest_reachable: bool,
}

impl Default for JpsOptions {
    /// Octile costs, full paths, no limit, no closest-reachable paths.
    fn default() -> Self {
        Self {
            cost: CostModel::Octile,
            full_path: true,
            max_expansions: None,
            closest_reachable: false,
        }
    }
}

impl JpsOptions {
    /// Sets the cost model.
    #[must_use]
    pub const fn with_cost(mut self, cost: CostModel) -> Self {
        self.cost = cost;
        self
    }

    /// Asks for the full cell-by-cell path (`true`, the default) or for the waypoints
    /// (`false`).
    #[must_use]
    pub const fn with_full_path(mut self, full_path: bool) -> Self {
        self.full_path = full_path;
        self
    }

    /// Limits the number of expanded jump points.
    #[must_use]
    pub const fn with_max_expansions(mut self, max: u32) -> Self {
        self.max_expansions = Some(max);
        self
    }

    /// Asks for the path to the reachable cell closest to the goal when the goal cannot be
    /// reached or is blocked (see [`JpsOptions::closest_reachable`]).
    #[must_use]
    pub const fn with_closest_reachable(mut self, closest: bool) -> Self {
        self.closest_reachable = closest;
        self
    }

    /// Checks that the cost model suits jump point search.
    pub(crate) fn validate(&self) -> Result<(), SearchError> {
        if !self.cost.is_valid() {
            return Err(SearchError::InvalidCostModel);
        }
        let (straight, diagonal) = (self.cost.straight(), self.cost.diagonal());
        if diagonal < straight || diagonal > 2.0 * straight {
            return Err(SearchError::Unsupported(
                "jump point search needs a diagonal step costing between one and two straight steps",
            ));
        }
        Ok(())
    }
}

impl TryFrom<&SearchOptions> for JpsOptions {
    type Error = SearchError;

    /// The jump point search equivalent of `options` (asking for full paths, as A* returns
    /// them), or [`SearchError::Unsupported`] when jump point search cannot give the same
    /// result: another movement rule, a heuristic other than octile, a weight, a window, a
    /// partial path or a trace. [`SearchOptions::closest_reachable`] carries over. Callers that want a path anyway fall back to
    /// [`Searcher::find_path`](crate::Searcher::find_path) explicitly.
    fn try_from(options: &SearchOptions) -> Result<Self, Self::Error> {
        if options.movement.neighborhood != Neighborhood::Eight
            || options.movement.corners != CornerRule::Both
        {
            return Err(SearchError::Unsupported(
                "jump point search needs eight-connected movement without corner cutting",
            ));
        }
        if options.resolved_heuristic() != Heuristic::Octile {
            return Err(SearchError::Unsupported(
                "jump point search uses the octile heuristic only",
            ));
        }
        if !options.weighting.is_unit() {
            return Err(SearchError::Unsupported(
                "jump point search does not support weighted heuristics",
            ));
        }
        if options.window.is_some() || options.partial_path || options.trace {
            return Err(SearchError::Unsupported(
                "jump point search does not support windows, partial paths or traces",
            ));
        }
        let jps = Self {
            cost: options.cost,
            full_path: true,
            max_expansions: options.max_expansions,
            closest_reachable: options.closest_reachable,
        };
        jps.validate()?;
        Ok(jps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Movement, SearchWindow};

    #[test]
    fn incompatible_search_options_are_refused() {
        let refused = [
            SearchOptions::default().with_movement(Movement::FOUR),
            SearchOptions::default().with_movement(Movement::eight(CornerRule::Any)),
            SearchOptions::default().with_heuristic(Heuristic::Euclidean),
            SearchOptions::default().with_weight(1.5),
            SearchOptions::default().with_trace(true),
            SearchOptions::default().with_window(SearchWindow::centered(
                crate::Cell::new(5, 5),
                5,
                5,
            )),
            SearchOptions::default().with_cost(CostModel::Integer {
                straight: 10,
                diagonal: 25,
            }),
        ];
        for options in refused {
            assert!(
                matches!(
                    JpsOptions::try_from(&options),
                    Err(SearchError::Unsupported(_))
                ),
                "{options:?}"
            );
        }
        assert_eq!(
            JpsOptions::try_from(&SearchOptions::default().with_cost(CostModel::INTEGER_10_14)),
            Ok(JpsOptions {
                cost: CostModel::INTEGER_10_14,
                full_path: true,
                max_expansions: None,
                closest_reachable: false,
            })
        );
    }
}
