//! The search options a command line can choose: the core's algorithm switch and its options.

use astar_grid::{
    Algorithm, CornerRule, Engine, Grid, Heuristic, HierarchyOptions, Movement, Neighborhood,
    SearchError, SearchOptions,
};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};

/// What `--help` says of each algorithm, by the core's name for it.
const fn algorithm_help(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::AStar => "A* with the chosen heuristic and weight",
        Algorithm::Dijkstra => "Dijkstra's algorithm (A* with the zero heuristic)",
        Algorithm::JumpPoint => {
            "Jump point search (eight neighbours without corner cutting, uniform costs only); \
             also runs A* on the same queries, untimed, to compare expansions"
        }
        Algorithm::FlowField => {
            "Flow fields: one multi-source Dijkstra per distinct goal, each query's path read by \
             following next steps; a query's time includes its share of its field's build, and \
             its \"expanded\" count its share of the cells the build settled"
        }
        Algorithm::Hierarchical => {
            "A sector hierarchy (64-cell sectors, entrances every 16 cells, 12 landmarks), built before the timed \
             queries; paths are legal and near optimal, judged by \"illegal\" and \
             \"mean_suboptimality\" instead of mismatches"
        }
    }
}

/// Reads `--algo`: the core's algorithm names (`astar`, `dijkstra`, `jps`, `flow`), listed with
/// their help in `--help`.
fn algorithm_parser() -> impl TypedValueParser<Value = Algorithm> {
    PossibleValuesParser::new(
        Algorithm::ALL
            .map(|algorithm| PossibleValue::new(algorithm.name()).help(algorithm_help(algorithm))),
    )
    .try_map(|name| name.parse::<Algorithm>())
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
    #[arg(long, value_parser = algorithm_parser(), default_value_t = Algorithm::AStar)]
    pub algo: Algorithm,
    /// Heuristic (default: octile for 8 neighbours, manhattan for 4).
    #[arg(long)]
    pub heuristic: Option<Heuristic>,
    /// Heuristic weight (weighted A*), at least 1.
    #[arg(long, default_value_t = 1.0)]
    pub weight: f64,
    /// For `--algo hier`: the side of a sector, in cells.
    #[arg(long, default_value_t = HierarchyOptions::default().sector_size)]
    pub sector_size: u32,
    /// For `--algo hier`: an entrance every this many cells along a border.
    #[arg(long, default_value_t = HierarchyOptions::default().entrance_spacing)]
    pub entrance_spacing: u32,
}

impl SearchArgs {
    /// The engine these arguments ask for on `grid`: for `--algo hier`, with the sector size
    /// and entrance spacing given.
    pub fn engine<'g>(&self, grid: &'g Grid) -> Result<Engine<'g>, SearchError> {
        if self.algo == Algorithm::Hierarchical {
            let cut = HierarchyOptions::default()
                .with_sector_size(self.sector_size)
                .with_entrance_spacing(self.entrance_spacing);
            Engine::hierarchical(grid, &self.options(), cut)
        } else {
            Engine::new(grid, self.algo, &self.options())
        }
    }

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
        self.algo.options_for(options)
    }
}
