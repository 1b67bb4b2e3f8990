//! `pathbench orders`: orders given to single agents on a huge map, as a strategy game's
//! clicks are, with and without `PathRequest::first_cells_fast`, side by side in one app: the
//! frames from an order to the agent's first step and to its whole path, the main thread's time
//! per frame and its Dispatch stage's (where the first cells are found), and the legality of
//! the whole paths.

use crate::scen_run::load;
use astar_grid::{Cell, CostModel, Grid, Movement};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `pathbench orders`.
#[derive(Debug, Args)]
pub struct OrdersArgs {
    /// The `.map` file.
    pub map: PathBuf,
    /// The `.scen` file: each order is one of its reachable queries, in turn (those with and
    /// those without `first_cells_fast` half the queries apart, so that both are given each).
    pub scen: PathBuf,
    /// Orders given each frame with `first_cells_fast`, and as many without.
    #[arg(long, default_value_t = 1)]
    pub per_frame: usize,
    /// Frames measured, one every 1/60 s of wall-clock time.
    #[arg(long, default_value_t = 600)]
    pub frames: u32,
    /// Agent speed in cells per second.
    #[arg(long, default_value_t = 8.0)]
    pub speed: f32,
    /// Where searches run (default: the plugin's).
    #[arg(long, value_enum)]
    pub search_thread: Option<crate::agents::ThreadChoice>,
}

/// The frames of one run at 60 a second.
const FRAME: Duration = Duration::from_nanos(16_666_667);

/// Frames the hierarchy may take to build before the run gives up (ten minutes).
const MOST_WARM_UP_FRAMES: u32 = 36_000;

/// Frames the warm-up runs after the hierarchy is built, for its landmarks to be measured.
const LANDMARK_FRAMES: u32 = 300;

/// An agent given an order, until it has both moved and its whole path.
#[derive(Component)]
struct Order {
    fast: bool,
    given: u32,
    from: Vec2,
    moved: Option<u32>,
    whole: Option<u32>,
}

/// When the last frame's Dispatch stage began and ended.
#[derive(Resource, Default)]
struct DispatchStamps {
    began: Option<Instant>,
    ended: Option<Instant>,
}

/// Notes the time in [`DispatchStamps`]: `ENDED` false before Dispatch, true after.
fn stamp<const ENDED: bool>(mut stamps: ResMut<DispatchStamps>) {
    let now = Some(Instant::now());
    if ENDED {
        stamps.ended = now;
    } else {
        stamps.began = now;
    }
}

/// How long Dispatch took to find each order's first cells, in microseconds.
#[derive(Resource, Default)]
struct FirstCellsTimes(Vec<f64>);

/// Notes the time of the first cells Dispatch showed this frame (a path's search time while it
/// shows them).
fn note_first_cells(paths: Query<&Path, Changed<Path>>, mut times: ResMut<FirstCellsTimes>) {
    let shown = paths.iter().filter(|path| path.shows_first_cells());
    times
        .0
        .extend(shown.map(|path| path.search_time.as_secs_f64() * 1e6));
}

/// The last frame's Dispatch time in milliseconds.
fn dispatch_ms(app: &App) -> f64 {
    let stamps = app.world().resource::<DispatchStamps>();
    match (stamps.began, stamps.ended) {
        (Some(began), Some(ended)) => ended.saturating_duration_since(began).as_secs_f64() * 1e3,
        _ => 0.0,
    }
}

/// What the orders of one kind came to.
#[derive(Default)]
struct Tally {
    first_step: Vec<f64>,
    whole: Vec<f64>,
    illegal: usize,
    unfinished: usize,
}

pub fn run(args: &OrdersArgs) -> Result<bool, String> {
    let (grid, scenario) = load(&args.map, &args.scen)?;
    let queries: Vec<(Cell, Cell)> = scenario
        .queries
        .iter()
        .filter(|query| query.optimal_length >= 0.0)
        .map(|query| (query.start, query.goal))
        .collect();
    if queries.len() < 2 {
        return Err("the scenario needs two reachable queries or more".into());
    }
    let mut app = build_app(args, grid.clone());
    warm_up(&mut app, queries[0].0)?;
    let mut tallies = [Tally::default(), Tally::default()];
    let mut frame_times = Vec::new();
    let mut dispatch_times = Vec::new();
    // Both kinds go through the scenario's queries in turn, half of it apart, so that over a
    // whole turn each is given every query.
    let half = queries.len() / 2;
    let mut next = 0;
    for frame in 0..args.frames {
        for _ in 0..args.per_frame {
            for (fast, offset) in [(true, 0), (false, half)] {
                let query = queries[(next + offset) % queries.len()];
                give_order(&mut app, query, (fast, frame), args.speed);
            }
            next += 1;
        }
        let began = Instant::now();
        app.update();
        frame_times.push(began.elapsed().as_secs_f64() * 1e3);
        dispatch_times.push(dispatch_ms(&app));
        watch_orders(&mut app, frame, &grid, &mut tallies);
        if let Some(rest) = FRAME.checked_sub(began.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let mut orders = app.world_mut().query::<&Order>();
    for order in orders.iter(app.world()) {
        tallies[usize::from(!order.fast)].unfinished += 1;
    }
    report(args, &app, &tallies, (&frame_times, &dispatch_times));
    Ok(tallies.iter().all(|tally| tally.illegal == 0))
}

/// The app: the plugin with the cache off (orders repeat the scenario's queries), a follower
/// per agent, and the grid.
fn build_app(args: &OrdersArgs, grid: Grid) -> App {
    let mut settings = PathfindingSettings {
        cache_capacity: 0,
        ..PathfindingSettings::default()
    };
    if let Some(thread) = args.search_thread {
        settings.search_thread = thread.setting();
    }
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default().with_settings(settings),
        PathFollowPlugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    .insert_resource(NavGrid::new(grid))
    .init_resource::<DispatchStamps>()
    .init_resource::<FirstCellsTimes>()
    .add_systems(
        Update,
        (
            stamp::<false>
                .after(PathfindingSystems::Invalidate)
                .before(PathfindingSystems::Dispatch),
            (stamp::<true>, note_first_cells)
                .after(PathfindingSystems::Dispatch)
                .before(PathfindingSystems::Apply),
        ),
    );
    app.finish();
    app.cleanup();
    app
}

/// Runs frames until the hierarchy (made by a request at `cell`) is built whole and its
/// landmarks measured.
fn warm_up(app: &mut App, cell: Cell) -> Result<(), String> {
    let request = PathRequest::new(cell, cell).with_algorithm(PathAlgorithm::Hierarchical);
    app.world_mut().spawn(request);
    let mut built_at = None;
    for frame in 0..MOST_WARM_UP_FRAMES {
        app.update();
        let stats = app.world().resource::<PathfindingStats>();
        if built_at.is_none() && stats.hierarchy_sectors > 0 && stats.hierarchy_sectors_waiting == 0
        {
            built_at = Some(frame);
        }
        // The landmarks are measured once the map has been quiet for a second, in under a
        // second of a core on a 4096 x 4096 map: five seconds leave them done.
        if built_at.is_some_and(|built| frame >= built + LANDMARK_FRAMES) {
            return Ok(());
        }
        std::thread::sleep(FRAME);
    }
    Err("the hierarchy was not built in ten minutes".into())
}

/// Gives an agent standing at `start` the order to walk to `goal`, with `first_cells_fast` or
/// not, at `frame`.
fn give_order(app: &mut App, (start, goal): (Cell, Cell), (fast, frame): (bool, u32), speed: f32) {
    let nav = app.world().resource::<NavGrid>();
    let from = nav.cell_center(start);
    let speed = speed * nav.cell_size().x;
    let request = PathRequest::new(start, goal)
        .with_algorithm(PathAlgorithm::Hierarchical)
        .with_first_cells_fast(fast);
    let order = Order {
        fast,
        given: frame,
        from,
        moved: None,
        whole: None,
    };
    app.world_mut().spawn((
        request,
        PathFollower::new(speed),
        Transform::from_translation(from.extend(0.0)),
        order,
    ));
}

/// Notes the agents that moved or got their whole path in `frame`; an agent with both is
/// tallied (its path checked on `grid`) and despawned.
fn watch_orders(app: &mut App, frame: u32, grid: &Grid, tallies: &mut [Tally; 2]) {
    let mut agents = app
        .world_mut()
        .query::<(Entity, &mut Order, &Transform, &Path)>();
    let mut done = Vec::new();
    for (entity, mut order, transform, path) in agents.iter_mut(app.world_mut()) {
        let frames = f64::from(frame + 1 - order.given);
        if order.moved.is_none() && transform.translation.truncate() != order.from {
            order.moved = Some(frame);
            tallies[usize::from(!order.fast)].first_step.push(frames);
        }
        if order.whole.is_none() && !path.status.is_pending() {
            order.whole = Some(frame);
            let tally = &mut tallies[usize::from(!order.fast)];
            tally.whole.push(frames);
            if !is_legal_walk(grid, path) {
                tally.illegal += 1;
            }
        }
        if order.moved.is_some() && order.whole.is_some() {
            done.push(entity);
        }
    }
    for entity in done {
        app.world_mut().despawn(entity);
    }
}

/// Whether `path` was found and is a legal walk on `grid` under the Moving AI rules, costing
/// what it says.
fn is_legal_walk(grid: &Grid, path: &Path) -> bool {
    let cells = path.cells();
    let steps: Option<f64> = cells
        .windows(2)
        .map(|step| grid.step_cost(step[0], step[1], Movement::EIGHT, CostModel::Octile))
        .sum();
    path.is_found() && steps.is_some_and(|cost| (cost - path.cost()).abs() <= 1e-6 * cost.max(1.0))
}

/// The median, the 99th percentile and the largest of `values`.
fn spread(values: &[f64]) -> serde_json::Value {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = |fraction: f64| {
        let index = (fraction * sorted.len() as f64).ceil() as usize;
        sorted.get(index.clamp(1, sorted.len().max(1)) - 1).copied()
    };
    json!({ "median": rank(0.5), "p99": rank(0.99), "max": sorted.last() })
}

/// Prints the run's JSON line and a short table.
fn report(
    args: &OrdersArgs,
    app: &App,
    tallies: &[Tally; 2],
    (frame_times, dispatch_times): (&[f64], &[f64]),
) {
    let stats = app.world().resource::<PathfindingStats>();
    let kind = |tally: &Tally| {
        json!({
            "orders": tally.whole.len() + tally.unfinished,
            "frames_to_first_step": spread(&tally.first_step),
            "frames_to_whole_path": spread(&tally.whole),
            "illegal": tally.illegal,
            "unfinished": tally.unfinished,
        })
    };
    let line = json!({
        "map": args.map.display().to_string(),
        "frames": args.frames,
        "orders_per_frame_each": args.per_frame,
        "first_cells_fast": kind(&tallies[0]),
        "without": kind(&tallies[1]),
        "first_cells_shown": stats.first_cells_shown,
        "frame_ms": spread(frame_times),
        "dispatch_ms": spread(dispatch_times),
        "first_cells_us": spread(&app.world().resource::<FirstCellsTimes>().0),
    });
    println!("{line}");
    for (name, tally) in [("first_cells_fast", &tallies[0]), ("without", &tallies[1])] {
        eprintln!(
            "{name:>16}: first step {} frames, whole path {} frames (median / p99 / max), {} illegal, {} unfinished",
            spread(&tally.first_step),
            spread(&tally.whole),
            tally.illegal,
            tally.unfinished
        );
    }
    eprintln!(
        "main thread per frame (ms): {}, of which Dispatch: {}; first cells (us): {}",
        spread(frame_times),
        spread(dispatch_times),
        spread(&app.world().resource::<FirstCellsTimes>().0)
    );
}
