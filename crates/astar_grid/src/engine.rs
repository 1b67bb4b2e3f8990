//! [`Engine`]: queries on one grid answered by the [`Algorithm`] chosen at run time, with what
//! that algorithm needs (a jump grid, a flow field) prepared and kept between queries.

use crate::closest::flood_to_closest;
use crate::endpoints::{validate_bounds_and_start, validate_endpoints};
use crate::{
    Algorithm, Cell, FlowField, FlowFieldError, Grid, Hierarchy, HierarchyError, HierarchyOptions,
    HierarchySearcher, JpsOptions, JumpGrid, SearchError, SearchOptions, SearchResult, SearchStats,
    SearchStatus, Searcher,
};

/// One algorithm and one set of options on one grid, answering queries one at a time.
///
/// [`Engine::new`] checks that the algorithm can honour the options and the grid, with a
/// [`SearchError`] naming the reason when it cannot, and prepares what the algorithm needs:
/// - [`Algorithm::AStar`] and [`Algorithm::Dijkstra`]: a [`Searcher`] sized for the grid;
/// - [`Algorithm::JumpPoint`]: the grid's [`JumpGrid`], built once, and the [`JpsOptions`] of
///   the options (full paths, as A* returns them);
/// - [`Algorithm::FlowField`]: a [`FlowField`] towards the goal of the latest query, built on
///   the first query and rebuilt, in the same memory, when the goal changes; queries in a row
///   to one goal read the same field;
/// - [`Algorithm::Hierarchical`]: the grid's [`Hierarchy`], built whole with the default
///   [`HierarchyOptions`] and the options' movement and cost model, and a
///   [`HierarchySearcher`].
///
/// The engine borrows the grid, so the grid cannot change under the prepared state; make a new
/// engine after editing it.
///
/// ```
/// use astar_grid::{Algorithm, Cell, Engine, Grid, SearchOptions};
///
/// let grid = Grid::from_ascii(
///     "........
///      .######.
///      ........",
/// )?;
/// let (start, goal) = (Cell::new(0, 1), Cell::new(7, 1));
/// for algorithm in Algorithm::ALL {
///     let mut engine = Engine::new(&grid, algorithm, &SearchOptions::default())?;
///     let result = engine.find_path(start, goal)?;
///     let path = result.found().expect("reachable");
///     // Every algorithm finds an optimal path here: up, along the wall, down.
///     assert_eq!(path.cost, 9.0, "{algorithm}");
///     assert_eq!(path.cells.first(), Some(&start));
///     assert_eq!(path.cells.last(), Some(&goal));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Engine<'g> {
    grid: &'g Grid,
    algorithm: Algorithm,
    options: SearchOptions,
    prepared: Prepared,
    searcher: Searcher,
}

/// What an algorithm keeps between queries.
#[derive(Clone, Debug)]
enum Prepared {
    /// A* and Dijkstra need nothing beyond the searcher.
    Search,
    /// Jump point search's packed grid and options.
    JumpPoint {
        jump_grid: Box<JumpGrid>,
        options: JpsOptions,
    },
    /// The field of the latest query's goal, once there was a query (boxed: a field is larger
    /// than the other variants).
    FlowField(Option<Box<FlowField>>),
    /// The grid's sector hierarchy and the scratch memory that searches it.
    Hierarchy(Box<(Hierarchy, HierarchySearcher)>),
}

impl<'g> Engine<'g> {
    /// An engine running `algorithm` with `options` on `grid`.
    ///
    /// ```
    /// use astar_grid::{Algorithm, Cell, CornerRule, Engine, Grid, Movement, SearchError, SearchOptions};
    ///
    /// let mut grid = Grid::new(8, 8);
    /// let cutting = SearchOptions::default().with_movement(Movement::eight(CornerRule::One));
    /// // Jump point search cannot cut corners; A* can, and is the caller's fallback.
    /// let refused = Engine::new(&grid, Algorithm::JumpPoint, &cutting);
    /// assert!(matches!(refused, Err(SearchError::Unsupported(_))));
    /// let mut engine = Engine::new(&grid, Algorithm::AStar, &cutting)?;
    /// assert!(engine.find_path(Cell::new(0, 0), Cell::new(7, 7))?.found().is_some());
    ///
    /// // The grid can rule an algorithm out too: jump point search needs uniform terrain.
    /// grid.set_cost(Cell::new(3, 3), 5).expect("inside the grid");
    /// let rough = Engine::new(&grid, Algorithm::JumpPoint, &SearchOptions::default());
    /// assert!(matches!(rough, Err(SearchError::Unsupported(_))));
    /// # Ok::<(), SearchError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Algorithm::check_options`]; and for [`Algorithm::JumpPoint`], as [`JumpGrid::new`]
    /// (terrain costs are refused). Errors about a query (its start and goal) come from
    /// [`Engine::find_path`].
    pub fn new(
        grid: &'g Grid,
        algorithm: Algorithm,
        options: &SearchOptions,
    ) -> Result<Self, SearchError> {
        algorithm.check_options(options)?;
        let options = algorithm.options_for(*options);
        let (prepared, searcher) = match algorithm {
            Algorithm::AStar | Algorithm::Dijkstra => (Prepared::Search, Searcher::for_grid(grid)),
            Algorithm::JumpPoint => {
                let prepared = Prepared::JumpPoint {
                    jump_grid: Box::new(JumpGrid::new(grid)?),
                    options: JpsOptions::try_from(&options)?,
                };
                (prepared, Searcher::new())
            }
            Algorithm::FlowField => (Prepared::FlowField(None), Searcher::new()),
            Algorithm::Hierarchical => {
                return Self::hierarchical(grid, &options, HierarchyOptions::default());
            }
        };
        Ok(Self {
            grid,
            algorithm,
            options,
            prepared,
            searcher,
        })
    }

    /// An [`Algorithm::Hierarchical`] engine whose hierarchy cuts the grid as `hierarchy`
    /// says (its movement and cost model replaced by those of `options`), built whole here.
    ///
    /// ```
    /// use astar_grid::{Algorithm, Cell, Engine, Grid, HierarchyOptions, SearchOptions};
    ///
    /// let grid = Grid::new(64, 64);
    /// let cut = HierarchyOptions::default().with_sector_size(16);
    /// let mut engine = Engine::hierarchical(&grid, &SearchOptions::default(), cut)?;
    /// assert_eq!(engine.algorithm(), Algorithm::Hierarchical);
    /// assert_eq!(engine.hierarchy().map(|hierarchy| hierarchy.sector_count()), Some(16));
    /// assert!(engine.find_path(Cell::new(0, 0), Cell::new(63, 0))?.found().is_some());
    /// # Ok::<(), astar_grid::SearchError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Engine::new`]; [`SearchError::Unsupported`] when the hierarchy refuses its sector
    /// size or spacing.
    pub fn hierarchical(
        grid: &'g Grid,
        options: &SearchOptions,
        hierarchy: HierarchyOptions,
    ) -> Result<Self, SearchError> {
        Algorithm::Hierarchical.check_options(options)?;
        let cut = hierarchy
            .with_movement(options.movement)
            .with_cost(options.cost);
        let built = Hierarchy::build(grid, cut).map_err(hierarchy_error)?;
        Ok(Self {
            grid,
            algorithm: Algorithm::Hierarchical,
            options: *options,
            prepared: Prepared::Hierarchy(Box::new((built, HierarchySearcher::new()))),
            searcher: Searcher::new(),
        })
    }

    /// The algorithm this engine runs.
    #[must_use]
    pub const fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The options queries run with ([`Algorithm::options_for`] the options given).
    #[must_use]
    pub const fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// The grid the engine searches.
    #[must_use]
    pub const fn grid(&self) -> &'g Grid {
        self.grid
    }

    /// The sector hierarchy of an [`Algorithm::Hierarchical`] engine; `None` for the others.
    #[must_use]
    pub fn hierarchy(&self) -> Option<&Hierarchy> {
        match &self.prepared {
            Prepared::Hierarchy(prepared) => Some(&prepared.0),
            _ => None,
        }
    }

    /// The engine's search memory, to run other searches on it (for example an A* search beside
    /// a jump point search) without allocating a second [`Searcher`].
    pub const fn searcher_mut(&mut self) -> &mut Searcher {
        &mut self.searcher
    }

    /// Finds a path from `start` to `goal` with the engine's algorithm.
    ///
    /// [`SearchStats::expanded`] counts what the algorithm expands: cells for A* and Dijkstra,
    /// jump points for jump point search, and for a flow field the cells its build settled
    /// during this query (0 when the query reused the field of the previous one;
    /// [`SearchStats::pushed`] is 0).
    ///
    /// With [`SearchOptions::closest_reachable`] every algorithm answers an unreachable or
    /// blocked goal with the path to the reachable cell closest to it (status
    /// [`SearchStatus::NoPath`]): A* and Dijkstra from their own search, jump point search and
    /// flow fields from a flood of the start's region (see
    /// [`JpsOptions::closest_reachable`]; a flow field grown from the goal never reaches that
    /// region). [`SearchStats::expanded`] then adds the flood's settled cells.
    ///
    /// ```
    /// use astar_grid::{Algorithm, Cell, Engine, Grid, SearchOptions, SearchStatus};
    ///
    /// let grid = Grid::from_ascii(
    ///     "...#..
    ///      ...#..",
    /// )?;
    /// let options = SearchOptions::default().with_closest_reachable(true);
    /// for algorithm in Algorithm::OPTIMAL {
    ///     let mut engine = Engine::new(&grid, algorithm, &options)?;
    ///     let result = engine.find_path(Cell::new(0, 0), Cell::new(5, 1))?;
    ///     assert_eq!(result.status, SearchStatus::NoPath, "{algorithm}");
    ///     let path = result.partial().expect("the closest reachable cell");
    ///     assert_eq!(path.end(), Some(Cell::new(2, 1)), "{algorithm}");
    ///     assert_eq!(path.cost, 1.0 + 2f64.sqrt(), "{algorithm}");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Searcher::find_path`]: a grid without cells, a start or goal outside the grid or
    /// blocked (a blocked goal is searched with [`SearchOptions::closest_reachable`]), a window
    /// without the start. An unreachable goal is not an error but a result with
    /// [`SearchStatus::NoPath`].
    pub fn find_path(&mut self, start: Cell, goal: Cell) -> Result<SearchResult, SearchError> {
        match &mut self.prepared {
            Prepared::Search => self
                .searcher
                .find_path(self.grid, start, goal, &self.options),
            Prepared::JumpPoint { jump_grid, options } => {
                self.searcher.find_path_jps(jump_grid, start, goal, options)
            }
            Prepared::Hierarchy(prepared) => {
                let (hierarchy, searcher) = &mut **prepared;
                searcher.find_path(self.grid, hierarchy, start, goal)
            }
            Prepared::FlowField(field) => {
                if self.options.closest_reachable {
                    validate_bounds_and_start(self.grid, start, goal)?;
                } else {
                    validate_endpoints(self.grid, start, goal)?;
                }
                let mut result = if self.grid.is_walkable(goal) {
                    flow_path(field, self.grid, &self.options, start, goal)?
                } else {
                    // Only with `closest_reachable`: no field grows from a blocked goal.
                    SearchResult {
                        status: SearchStatus::NoPath,
                        path: None,
                        stats: SearchStats::default(),
                        trace: None,
                    }
                };
                if result.path.is_none() && self.options.closest_reachable {
                    let flood = flood_to_closest(
                        &mut self.searcher.flood,
                        self.grid,
                        self.options.movement,
                        self.options.cost,
                        start,
                        &[goal],
                    );
                    result.path = Some(flood.path);
                    result.stats.expanded = result.stats.expanded.saturating_add(flood.settled);
                }
                Ok(result)
            }
        }
    }
}

/// A hierarchy's refusal of the options (its cost model), as a search error.
const fn hierarchy_error(error: HierarchyError) -> SearchError {
    match error {
        HierarchyError::InvalidCostModel => SearchError::InvalidCostModel,
        HierarchyError::HexGrid => {
            SearchError::Unsupported("the sector hierarchy serves square grids, not hexagonal ones")
        }
        HierarchyError::SectorSize(_)
        | HierarchyError::EntranceSpacing
        | HierarchyError::GridSize { .. }
        | HierarchyError::NotBuilt(_)
        | HierarchyError::OffGrid(_)
        | HierarchyError::Changed => SearchError::Unsupported("the hierarchy refused its options"),
    }
}

/// The path from `start` to `goal` read from the field of `goal`, which is built or rebuilt in
/// `field` unless it is already there. `start` and `goal` are walkable cells of `grid`.
fn flow_path(
    field: &mut Option<Box<FlowField>>,
    grid: &Grid,
    options: &SearchOptions,
    start: Cell,
    goal: Cell,
) -> Result<SearchResult, SearchError> {
    let settled = match field {
        Some(field) if field.goals() == [goal] => 0,
        Some(field) => field.rebuild(grid, &[goal]).map_err(search_error)?.settled,
        None => {
            let mut built =
                FlowField::empty(grid, options.movement, options.cost).map_err(search_error)?;
            let settled = built.rebuild(grid, &[goal]).map_err(search_error)?.settled;
            *field = Some(Box::new(built));
            settled
        }
    };
    let path = field.as_ref().and_then(|field| field.path_from(start));
    Ok(SearchResult {
        status: if path.is_some() {
            SearchStatus::Found
        } else {
            SearchStatus::NoPath
        },
        path,
        stats: SearchStats {
            expanded: u32::try_from(settled).unwrap_or(u32::MAX),
            pushed: 0,
        },
        trace: None,
    })
}

/// The search error for a flow field's refusal. The engine checks the endpoints and the cost
/// model first and builds the field for the grid it holds, with one goal, so only the first
/// four kinds can arise at all.
fn search_error(error: FlowFieldError) -> SearchError {
    match error {
        FlowFieldError::EmptyGrid => SearchError::EmptyGrid,
        FlowFieldError::GoalOutOfBounds(cell) => SearchError::GoalOutOfBounds(cell),
        FlowFieldError::GoalBlocked(cell) => SearchError::GoalBlocked(cell),
        FlowFieldError::InvalidCostModel => SearchError::InvalidCostModel,
        FlowFieldError::NoGoals
        | FlowFieldError::GridMismatch { .. }
        | FlowFieldError::CellOutOfBounds(_) => {
            SearchError::Unsupported("the flow field could not be built for this query")
        }
    }
}
