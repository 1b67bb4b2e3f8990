//! What a search returns: the path, why it stopped, and how much work it did.

use crate::{Cell, SearchTrace};

/// A path from start to goal, both included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// The cells from start to goal inclusive, each adjacent to the next.
    pub cells: Vec<Cell>,
    /// The sum of the step costs (terrain included).
    pub cost: f64,
}

impl Path {
    /// The first cell.
    #[must_use]
    pub fn start(&self) -> Option<Cell> {
        self.cells.first().copied()
    }

    /// The last cell.
    #[must_use]
    pub fn end(&self) -> Option<Cell> {
        self.cells.last().copied()
    }

    /// Number of steps (cells minus one).
    #[must_use]
    pub fn steps(&self) -> usize {
        self.cells.len().saturating_sub(1)
    }
}

/// A path towards a goal that may end short of it, as the flow-field queries that fall back to
/// the closest reachable cell return it
/// ([`FlowField::path_or_closest_from`](crate::FlowField::path_or_closest_from),
/// [`FlowField::closest_paths_to_goal`](crate::FlowField::closest_paths_to_goal)).
///
/// ```
/// use astar_grid::{Cell, Path, ReachedPath};
///
/// let short = ReachedPath::Closest(Path { cells: vec![Cell::new(0, 0)], cost: 0.0 });
/// assert!(!short.reaches_goal());
/// assert_eq!(short.path().end(), Some(Cell::new(0, 0)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ReachedPath {
    /// The path ends at the goal (at one of the goals, for a field of several).
    Goal(Path),
    /// No goal can be reached (or the goal is blocked): the path ends at the reachable cell
    /// closest to it, as [`SearchOptions::closest_reachable`](crate::SearchOptions::closest_reachable)
    /// defines it.
    Closest(Path),
}

impl ReachedPath {
    /// The path, wherever it ends.
    #[must_use]
    pub const fn path(&self) -> &Path {
        match self {
            Self::Goal(path) | Self::Closest(path) => path,
        }
    }

    /// The path, wherever it ends, by value.
    #[must_use]
    pub fn into_path(self) -> Path {
        match self {
            Self::Goal(path) | Self::Closest(path) => path,
        }
    }

    /// Whether the path ends at the goal.
    #[must_use]
    pub const fn reaches_goal(&self) -> bool {
        matches!(self, Self::Goal(_))
    }
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// The expansion budget ran out.
    Expansions,
    /// The search window held no path to the goal (the goal may lie outside it).
    Window,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SearchStatus {
    /// A path to the goal was found.
    Found,
    /// The goal cannot be reached from the start.
    NoPath,
    /// A limit stopped the search before it could decide.
    LimitReached(Limit),
}

/// Work counters of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Cells taken off the open list and expanded.
    pub expanded: u32,
    /// Entries pushed onto the open list.
    pub pushed: u32,
}

/// The result of a search that could run: its status, its path, its counters and (when asked
/// for) its trace.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// How the search ended.
    pub status: SearchStatus,
    /// The path when [`SearchStatus::Found`]; otherwise the path that ends short of the goal
    /// when one was asked for: the best partial path when a limit stopped the search and
    /// [`SearchOptions::partial_path`](crate::SearchOptions::partial_path) was set, the path to
    /// the closest reachable cell when the goal could not be reached and
    /// [`SearchOptions::closest_reachable`](crate::SearchOptions::closest_reachable) was set.
    pub path: Option<Path>,
    /// Work counters.
    pub stats: SearchStats,
    /// The recorded search, when [`SearchOptions::trace`](crate::SearchOptions::trace) was set.
    pub trace: Option<SearchTrace>,
}

impl SearchResult {
    /// The path if the goal was reached.
    #[must_use]
    pub fn found(&self) -> Option<&Path> {
        match self.status {
            SearchStatus::Found => self.path.as_ref(),
            _ => None,
        }
    }

    /// The path if it ends short of the goal: a partial path
    /// ([`SearchOptions::partial_path`](crate::SearchOptions::partial_path)) or the path to the
    /// closest reachable cell
    /// ([`SearchOptions::closest_reachable`](crate::SearchOptions::closest_reachable)). At most
    /// one of [`SearchResult::found`] and `partial` is `Some`.
    #[must_use]
    pub fn partial(&self) -> Option<&Path> {
        match self.status {
            SearchStatus::Found => None,
            _ => self.path.as_ref(),
        }
    }

    /// The cost of the path to the goal, if one was found.
    #[must_use]
    pub fn cost(&self) -> Option<f64> {
        self.found().map(|path| path.cost)
    }
}
