//! The search options a command line can choose, and running one query with them.

use astar_grid::{
    Cell, CornerRule, Grid, Heuristic, JpsOptions, JumpGrid, Movement, Neighborhood, SearchOptions,
    SearchResult, Searcher,
};
use clap::{Args, ValueEnum};

/// Which search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algorithm {
    /// A* with the chosen heuristic and weight.
    Astar,
    /// Dijkstra's algorithm (A* with the zero heuristic).
    Dijkstra,
    /// Jump point search (eight neighbours without corner cutting, uniform costs only); also
    /// runs A* on the same queries, untimed, to compare expansions.
    Jps,
    /// Flow fields: one multi-source Dijkstra per distinct goal, each query's path read by
    /// following next steps; a query's time includes its share of its field's build, and its
    /// "expanded" count its share of the cells the build settled.
    Flow,
}

/// Neighbourhood names on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Connectivity {
    /// Four neighbours.
    #[value(name = "4")]
    Four,
    /// Eight neighbours.
    #[value(name = "8")]
    Eight,
}

/// Corner rule names on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Corners {
    /// Both corner cells free (Moving AI).
    Both,
    /// At least one corner cell free.
    One,
    /// Diagonals ignore corners.
    Any,
}

/// Options shared by the commands that search.
#[derive(Clone, Debug, Args)]
pub struct SearchArgs {
    /// 4- or 8-connected movement.
    #[arg(long, value_enum, default_value_t = Connectivity::Eight)]
    pub neighborhood: Connectivity,
    /// Corner-cutting rule for diagonal steps.
    #[arg(long, value_enum, default_value_t = Corners::Both)]
    pub corners: Corners,
    /// Search algorithm.
    #[arg(long, value_enum, default_value_t = Algorithm::Astar)]
    pub algo: Algorithm,
    /// Heuristic (default: octile for 8 neighbours, manhattan for 4).
    #[arg(long)]
    pub heuristic: Option<Heuristic>,
    /// Heuristic weight (weighted A*), at least 1.
    #[arg(long, default_value_t = 1.0)]
    pub weight: f64,
}

impl SearchArgs {
    /// The core's search options for these arguments.
    pub fn options(&self) -> SearchOptions {
        let corners = match self.corners {
            Corners::Both => CornerRule::Both,
            Corners::One => CornerRule::One,
            Corners::Any => CornerRule::Any,
        };
        let neighborhood = match self.neighborhood {
            Connectivity::Four => Neighborhood::Four,
            Connectivity::Eight => Neighborhood::Eight,
        };
        let mut options = SearchOptions::default()
            .with_movement(Movement {
                neighborhood,
                corners,
            })
            .with_weight(self.weight);
        if let Some(heuristic) = self.heuristic {
            options = options.with_heuristic(heuristic);
        }
        if self.algo == Algorithm::Dijkstra {
            options = options.dijkstra();
        }
        options
    }
}

/// The bit-packed grid and options for jump point search when `args` chooses it, built
/// outside any timing; an error when the map or the options rule jump point search out.
pub fn jump_search_for(
    grid: &Grid,
    args: &SearchArgs,
) -> Result<Option<(JumpGrid, JpsOptions)>, String> {
    if args.algo != Algorithm::Jps {
        return Ok(None);
    }
    let options = JpsOptions::try_from(&args.options()).map_err(|error| error.to_string())?;
    let jump_grid = JumpGrid::new(grid).map_err(|error| error.to_string())?;
    Ok(Some((jump_grid, options)))
}

/// Runs one query.
pub fn search(
    searcher: &mut Searcher,
    grid: &Grid,
    start: Cell,
    goal: Cell,
    options: &SearchOptions,
) -> Result<SearchResult, astar_grid::SearchError> {
    searcher.find_path(grid, start, goal, options)
}
