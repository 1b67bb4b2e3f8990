//! The one switch between the crate's searches, [`Algorithm`], the options each can honour, and
//! the names the algorithms go by on a command line.

use crate::{JpsOptions, SearchError, SearchOptions};
use core::fmt;
use core::str::FromStr;

/// Which search answers a query: the choice a caller makes at run time. An
/// [`Engine`](crate::Engine) runs queries with it; [`Algorithm::check_options`] tells whether
/// it can honour a set of [`SearchOptions`].
///
/// Weighted A* is not a variant of its own: it is [`Algorithm::AStar`] with a weight
/// ([`SearchOptions::with_weight`]). Dijkstra's algorithm is one, although it too is A* with
/// particular options, because it is asked for by name often enough to deserve one:
/// [`Algorithm::options_for`] gives the options it runs with.
///
/// ```
/// use astar_grid::Algorithm;
///
/// let algorithm: Algorithm = "jps".parse()?;
/// assert_eq!(algorithm, Algorithm::JumpPoint);
/// assert_eq!(algorithm.to_string(), "jps");
/// assert!("bfs".parse::<Algorithm>().is_err());
/// for algorithm in Algorithm::ALL {
///     assert_eq!(algorithm.name().parse::<Algorithm>()?, algorithm);
/// }
/// # Ok::<(), astar_grid::ParseAlgorithmError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// A* on a [`Grid`](crate::Grid) ([`Searcher::find_path`](crate::Searcher::find_path)),
    /// honouring every option: movement, costs, heuristic, weight, limits, window, partial
    /// and closest-reachable paths, and traces.
    #[default]
    AStar,
    /// Dijkstra's algorithm: A* with the zero heuristic ([`SearchOptions::dijkstra`]), whatever
    /// heuristic the options name. Every other option is honoured as by A*.
    Dijkstra,
    /// Jump point search on a [`JumpGrid`](crate::JumpGrid)
    /// ([`Searcher::find_path_jps`](crate::Searcher::find_path_jps)): the paths A* finds with the
    /// default options, from far fewer expansions. Only for eight neighbours without corner
    /// cutting, uniform terrain, and the options [`JpsOptions::try_from`] accepts. The closest
    /// reachable cell to an unreachable goal comes from a flood of the start's region
    /// ([`JpsOptions::closest_reachable`]).
    JumpPoint,
    /// A [`FlowField`](crate::FlowField) grown from the goal, the path read by following its
    /// next steps: optimal paths under the movement and cost model. The heuristic is not used;
    /// weights, windows, expansion limits, partial paths and traces are refused. The closest
    /// reachable cell to an unreachable or blocked goal
    /// ([`SearchOptions::closest_reachable`]) comes from a flood of the start's region, which
    /// the field never reaches.
    FlowField,
    /// A search over a [`Hierarchy`](crate::Hierarchy) of sectors
    /// ([`HierarchySearcher::find_path`](crate::HierarchySearcher::find_path)) built with
    /// [`HierarchyOptions::default`](crate::HierarchyOptions::default) and the options' movement
    /// and cost model: legal paths, at most
    /// [`HierarchyOptions::detour_per_crossing`](crate::HierarchyOptions::detour_per_crossing)
    /// dearer than optimal per sector border an optimal path crosses, for far less work on
    /// huge maps. The heuristic is its own; weights, windows, expansion limits, partial and
    /// closest-reachable paths and traces are refused.
    Hierarchical,
}

impl Algorithm {
    /// Every algorithm, A* first.
    pub const ALL: [Self; 5] = [
        Self::AStar,
        Self::Dijkstra,
        Self::JumpPoint,
        Self::FlowField,
        Self::Hierarchical,
    ];

    /// The algorithms whose paths are always optimal: all but [`Algorithm::Hierarchical`].
    pub const OPTIMAL: [Self; 4] = [
        Self::AStar,
        Self::Dijkstra,
        Self::JumpPoint,
        Self::FlowField,
    ];

    /// Whether its paths are always optimal (see [`Algorithm::OPTIMAL`]).
    ///
    /// ```
    /// use astar_grid::Algorithm;
    ///
    /// assert!(Algorithm::JumpPoint.is_optimal());
    /// assert!(!Algorithm::Hierarchical.is_optimal());
    /// ```
    #[must_use]
    pub const fn is_optimal(self) -> bool {
        !matches!(self, Self::Hierarchical)
    }

    /// The algorithm's short name, as [`Display`](fmt::Display) writes it and
    /// [`FromStr`] reads it: `astar`, `dijkstra`, `jps`, `flow` or `hier`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::AStar => "astar",
            Self::Dijkstra => "dijkstra",
            Self::JumpPoint => "jps",
            Self::FlowField => "flow",
            Self::Hierarchical => "hier",
        }
    }

    /// The options a query runs with under this algorithm: for [`Algorithm::Dijkstra`],
    /// `options` with the zero heuristic; for the others, `options` unchanged.
    ///
    /// ```
    /// use astar_grid::{Algorithm, Heuristic, SearchOptions};
    ///
    /// let options = SearchOptions::default().with_heuristic(Heuristic::Euclidean);
    /// assert_eq!(Algorithm::Dijkstra.options_for(options).resolved_heuristic(), Heuristic::Zero);
    /// assert_eq!(Algorithm::AStar.options_for(options), options);
    /// ```
    #[must_use]
    pub const fn options_for(self, options: SearchOptions) -> SearchOptions {
        match self {
            Self::Dijkstra => options.dijkstra(),
            Self::AStar | Self::JumpPoint | Self::FlowField | Self::Hierarchical => options,
        }
    }

    /// Whether this algorithm can honour `options`: `Ok` when it can, else the reason, so that a
    /// caller can fall back to another algorithm explicitly. The grid can rule an algorithm out
    /// as well (jump point search refuses terrain costs); [`Engine::new`](crate::Engine::new)
    /// checks both.
    ///
    /// ```
    /// use astar_grid::{Algorithm, SearchError, SearchOptions};
    ///
    /// let weighted = SearchOptions::default().with_weight(2.0);
    /// assert_eq!(Algorithm::AStar.check_options(&weighted), Ok(()));
    /// assert!(matches!(
    ///     Algorithm::FlowField.check_options(&weighted),
    ///     Err(SearchError::Unsupported(_))
    /// ));
    /// ```
    ///
    /// # Errors
    /// [`SearchError::InvalidWeight`] or [`SearchError::InvalidCostModel`] for values no search
    /// accepts; [`SearchError::Unsupported`] for options this algorithm cannot honour:
    /// - [`Algorithm::JumpPoint`]: whatever [`JpsOptions::try_from`] refuses (another movement
    ///   rule, a heuristic other than octile, a weight, a window, a partial path or a trace, a
    ///   diagonal cheaper than a straight step or dearer than two);
    /// - [`Algorithm::FlowField`]: a weight, a window, an inadmissible heuristic (the field's
    ///   optimal paths would differ from what A* returns), an expansion limit, a partial path or
    ///   a trace;
    /// - [`Algorithm::Hierarchical`]: a weight, a window, an expansion limit, a partial or
    ///   closest-reachable path, or a trace.
    pub fn check_options(self, options: &SearchOptions) -> Result<(), SearchError> {
        let options = self.options_for(*options);
        crate::search::validate_options(&options)?;
        match self {
            Self::AStar | Self::Dijkstra => Ok(()),
            Self::JumpPoint => JpsOptions::try_from(&options).map(drop),
            Self::FlowField => check_flow_options(&options),
            Self::Hierarchical => check_hierarchy_options(&options),
        }
    }
}

/// The options a flow field refuses (see [`Algorithm::check_options`]).
fn check_flow_options(options: &SearchOptions) -> Result<(), SearchError> {
    if !options.is_optimal() {
        return Err(SearchError::Unsupported(
            "flow fields find optimal paths over the whole grid: no weight, window or inadmissible heuristic",
        ));
    }
    if options.max_expansions.is_some() || options.partial_path || options.trace {
        return Err(SearchError::Unsupported(
            "flow fields do not support expansion limits, partial paths or traces",
        ));
    }
    Ok(())
}

/// The options a hierarchical search refuses (see [`Algorithm::check_options`]).
fn check_hierarchy_options(options: &SearchOptions) -> Result<(), SearchError> {
    if options.movement.neighborhood == crate::Neighborhood::Hex {
        return Err(SearchError::Unsupported(
            "the sector hierarchy serves square grids, not hexagonal ones",
        ));
    }
    let limited = options.max_expansions.is_some() || options.window.is_some();
    let extras = options.partial_path || options.closest_reachable || options.trace;
    if !options.weighting.is_unit() || limited || extras {
        return Err(SearchError::Unsupported(
            "hierarchical search takes no weight, window, expansion limit, partial or closest-reachable path, or trace",
        ));
    }
    Ok(())
}

impl fmt::Display for Algorithm {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = ParseAlgorithmError;

    /// The algorithm named `name` ([`Algorithm::name`]: `astar`, `dijkstra`, `jps`, `flow` or
    /// `hier`),
    /// compared exactly.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|algorithm| algorithm.name() == name)
            .ok_or_else(|| ParseAlgorithmError {
                name: name
                    .chars()
                    .take(ParseAlgorithmError::SHOWN_CHARS)
                    .collect(),
            })
    }
}

/// A name [`Algorithm::from_str`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown algorithm {name:?}: expected astar, dijkstra, jps, flow or hier")]
pub struct ParseAlgorithmError {
    /// The name given, cut to its first [`ParseAlgorithmError::SHOWN_CHARS`] characters.
    pub name: String,
}

impl ParseAlgorithmError {
    /// How many characters of an unknown name the error keeps.
    pub const SHOWN_CHARS: usize = 40;
}
