//! Proptest strategies: random grids with walls and terrain, queries on them, and search options.

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Heuristic, Movement, SearchOptions, SearchWindow, Weighting,
};
use proptest::prelude::*;

/// Every movement rule: four-connected, and eight-connected with each corner rule.
pub const MOVEMENTS: [Movement; 4] = [
    Movement::FOUR,
    Movement::eight(CornerRule::Both),
    Movement::eight(CornerRule::One),
    Movement::eight(CornerRule::Any),
];

/// Cost models to test: exact octile, integer 10/14, integer 10/17 (diagonals still pay, but
/// less), integer 10/25 (a diagonal costs more than two straight steps) and integer 10/5 (a
/// diagonal costs less than a straight step).
pub const COST_MODELS: [CostModel; 5] = [
    CostModel::Octile,
    CostModel::INTEGER_10_14,
    CostModel::Integer {
        straight: 10,
        diagonal: 17,
    },
    CostModel::Integer {
        straight: 10,
        diagonal: 25,
    },
    CostModel::Integer {
        straight: 10,
        diagonal: 5,
    },
];

/// Any valid cost model: exact octile, or integer straight and diagonal costs each from 1 to
/// 1000 (so a diagonal below a straight step half of the time), with the edges between the
/// regimes drawn more often: a diagonal of 1, just below, at and just above one straight step,
/// and just below, at and just above two.
pub fn any_cost_model() -> impl Strategy<Value = CostModel> {
    let integer = |(straight, diagonal)| CostModel::Integer { straight, diagonal };
    let edge = (1u32..=499, 0usize..7).prop_map(|(straight, edge)| {
        let diagonal = [
            1,
            straight - 1,
            straight,
            straight + 1,
            2 * straight - 1,
            2 * straight,
            2 * straight + 1,
        ][edge];
        (straight, diagonal.max(1))
    });
    prop_oneof![
        1 => Just(CostModel::Octile),
        6 => (1u32..=1000, 1u32..=1000).prop_map(integer),
        3 => edge.prop_map(integer),
    ]
}

/// Any valid weighting: no weight, static weights from 1 to 4 (1.5 and 3 often), and dynamic
/// weights with epsilon from 0 to 2.
pub fn any_weighting() -> impl Strategy<Value = Weighting> {
    prop_oneof![
        2 => Just(Weighting::Static(1.0)),
        1 => Just(Weighting::Static(1.5)),
        1 => Just(Weighting::Static(3.0)),
        2 => (1.0..4.0f64).prop_map(Weighting::Static),
        1 => Just(Weighting::Dynamic { epsilon: 0.0 }),
        2 => (0.0..2.0f64).prop_map(|epsilon| Weighting::Dynamic { epsilon }),
    ]
}

/// A grid of 1 to `max_width` by 1 to `max_height` cells with a random wall density (0 to 50%)
/// and, in about half of the cases, random terrain multipliers from 1 to 5.
pub fn random_grid(max_width: u32, max_height: u32) -> impl Strategy<Value = Grid> {
    (1..=max_width, 1..=max_height, 0.0..0.5f64, any::<bool>()).prop_flat_map(
        |(width, height, density, terrain)| {
            prop::collection::vec((0.0..1.0f64, 1u8..=5), (width * height) as usize).prop_map(
                move |rolls| {
                    Grid::from_fn(width, height, |cell| {
                        let (roll, multiplier) = rolls[(cell.y * width + cell.x) as usize];
                        if roll < density {
                            0
                        } else if terrain {
                            multiplier
                        } else {
                            1
                        }
                    })
                },
            )
        },
    )
}

/// A grid with a walkable start and goal on it (possibly the same cell).
#[derive(Clone, Debug)]
pub struct GridQuery {
    /// The grid; start and goal are walkable on it.
    pub grid: Grid,
    /// Where the search starts.
    pub start: Cell,
    /// Where it should end.
    pub goal: Cell,
}

/// A random grid up to `max_side` cells on each side with a start and a goal, both opened up if
/// the walls covered them.
pub fn grid_query(max_side: u32) -> impl Strategy<Value = GridQuery> {
    random_grid(max_side, max_side).prop_flat_map(|grid| {
        let (width, height) = (grid.width(), grid.height());
        (Just(grid), 0..width, 0..height, 0..width, 0..height).prop_map(
            |(mut grid, start_x, start_y, goal_x, goal_y)| {
                let start = Cell::new(start_x, start_y);
                let goal = Cell::new(goal_x, goal_y);
                for cell in [start, goal] {
                    if !grid.is_walkable(cell) {
                        grid.set_cost(cell, 1).expect("cell inside the grid");
                    }
                }
                GridQuery { grid, start, goal }
            },
        )
    })
}

/// One of [`MOVEMENTS`].
pub fn movement() -> impl Strategy<Value = Movement> {
    prop::sample::select(MOVEMENTS.to_vec())
}

/// One of [`COST_MODELS`].
pub fn cost_model() -> impl Strategy<Value = CostModel> {
    prop::sample::select(COST_MODELS.to_vec())
}

/// A window that contains `start`: up to `reach` cells on each side of it (clipped at 0).
pub fn window_around(start: Cell, reach: u32) -> impl Strategy<Value = SearchWindow> {
    (0..=reach, 0..=reach, 0..=reach, 0..=reach).prop_map(move |(left, up, right, down)| {
        SearchWindow::new(
            Cell::new(start.x.saturating_sub(left), start.y.saturating_sub(up)),
            Cell::new(start.x + right, start.y + down),
        )
    })
}

/// Valid search options for a search from `start`: any movement, cost model (see
/// [`any_cost_model`]), heuristic and weighting, sometimes an expansion limit, a window,
/// partial paths and a trace.
pub fn search_options(start: Cell) -> impl Strategy<Value = SearchOptions> {
    let weighting = prop_oneof![
        Just(Weighting::Static(1.0)),
        Just(Weighting::Static(1.5)),
        Just(Weighting::Static(3.0)),
        Just(Weighting::Dynamic { epsilon: 0.5 }),
    ];
    (
        movement(),
        prop_oneof![cost_model(), any_cost_model()],
        prop::option::of(prop::sample::select(Heuristic::ALL.to_vec())),
        weighting,
        prop::option::weighted(0.3, 0u32..80),
        prop::option::weighted(0.3, window_around(start, 12)),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(options_from)
}

/// The parts of [`SearchOptions`] the strategies draw: movement, cost model, heuristic,
/// weighting, expansion limit, window, partial paths and trace.
pub type OptionParts = (
    Movement,
    CostModel,
    Option<Heuristic>,
    Weighting,
    Option<u32>,
    Option<SearchWindow>,
    bool,
    bool,
);

/// The search options made of `parts`.
pub fn options_from(parts: OptionParts) -> SearchOptions {
    let (movement, cost, heuristic, weighting, max_expansions, window, partial, trace) = parts;
    let mut options = SearchOptions::default()
        .with_movement(movement)
        .with_cost(cost)
        .with_partial_path(partial)
        .with_trace(trace);
    options.heuristic = heuristic;
    options.weighting = weighting;
    options.max_expansions = max_expansions;
    options.window = window;
    options
}

/// Terrain values for grids of agent kinds: blocked, plain costs, and the Moving AI kinds.
pub const TERRAIN_VALUES: [u8; 9] = [
    0,
    1,
    2,
    5,
    astar_grid::agent::moving_ai::GROUND,
    astar_grid::agent::moving_ai::SWAMP,
    astar_grid::agent::moving_ai::WATER,
    astar_grid::agent::moving_ai::TREES,
    astar_grid::agent::moving_ai::OUT_OF_MAP,
];

/// A terrain grid of `min_side` to `max_side` cells on each side whose bytes are terrain
/// values: mostly ground (more often the lower `rough`, 0 to 1, is), else any of
/// [`TERRAIN_VALUES`] or any byte at all.
pub fn terrain_grid(min_side: u32, max_side: u32) -> impl Strategy<Value = Grid> {
    (min_side..=max_side, min_side..=max_side, 0.0..0.6f64).prop_flat_map(
        |(width, height, rough)| {
            let value = prop_oneof![
                4 => prop::sample::select(TERRAIN_VALUES.to_vec()),
                1 => any::<u8>(),
            ];
            prop::collection::vec((0.0..1.0f64, value), (width * height) as usize).prop_map(
                move |rolls| {
                    Grid::from_fn(width, height, |cell| {
                        let (roll, value) = rolls[(cell.y * width + cell.x) as usize];
                        if roll < rough { value } else { 1 }
                    })
                },
            )
        },
    )
}

/// A terrain profile: one of the presets, or a random table in which each value is impassable
/// with the given chance and else costs 1 to 9.
pub fn terrain_profile() -> impl Strategy<Value = astar_grid::TerrainProfile> {
    use astar_grid::TerrainProfile;
    let random = (
        0.0..0.5f64,
        prop::collection::vec((0.0..1.0f64, 1u8..=9), 256),
    )
        .prop_map(|(impassable, entries)| {
            TerrainProfile::from_fn(|value| {
                let (roll, cost) = entries[usize::from(value)];
                if roll < impassable { 0 } else { cost }
            })
        });
    prop_oneof![
        1 => Just(TerrainProfile::identity()),
        1 => Just(TerrainProfile::walker()),
        1 => Just(TerrainProfile::flyer()),
        1 => Just(TerrainProfile::heavy()),
        1 => Just(TerrainProfile::boat().with_cost(1, 2)),
        2 => random,
    ]
}

/// An agent size from 1 to `MAX_AGENT_SIZE`, the small ones more often.
pub fn agent_size() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => 1u8..=3,
        1 => 1u8..=astar_grid::agent::MAX_AGENT_SIZE,
    ]
}
