//! `pathbench agents`: this project's Bevy plugin under load beside `bevy_northstar`'s plugin.
//!
//! One scenario, run once per library in a headless app (`MinimalPlugins`, no window, time
//! advanced 1/60 s per frame): N agents walk a seeded tower-defense map from spawns to a goal
//! (and start again at a spawn on arrival, so the load stays constant) while a tower is placed
//! every half second of simulated time on a cell that a spawn's route crosses in both libraries
//! and that does not cut any cell off from the goal. Both libraries get the same map, the same
//! agents, the same towers at the same frames and the same per-frame measurement: the
//! main-thread time between a timestamp taken by a system ordered before the library's systems
//! and one ordered after them.
//!
//! Each library is a [`Contender`]: it builds its app, places towers, moves and restarts its
//! agents the way its model needs, and reads its own counters; [`drive`] runs the same warm-up
//! and measured frames for every contender. Adding a library means one file with one
//! `Contender` and a line in [`roster`].
//!
//! - [`map`]: the map, the goals, the agents' first cells and the tower cells.
//! - [`drive`]: the warm-up and the measured frames, the same for every contender.
//! - [`ours`]: `bevy_astar`'s `AStarPlugin`.
//! - [`northstar`]: `bevy_northstar`'s `NorthstarPlugin`.
//! - [`optimum`]: whether a cut agent's cells ahead lie on a shortest path of the map now.
//! - [`record`]: what a run records (frame spans, placements, counters).
//! - [`report`]: the table and the JSON line.

mod crowd_meter;
mod drive;
mod map;
mod northstar;
mod optimum;
mod ours;
mod record;
mod report;

use astar_grid::Cell;
use bevy::app::App;
use bevy::ecs::world::World;
use bevy::math::Vec2;
use clap::{Args, ValueEnum};
use record::{Counters, FrameStamps, Placement, RepathWatch, Watched};
use std::time::{Duration, Instant};

/// Frames per simulated second.
const FRAME_RATE: u32 = 60;
/// Frames between two tower placements: half a second.
const PLACEMENT_INTERVAL: u64 = FRAME_RATE as u64 / 2;
/// Most frames the warm-up may take before the run is abandoned.
const WARMUP_LIMIT: u64 = 120 * FRAME_RATE as u64;

/// Arguments of `pathbench agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// Number of agents walking at once.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub agents: usize,
    /// Simulated seconds measured (after the warm-up in which every agent gets its first path).
    #[arg(long, value_name = "S", default_value_t = 30)]
    pub seconds: u32,
    /// Side of the square map, in cells.
    #[arg(long, default_value_t = 256)]
    pub size: u32,
    /// Seed of the map, the agents' first cells and the towers.
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub seed: u64,
    /// The plugin run beside ours, or none.
    #[arg(long, value_enum, default_value_t = Peer::Northstar)]
    pub peer: Peer,
    /// The search `bevy_northstar` runs: its default (HPA* with refinement) or full-grid A*.
    #[arg(long, value_enum, default_value_t = NorthstarSearch::Refined)]
    pub northstar_mode: NorthstarSearch,
    /// Turn on `bevy_astar`'s `repair_cut_paths` setting (off by default): a path a tower cut
    /// gets a local detour instead of a whole new search.
    #[arg(long)]
    pub repair_cut_paths: bool,
    /// `bevy_astar`'s `goal_batch_min` setting: the fewest requests for one goal answered
    /// together by one search from the goal (0 turns batching off; default: the plugin's).
    #[arg(long, value_name = "N")]
    pub goal_batch_min: Option<usize>,
    /// `bevy_astar`'s `max_paths_applied_per_frame` setting (default: the plugin's).
    #[arg(long, value_name = "N")]
    pub max_paths_applied_per_frame: Option<u32>,
    /// `bevy_astar`'s `stage_budget` setting in microseconds (default: the plugin's).
    #[arg(long, value_name = "US")]
    pub stage_budget_us: Option<u64>,
    /// `bevy_astar`'s `background_pause` setting (default: the plugin's).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub background_pause: Option<PauseChoice>,
    /// Also write every measured frame's plugin time, by system set, to FILE: a header line,
    /// then one line per run and frame (`library frame tower plugin_ms` and one column per set,
    /// `tower` 1 on the frames that place one), to see which frames make the p99.
    #[arg(long, value_name = "FILE")]
    pub frame_times: Option<std::path::PathBuf>,
    /// `bevy_astar`'s `search_thread` setting: where searches and builds run (default: the
    /// plugin's, Bevy's task pool).
    #[arg(long, value_enum, value_name = "WHERE")]
    pub search_thread: Option<ThreadChoice>,
    /// Agent speed in cells per second.
    #[arg(long, default_value_t = 4.0)]
    pub speed: f32,
    /// Run frames back to back instead of one every 1/60 s of wall-clock time (background
    /// searches then get less time per frame than in a game running at 60 frames per second).
    #[arg(long)]
    pub unpaced: bool,
    /// Run `bevy_astar` twice, side by side: agents that walk through each other, then agents
    /// with `CrowdAvoidance` (local avoidance); `--peer` is ignored. The report adds how deep agents
    /// stand in each other, the agents stuck for more than 5 s, and the CPU time of every
    /// thread.
    #[arg(long)]
    pub crowd: bool,
    /// `bevy_astar`'s `CrowdSettings::planning_interval` for `--crowd` (default: the plugin's).
    #[arg(long, value_name = "N")]
    pub planning_interval: Option<u32>,
    /// Goals the agents are spread over: each agent walks to one of N cells placed from the
    /// seed, far apart, in the right half of the map (1: the goal on the right edge).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub goals: usize,
    /// Whether `bevy_astar` shares one tree of shortest paths per goal among its agents
    /// (`shared_goal_min_agents`): `on`, `off` (0), or `both`, running it twice side by side
    /// (`--peer` is ignored).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = SharedChoice::On)]
    pub shared: SharedChoice,
    /// `bevy_astar`'s `shared_goal_min_agents` where sharing is on (default: the plugin's).
    #[arg(long, value_name = "N")]
    pub shared_min: Option<usize>,
    /// With `--crowd`: whether the avoiding agents' goal trees weigh the crowd
    /// (`CrowdSettings::route_density_weight`): `off` (the plugin's default), `on`, or `both`,
    /// adding a third run with it on beside the run with it off.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = DensityChoice::Off)]
    pub density: DensityChoice,
    /// The `route_density_weight` of `--density on` or `both`.
    #[arg(long, value_name = "W", default_value_t = 1.0)]
    pub density_weight: f32,
    /// Doors on `bevy_astar`'s map: N links between seeded pairs of walkable cells a quarter
    /// of the map apart or more, each costing 2 straight steps (a shortcut: half a second's
    /// wait at the default speed), and one of them
    /// closed or opened again at every tower placement (door `k % N` at placement `k`), so
    /// that the placement frames measure a tower and a door together. `bevy_astar` runs
    /// twice side by side, with the doors and without (`--peer` is ignored; not with
    /// `--crowd` or `--shared both`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub doors: usize,
    /// `bevy_astar`'s agents ask for `PathAlgorithm::Hierarchical` (the sector hierarchy,
    /// built in the background from the first request) instead of A*; with `--shared off`,
    /// crowds for one goal share its sector flow field. A cut agent counts as re-pathed once
    /// its cells ahead are a legal walk to the goal (hierarchical paths are near optimal).
    #[arg(long)]
    pub hierarchical: bool,
    /// Whose routes the towers are planned on: every library's (`every`, so that each
    /// library's agents walk over them, whichever run), or only the map's own shortest paths
    /// (`map`: skips building `bevy_northstar`'s grid, which takes a quarter of an hour at
    /// 4096 x 4096).
    #[arg(long, value_enum, value_name = "WHOSE", default_value_t = TowersOn::Every)]
    pub towers_on: TowersOn,
    /// Towers are squares of N x N cells (1 to 8), the planned cell their corner nearest the
    /// origin, clipped to the map and kept off the spawns and goals (1: a cell, the default).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub tower_side: u32,
}

/// Whose routes the towers are planned on, for the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TowersOn {
    /// The map's shortest paths, and preferably every library's routes too.
    Every,
    /// The map's shortest paths only.
    Map,
}

/// Whether `bevy_astar`'s avoiding agents get density-aware routes, for the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DensityChoice {
    /// Routes ignore the crowd (`route_density_weight: 0`).
    Off,
    /// Routes weigh the crowd at `--density-weight`.
    On,
    /// Both, side by side in one run.
    Both,
}

/// Whether `bevy_astar`'s agents share their goals' trees, for the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SharedChoice {
    /// Sharing on (`shared_goal_min_agents` as `--shared-min` says, or the plugin's default).
    On,
    /// Sharing off: every agent gets a path of its own (`shared_goal_min_agents: 0`).
    Off,
    /// Both, side by side in one run.
    Both,
}

/// `bevy_astar`'s [`BackgroundPause`](bevy_astar::BackgroundPause), for the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PauseChoice {
    /// Pause on machines with at most two cores.
    FewCores,
    /// Always pause.
    Always,
    /// Never pause.
    Never,
}

impl PauseChoice {
    /// The plugin's setting.
    pub const fn setting(self) -> bevy_astar::BackgroundPause {
        match self {
            Self::FewCores => bevy_astar::BackgroundPause::OnFewCores,
            Self::Always => bevy_astar::BackgroundPause::Always,
            Self::Never => bevy_astar::BackgroundPause::Never,
        }
    }
}

/// `bevy_astar`'s [`SearchThread`](bevy_astar::SearchThread), for the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ThreadChoice {
    /// Bevy's async compute task pool.
    TaskPool,
    /// The main thread, within the stage budget.
    MainThread,
    /// The plugin's own idle-priority threads.
    IdleThreads,
}

impl ThreadChoice {
    /// The plugin's setting.
    pub const fn setting(self) -> bevy_astar::SearchThread {
        match self {
            Self::TaskPool => bevy_astar::SearchThread::TaskPool,
            Self::MainThread => bevy_astar::SearchThread::MainThread,
            Self::IdleThreads => bevy_astar::SearchThread::IdleThreads,
        }
    }
}

/// The plugin measured beside this project's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Peer {
    /// `bevy_northstar` 0.7's `NorthstarPlugin`.
    Northstar,
    /// Only this project's plugin.
    None,
}

/// The `PathfindMode` given to `bevy_northstar`'s requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NorthstarSearch {
    /// `PathfindMode::Refined`, the crate's default: HPA* over 16x16 chunks, then refined.
    Refined,
    /// `PathfindMode::AStar`: A* over the whole grid.
    Astar,
}

/// Everything every run shares: the map, the agents, the towers and the clock.
pub struct Scenario {
    /// The map.
    pub map: map::TowerMap,
    /// The goals, the map's own first.
    pub goals: Vec<Cell>,
    /// The goal of each agent, one of `goals`.
    pub agent_goals: Vec<Cell>,
    /// The cell each agent starts its first walk from.
    pub first_cells: Vec<Cell>,
    /// The tower cells, in placement order.
    pub towers: Vec<Cell>,
    /// How many towers lie on both libraries' routes from their spawn.
    pub shared_towers: usize,
    /// Agent speed in cells (world units) per second.
    pub speed: f32,
    /// Frames measured after the warm-up.
    pub frames: u64,
    /// Whether frames are paced to 60 per second of wall-clock time.
    pub paced: bool,
    /// The doors of `--doors` (links on the map, none on the tower cells).
    pub doors: Vec<astar_grid::Link>,
    /// The side of a tower's square, in cells.
    pub tower_side: u32,
}

impl Scenario {
    /// Builds the scenario the arguments describe, with towers on the routes of every contender
    /// of `roster` (whichever of them run, so that the towers do not depend on `--peer`).
    ///
    /// # Errors
    /// When an argument is out of range or the map cannot be generated.
    pub fn new(args: &AgentsArgs, roster: &[Box<dyn Contender>]) -> Result<Self, String> {
        if args.agents == 0 || args.agents > 1_000_000 {
            return Err(format!(
                "--agents must be between 1 and 1000000, not {}",
                args.agents
            ));
        }
        if args.seconds == 0 || args.seconds > 3_600 {
            return Err(format!(
                "--seconds must be between 1 and 3600, not {}",
                args.seconds
            ));
        }
        if !(args.speed.is_finite() && args.speed > 0.0 && args.speed <= 60.0) {
            return Err(format!(
                "--speed must be above 0 and at most 60 cells per second, not {}",
                args.speed
            ));
        }
        check_sharing(args)?;
        if !(1..=8).contains(&args.tower_side) {
            return Err(format!(
                "--tower-side must be between 1 and 8, not {}",
                args.tower_side
            ));
        }
        let map = map::TowerMap::generate(args.size, args.seed)?;
        let goals = map.place_goals(args.goals, args.seed)?;
        let agent_goals = map::agent_goals(args.agents, &goals, args.seed);
        let first_cells = map.first_cells(args.agents, args.seed, &goals);
        let frames = u64::from(args.seconds) * u64::from(FRAME_RATE);
        let placements = usize::try_from(frames.div_ceil(PLACEMENT_INTERVAL) - 1)
            .map_err(|_| "too many tower placements".to_owned())?;
        let mut routes: Vec<Box<dyn map::Routes>> = match args.towers_on {
            TowersOn::Every => roster
                .iter()
                .filter_map(|contender| contender.routes(&map))
                .collect(),
            TowersOn::Map => Vec::new(),
        };
        let mut peers: Vec<&mut dyn map::Routes> = routes
            .iter_mut()
            .map(|routes| &mut **routes as &mut dyn map::Routes)
            .collect();
        let plan = map.plan_towers(placements, args.seed, &goals, &mut peers)?;
        let doors = draw_doors(&map.grid, args.doors, args.seed, &plan.cells);
        Ok(Self {
            map,
            goals,
            agent_goals,
            first_cells,
            towers: plan.cells,
            shared_towers: plan.shared,
            speed: args.speed,
            frames,
            paced: !args.unpaced,
            doors,
            tower_side: args.tower_side,
        })
    }

    /// The cells of the tower planned at `tower`: the square of [`Scenario::tower_side`] cells
    /// a side from it, clipped to the map, without the spawns and goals; `tower` first.
    pub fn tower_cells(&self, tower: Cell) -> Vec<Cell> {
        let size = self.map.size();
        let kept = |cell: &Cell| !self.map.spawns.contains(cell) && !self.goals.contains(cell);
        (0..self.tower_side)
            .flat_map(|dy| (0..self.tower_side).map(move |dx| (dx, dy)))
            .filter_map(|(dx, dy)| {
                let cell = Cell::new(tower.x.checked_add(dx)?, tower.y.checked_add(dy)?);
                (cell.x < size && cell.y < size).then_some(cell)
            })
            .filter(kept)
            .collect()
    }

    /// The door toggled at placement `index`, if the run has doors.
    pub fn door_at(&self, index: usize) -> Option<usize> {
        (!self.doors.is_empty()).then(|| index % self.doors.len())
    }

    /// The duration of one frame.
    pub fn frame_duration() -> Duration {
        Duration::from_secs(1) / FRAME_RATE
    }

    /// The placement made just before measured frame `frame` (counted from 1), if any: its
    /// index and cell. Towers go down every [`PLACEMENT_INTERVAL`] frames.
    pub fn placement_at(&self, frame: u64) -> Option<(usize, Cell)> {
        if frame == 0 || !frame.is_multiple_of(PLACEMENT_INTERVAL) {
            return None;
        }
        let index = usize::try_from(frame / PLACEMENT_INTERVAL - 1).ok()?;
        self.towers.get(index).map(|&cell| (index, cell))
    }

    /// The goal agent `agent` walks to.
    pub fn goal_of(&self, agent: usize) -> Cell {
        self.agent_goals
            .get(agent)
            .copied()
            .unwrap_or(self.map.goal)
    }

    /// The spawn agent `agent` starts its walk number `life` from (its first walk, life 0,
    /// starts from its first cell instead).
    pub fn spawn_for(&self, agent: usize, life: u32) -> Cell {
        let spawns = &self.map.spawns;
        spawns[(agent + life as usize) % spawns.len()]
    }

    /// Sleeps out the rest of a frame that began at `started`, when frames are paced.
    pub fn pace(&self, started: Instant) {
        if self.paced
            && let Some(rest) = Self::frame_duration().checked_sub(started.elapsed())
        {
            std::thread::sleep(rest);
        }
    }
}

/// The world position of the centre of `cell`: cells are one world unit wide, cell (0, 0) at
/// the origin (as `NavGrid::new` places them).
pub fn cell_center(cell: Cell) -> Vec2 {
    Vec2::new(cell.x as f32 + 0.5, cell.y as f32 + 0.5)
}

/// The cell containing a world position on a `size` x `size` map, if inside it.
pub fn cell_at(position: Vec2, size: u32) -> Option<Cell> {
    let inside = position.is_finite()
        && position.x >= 0.0
        && position.y >= 0.0
        && position.x < size as f32
        && position.y < size as f32;
    inside.then(|| Cell::new(position.x as u32, position.y as u32))
}

/// One library under the scenario. [`drive`] calls it in the same order for every library:
/// [`Contender::build_app`] once; then each warm-up frame `app.update()`,
/// [`Contender::after_update`], [`Contender::settled`], [`Contender::restart_finished`]; then
/// each measured frame [`Contender::place_tower`] when a tower is due, `app.update()`,
/// [`Contender::plugin_spans`], [`Contender::searches_for_changes`],
/// [`Contender::update_watch`], [`Contender::waiting`], [`Contender::after_update`] (timed as
/// game code) and [`Contender::restart_finished`]. [`Contender::counters`] is read after the
/// warm-up and at the end.
pub trait Contender {
    /// Its name in the table and the JSON line.
    fn library(&self) -> &'static str;
    /// How it searches, in a few words.
    fn search(&self) -> String;
    /// The system sets whose time [`Contender::plugin_spans`] splits, if the library has any.
    fn plugin_sets(&self) -> &'static [&'static str] {
        &[]
    }
    /// The game code its model needs each frame (run by [`Contender::after_update`]), if any.
    fn game_code(&self) -> Option<&'static str> {
        None
    }
    /// Its own routes on `map`, so that towers go where its agents walk too (`None` for this
    /// project's plugin, whose routes the tower plan searches itself).
    fn routes(&self, map: &map::TowerMap) -> Option<Box<dyn map::Routes>> {
        let _ = map;
        None
    }
    /// The headless app: `MinimalPlugins`, the library's plugin and map, the agents at their
    /// first cells, and [`record::stamp`] systems around the library's systems.
    fn build_app(&self, scenario: &Scenario) -> App;
    /// The library's main-thread time this frame, and its split by [`Contender::plugin_sets`],
    /// from the frame's timestamps.
    ///
    /// # Errors
    /// When a timestamp system did not run.
    fn plugin_spans(&self, stamps: &FrameStamps) -> Result<(Duration, Vec<Duration>), String>;
    /// The game code the library needs after each frame (moving agents it does not move).
    fn after_update(&self, world: &mut World, scenario: &Scenario) {
        let _ = (world, scenario);
    }
    /// Whether every agent has its first path and no search is pending.
    fn settled(&self, world: &mut World) -> bool;
    /// Restarts the agents that reached the goal or whose search failed; returns (arrivals,
    /// failures).
    fn restart_finished(&self, world: &mut World, scenario: &Scenario) -> (u64, u64);
    /// Blocks `tower`, restarts the agents standing on it and does whatever the library needs
    /// for the agents whose path ahead crosses it; returns the placement and the cut agents.
    ///
    /// # Errors
    /// When the tower cannot be placed.
    fn place_tower(
        &self,
        world: &mut World,
        scenario: &Scenario,
        tower: Cell,
    ) -> Result<(Placement, Vec<Watched>), String>;
    /// Closes door `door` of the scenario if it is open, opens it if it is closed (a library
    /// without links has no doors: nothing to do).
    ///
    /// # Errors
    /// When the door is not on the library's map.
    fn toggle_door(&self, world: &mut World, door: usize) -> Result<(), String> {
        let _ = (world, door);
        Ok(())
    }
    /// A running count of the searches the library itself started because of map changes, for
    /// libraries that find the paths an edit cuts (`None` where the game code does).
    fn searches_for_changes(&self, world: &World) -> Option<u64> {
        let _ = world;
        None
    }
    /// A running count of the agents whose path the library checked against map changes on
    /// the main thread (`None` where it does not count them).
    fn checked_for_changes(&self, world: &World) -> Option<u64> {
        let _ = world;
        None
    }
    /// After frame `frame`: tells `watch` how every watched agent stands.
    ///
    /// # Errors
    /// When the library's map is missing.
    fn update_watch(
        &self,
        world: &mut World,
        frame: u64,
        watch: &mut RepathWatch,
        placements: &mut [Placement],
    ) -> Result<(), String>;
    /// Agents waiting for a new path.
    fn waiting(&self, world: &mut World) -> usize;
    /// The library's running counters.
    fn counters(&self, world: &World) -> Counters;
    /// Called once the warm-up is over, before the first measured frame.
    fn begin_measurement(&self, world: &mut World) {
        let _ = world;
    }
    /// What the crowd meter saw over the measured frames, for contenders that run one.
    fn crowd_figures(&self, world: &World) -> Option<crowd_meter::CrowdFigures> {
        let _ = world;
        None
    }
}

/// Refuses the sharing arguments that contradict each other or another option.
///
/// # Errors
/// `--shared-min` with `--shared off`, `--shared both` with `--crowd` (each runs
/// `bevy_astar` twice), `--density` without `--crowd`, and a weight that is not positive.
fn check_sharing(args: &AgentsArgs) -> Result<(), String> {
    if args.shared == SharedChoice::Off && args.shared_min.is_some() {
        return Err(
            "--shared-min sets the threshold of sharing, which --shared off turns off".to_owned(),
        );
    }
    if args.shared == SharedChoice::Both && args.crowd {
        return Err(
            "--shared both and --crowd each run bevy_astar twice side by side: choose one"
                .to_owned(),
        );
    }
    if args.density != DensityChoice::Off && !args.crowd {
        return Err("--density weighs the crowd of --crowd: add --crowd".to_owned());
    }
    if !(args.density_weight > 0.0 && args.density_weight.is_finite()) {
        return Err("--density-weight must be a positive number".to_owned());
    }
    Ok(())
}

/// Every contender, this project's plugin first; with `--crowd`, the plugin without and with
/// avoidance (with density-aware routes as `--density` says); with `--shared both`, the plugin with and without shared goal trees, then
/// `bevy_northstar` (not run, but its routes place the towers as in every other run).
fn roster(args: &AgentsArgs) -> Vec<Box<dyn Contender>> {
    if args.crowd {
        let weight = args.density_weight;
        let mut roster: Vec<Box<dyn Contender>> = vec![Box::new(ours::Ours::new(args))];
        if args.density != DensityChoice::On {
            roster.push(Box::new(ours::Ours::new(args).with_crowd()));
        }
        if args.density != DensityChoice::Off {
            let dense = ours::Ours::new(args).with_crowd().with_density(weight);
            roster.push(Box::new(dense));
        }
        return roster;
    }
    let northstar: Box<dyn Contender> = Box::new(northstar::Northstar::new(args.northstar_mode));
    if args.doors > 0 {
        return vec![
            Box::new(ours::Ours::new(args).labelled("doors")),
            Box::new(ours::Ours::new(args).without_doors().labelled("no doors")),
            northstar,
        ];
    }
    if args.shared == SharedChoice::Both {
        return vec![
            Box::new(ours::Ours::new(args).labelled("shared")),
            Box::new(ours::Ours::new(args).with_own_paths().labelled("own paths")),
            northstar,
        ];
    }
    vec![Box::new(ours::Ours::new(args)), northstar]
}

/// How many contenders of the roster run, from the first: this project's plugin alone with
/// `--peer none`, its variants with `--crowd` (two, three with `--density both`),
/// `--shared both` or `--doors` (with the doors and without), else all of them.
fn contenders_run(args: &AgentsArgs, roster: usize) -> usize {
    if args.crowd {
        roster
    } else if args.shared == SharedChoice::Both || args.doors > 0 {
        2
    } else if args.peer == Peer::None {
        1
    } else {
        roster
    }
}

/// Runs `pathbench agents`; `Ok(true)` unless a hard error stopped it.
pub fn run(args: &AgentsArgs) -> Result<bool, String> {
    let roster = roster(args);
    let scenario = Scenario::new(args, &roster)?;
    eprintln!(
        "agents: {} agents on a {size}x{size} map, {} goals, {} towers over {} frames",
        scenario.first_cells.len(),
        scenario.goals.len(),
        scenario.towers.len(),
        scenario.frames,
        size = args.size,
    );
    let mut runs = Vec::new();
    for contender in roster.iter().take(contenders_run(args, roster.len())) {
        eprintln!("agents: warming up {}", contender.library());
        runs.push(drive::run(&**contender, &scenario)?);
    }
    report::print(args, &scenario, &runs);
    if let Some(path) = &args.frame_times {
        std::fs::write(path, report::frame_times(&scenario, &runs))
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    Ok(true)
}

/// What a door of `--doors` costs: two straight steps, so that a follower at the default 4
/// cells a second waits half a second at it.
pub const DOOR_COST: f64 = 2.0;

/// `count` doors: links both ways between walkable cells of `grid` drawn from `seed` (none
/// on a `tower` cell, and ends at least a quarter of the map apart), each costing
/// [`DOOR_COST`], so that it is a shortcut agents take.
fn draw_doors(
    grid: &astar_grid::Grid,
    count: usize,
    seed: u64,
    towers: &[Cell],
) -> Vec<astar_grid::Link> {
    let towers: std::collections::HashSet<Cell> = towers.iter().copied().collect();
    let walkable: Vec<Cell> = grid
        .cells()
        .filter(|&(cell, value)| value != 0 && !towers.contains(&cell))
        .map(|(cell, _)| cell)
        .collect();
    let mut random = crate::random::SeededRandom::new(seed ^ 0xD005);
    let apart = f64::from(grid.width().max(grid.height()) / 4);
    let mut doors = Vec::with_capacity(count);
    for _ in 0..count.saturating_mul(64) {
        if doors.len() == count || walkable.is_empty() {
            break;
        }
        let mut pick = || walkable[random.below(walkable.len() as u64) as usize];
        let (from, to) = (pick(), pick());
        let distance = f64::from(from.x.abs_diff(to.x)).hypot(f64::from(from.y.abs_diff(to.y)));
        if distance >= apart {
            doors.push(astar_grid::Link::new(from, to, DOOR_COST));
        }
    }
    doors
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::Grid;
    use bevy::prelude::Resource;
    use bevy_astar::NavGrid;
    use record::RunRecord;

    fn small_args(peer: Peer) -> AgentsArgs {
        AgentsArgs {
            agents: 40,
            seconds: 2,
            size: 64,
            seed: 9,
            peer,
            northstar_mode: NorthstarSearch::Refined,
            repair_cut_paths: false,
            goal_batch_min: None,
            max_paths_applied_per_frame: None,
            stage_budget_us: None,
            background_pause: None,
            search_thread: None,
            frame_times: None,
            speed: 6.0,
            unpaced: false,
            crowd: false,
            planning_interval: None,
            goals: 1,
            shared: SharedChoice::On,
            shared_min: None,
            density: DensityChoice::Off,
            density_weight: 1.0,
            doors: 0,
            hierarchical: false,
            towers_on: TowersOn::Every,
            tower_side: 1,
        }
    }

    fn small_scenario(peer: Peer) -> Scenario {
        let args = small_args(peer);
        Scenario::new(&args, &roster(&args)).unwrap()
    }

    #[test]
    fn a_tower_of_several_cells_is_a_square_clipped_to_the_map_and_off_spawns_and_goals() {
        let mut args = small_args(Peer::None);
        args.tower_side = 3;
        let roster = roster(&args);
        let scenario = Scenario::new(&args, &roster).unwrap();
        let tower = scenario.towers[0];
        let square = scenario.tower_cells(tower);
        assert_eq!(square.first(), Some(&tower));
        assert!(
            square
                .iter()
                .all(|cell| cell.x - tower.x < 3 && cell.y - tower.y < 3)
        );
        // At the map's corner it is clipped; on a spawn or the goal it leaves them open.
        assert_eq!(scenario.tower_cells(Cell::new(63, 63)), [Cell::new(63, 63)]);
        let spawn = scenario.map.spawns[0];
        assert!(!scenario.tower_cells(spawn).contains(&spawn));
        assert!(
            !scenario
                .tower_cells(scenario.map.goal)
                .contains(&scenario.map.goal)
        );
        args.tower_side = 9;
        assert!(Scenario::new(&args, &roster).is_err());
        // Its placement blocks the whole square.
        let ours = &roster[0];
        let mut app = ours.build_app(&scenario);
        let (placement, _) = ours.place_tower(app.world_mut(), &scenario, tower).unwrap();
        assert_eq!(placement.tower, tower);
        let nav = app.world().resource::<NavGrid>();
        assert!(square.iter().all(|&cell| !nav.is_walkable(cell)));
    }

    #[test]
    fn doors_lie_apart_from_the_towers_and_toggle_at_every_placement() {
        let mut args = small_args(Peer::None);
        args.doors = 3;
        let roster = roster(&args);
        let scenario = Scenario::new(&args, &roster).unwrap();
        assert_eq!(scenario.doors.len(), 3);
        for door in &scenario.doors {
            assert!(!scenario.towers.contains(&door.from) && !scenario.towers.contains(&door.to));
            assert!(
                scenario.map.grid.is_walkable(door.from) && scenario.map.grid.is_walkable(door.to)
            );
        }
        assert_eq!(scenario.door_at(4), Some(1));
        let ours = &roster[0];
        let mut app = ours.build_app(&scenario);
        ours.toggle_door(app.world_mut(), 1).unwrap();
        let nav = app.world().resource::<NavGrid>();
        let open: Vec<bool> = nav
            .grid()
            .links()
            .iter()
            .map(|(_, link)| link.open)
            .collect();
        assert_eq!(open, [true, false, true]);
        assert!(nav.has_pending_changes());
        let record = drive::run(&**ours, &scenario).unwrap();
        assert_eq!(record.placements.len(), scenario.towers.len());
    }

    #[test]
    fn every_contender_records_every_frame_and_every_placement() {
        let args = small_args(Peer::Northstar);
        let roster = roster(&args);
        let scenario = Scenario::new(&args, &roster).unwrap();
        assert_eq!(scenario.towers.len(), 3);
        assert_eq!(scenario.first_cells.len(), 40);
        assert_eq!(roster.len(), 2);
        for contender in &roster {
            let record = drive::run(&**contender, &scenario).unwrap();
            assert_eq!(record.plugin.frames.len(), 120, "{}", record.library);
            let game_frames = if contender.game_code().is_some() {
                120
            } else {
                0
            };
            assert_eq!(record.game.frames.len(), game_frames, "{}", record.library);
            assert_eq!(
                record.plugin_sets.len(),
                contender.plugin_sets().len(),
                "{}",
                record.library
            );
            let towers: Vec<Cell> = record.placements.iter().map(|p| p.tower).collect();
            assert_eq!(towers, scenario.towers, "{}", record.library);
            for series in &record.plugin_sets {
                assert_eq!(series.frames.len(), 120);
            }
            let table = report::frame_times(&scenario, core::slice::from_ref(&record));
            let lines: Vec<&str> = table.lines().collect();
            assert_eq!(lines.len(), 121, "{}", record.library);
            let columns = 4 + record.plugin_sets.len();
            assert_eq!(lines[0].split(' ').count(), columns);
            let towers_marked = lines[1..]
                .iter()
                .filter(|line| {
                    let fields: Vec<&str> = line.split(' ').collect();
                    assert_eq!(fields.len(), columns, "{line}");
                    fields[2] == "1"
                })
                .count();
            assert_eq!(towers_marked, scenario.towers.len(), "{}", record.library);
            assert!(record.warmup_frames > 0);
            assert_eq!(record.failures, 0, "{}", record.library);
            for placement in &record.placements {
                assert!(placement.left + placement.failed <= placement.cut);
                if placement.cut == 0 {
                    assert_eq!(placement.frames_to_repath, None);
                }
            }
        }
    }

    #[test]
    fn a_crowd_run_sets_avoiding_agents_beside_plain_ones_and_meters_both() {
        let args = AgentsArgs {
            crowd: true,
            planning_interval: None,
            unpaced: true,
            ..small_args(Peer::Northstar)
        };
        let roster = roster(&args);
        let libraries: Vec<&str> = roster.iter().map(|contender| contender.library()).collect();
        assert_eq!(libraries, ["bevy_astar", "bevy_astar+orca"]);
        let scenario = Scenario::new(&args, &roster).unwrap();
        let runs: Vec<RunRecord> = roster
            .iter()
            .map(|contender| drive::run(&**contender, &scenario).unwrap())
            .collect();
        let figures: Vec<_> = runs.iter().map(|run| run.crowd.unwrap()).collect();
        // 120 measured frames, a sample every 10.
        assert!(figures.iter().all(|figures| figures.samples == 12));
        // Plain followers on shared routes stand in each other; avoiding ones hardly.
        assert!(figures[0].penetration_p99 > 0.5, "{:?}", figures[0]);
        assert!(figures[1].penetration_p99 < 0.1, "{:?}", figures[1]);
        assert!(runs.iter().all(|run| run.cpu_time.is_some()));
    }

    #[test]
    fn arguments_out_of_range_are_refused() {
        let args = |agents, seconds, size, speed| AgentsArgs {
            agents,
            seconds,
            size,
            seed: 1,
            peer: Peer::None,
            northstar_mode: NorthstarSearch::Refined,
            repair_cut_paths: false,
            goal_batch_min: None,
            max_paths_applied_per_frame: None,
            stage_budget_us: None,
            background_pause: None,
            search_thread: None,
            frame_times: None,
            speed,
            unpaced: true,
            crowd: false,
            planning_interval: None,
            goals: 1,
            shared: SharedChoice::On,
            shared_min: None,
            density: DensityChoice::Off,
            density_weight: 1.0,
            doors: 0,
            hierarchical: false,
            towers_on: TowersOn::Every,
            tower_side: 1,
        };
        let scenario = |args: AgentsArgs| Scenario::new(&args, &roster(&args));
        assert!(scenario(args(0, 1, 64, 1.0)).is_err());
        assert!(scenario(args(1, 0, 64, 1.0)).is_err());
        assert!(scenario(args(1, 1, 63, 1.0)).is_err());
        assert!(scenario(args(1, 1, 64, f32::NAN)).is_err());
        assert!(scenario(args(1, 1, 64, 1.0)).is_ok());
        assert_eq!(
            small_scenario(Peer::None).placement_at(30),
            Some((0, small_scenario(Peer::None).towers[0]))
        );
    }

    /// The command line of `pathbench agents` alone, to parse its arguments.
    #[derive(clap::Parser)]
    struct AgentsCommand {
        #[command(flatten)]
        args: AgentsArgs,
    }

    fn parse(line: &[&str]) -> Result<AgentsArgs, clap::Error> {
        use clap::Parser;
        let words = core::iter::once("agents").chain(line.iter().copied());
        AgentsCommand::try_parse_from(words).map(|command| command.args)
    }

    /// The name of every contender that runs and what `read` reads of its app's resource `R`.
    fn settings_of<R: Resource, T>(
        args: &AgentsArgs,
        read: impl Fn(&R) -> T,
    ) -> Vec<(&'static str, T)> {
        let listed = roster(args);
        let scenario = Scenario::new(args, &listed).unwrap();
        listed
            .iter()
            .take(contenders_run(args, listed.len()))
            .map(|contender| {
                let app = contender.build_app(&scenario);
                (contender.library(), read(app.world().resource::<R>()))
            })
            .collect()
    }

    /// The name and the sharing threshold of every contender that runs, read from its app.
    fn sharing_of(args: &AgentsArgs) -> Vec<(&'static str, usize)> {
        settings_of(args, |settings: &bevy_astar::PathfindingSettings| {
            settings.shared_goal_min_agents
        })
    }

    #[test]
    fn the_shared_option_is_parsed_and_sets_the_threshold_of_each_run() {
        let defaults = bevy_astar::PathfindingSettings::default().shared_goal_min_agents;
        let small = [
            "--size",
            "64",
            "--agents",
            "40",
            "--seconds",
            "1",
            "--peer",
            "none",
        ];
        let parse_small = |line: &[&str]| parse(&[&small[..], line].concat());
        let plain = parse_small(&[]).unwrap();
        assert_eq!(
            (plain.shared, plain.shared_min, plain.goals),
            (SharedChoice::On, None, 1)
        );
        assert_eq!(sharing_of(&plain), [("bevy_astar", defaults)]);
        let off = parse_small(&["--shared", "off"]).unwrap();
        assert_eq!(off.shared, SharedChoice::Off);
        assert_eq!(sharing_of(&off), [("bevy_astar", 0)]);
        let at = parse_small(&["--shared-min", "7"]).unwrap();
        assert_eq!(sharing_of(&at), [("bevy_astar", 7)]);
        let both = parse_small(&["--shared", "both", "--shared-min", "5", "--goals", "4"]).unwrap();
        assert_eq!(
            (both.shared, both.shared_min, both.goals),
            (SharedChoice::Both, Some(5), 4)
        );
        assert_eq!(sharing_of(&both), [("shared", 5), ("own paths", 0)]);
        // --peer is ignored with both: bevy_northstar stays in the roster for the towers only.
        let listed = roster(&both);
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[2].library(), "bevy_northstar");
        assert_eq!(contenders_run(&both, listed.len()), 2);
        assert!(parse(&["--shared", "sometimes"]).is_err());
        assert!(parse(&["--shared-min", "-1"]).is_err());
        // Contradictions are refused before anything runs.
        let refused = |line: &[&str]| {
            let args = parse_small(line).unwrap();
            Scenario::new(&args, &roster(&args)).err()
        };
        assert!(refused(&["--shared", "off", "--shared-min", "8"]).is_some());
        assert!(refused(&["--shared", "both", "--crowd"]).is_some());
        assert!(refused(&["--goals", "0"]).is_some());
        assert!(refused(&["--shared", "both", "--goals", "2"]).is_none());
    }

    /// The name and the route density weight of every contender that runs, read from its app.
    fn density_of(args: &AgentsArgs) -> Vec<(&'static str, f32)> {
        settings_of(args, |settings: &bevy_astar::CrowdSettings| {
            settings.route_density_weight
        })
    }

    #[test]
    fn the_density_option_adds_or_replaces_the_avoiding_run() {
        let small = [
            "--size",
            "64",
            "--agents",
            "40",
            "--seconds",
            "1",
            "--crowd",
        ];
        let parse_small = |extra: &[&str]| {
            let line: Vec<&str> = small.iter().chain(extra).copied().collect();
            parse(&line)
        };
        let off = parse_small(&[]).unwrap();
        assert_eq!(
            density_of(&off),
            [("bevy_astar", 0.0), ("bevy_astar+orca", 0.0)]
        );
        let on = parse_small(&["--density", "on", "--density-weight", "2"]).unwrap();
        assert_eq!(
            density_of(&on),
            [("bevy_astar", 0.0), ("bevy_astar+orca+density", 2.0)]
        );
        let both = parse_small(&["--density", "both"]).unwrap();
        assert_eq!(
            density_of(&both),
            [
                ("bevy_astar", 0.0),
                ("bevy_astar+orca", 0.0),
                ("bevy_astar+orca+density", 1.0)
            ]
        );
        let refused = |line: &[&str]| {
            let args = parse(line).unwrap();
            Scenario::new(&args, &roster(&args)).err()
        };
        assert!(refused(&["--density", "on"]).is_some());
        assert!(refused(&["--crowd", "--density", "on", "--density-weight", "0"]).is_some());
        assert!(parse(&["--density", "sometimes"]).is_err());
    }

    #[test]
    fn agents_on_shared_trees_are_re_pathed_without_being_checked() {
        let args = AgentsArgs {
            agents: 60,
            seconds: 4,
            goals: 2,
            shared: SharedChoice::Both,
            shared_min: Some(8),
            unpaced: true,
            ..small_args(Peer::Northstar)
        };
        let listed = roster(&args);
        let scenario = Scenario::new(&args, &listed).unwrap();
        let runs: Vec<RunRecord> = listed
            .iter()
            .take(contenders_run(&args, listed.len()))
            .map(|contender| drive::run(&**contender, &scenario).unwrap())
            .collect();
        let [shared, own] = &runs[..] else {
            panic!("{} runs", runs.len());
        };
        assert_eq!((shared.library, own.library), ("shared", "own paths"));
        assert!(shared.sharing.unwrap().trees >= 1, "{:?}", shared.sharing);
        assert_eq!(own.sharing.unwrap().trees, 0);
        let checked = |run: &RunRecord| -> u64 {
            run.placements
                .iter()
                .map(|placement| placement.checked.unwrap())
                .sum()
        };
        assert!(checked(own) > 0);
        assert!(checked(shared) < checked(own), "{}", checked(shared));
        // Their revision never changes, yet the measure sees them on shortest paths again.
        let repathed = |run: &RunRecord| {
            run.placements
                .iter()
                .filter(|placement| placement.cut > 0 && placement.frames_to_repath.is_some())
                .count()
        };
        assert!(repathed(shared) > 0, "{:?}", shared.placements);
        assert!(repathed(own) > 0, "{:?}", own.placements);
    }

    #[test]
    fn agents_walk_to_the_goals_of_the_scenario() {
        let args = AgentsArgs {
            goals: 3,
            ..small_args(Peer::None)
        };
        let scenario = Scenario::new(&args, &roster(&args)).unwrap();
        assert_eq!(scenario.goals.len(), 3);
        assert_eq!(scenario.goals[0], scenario.map.goal);
        assert_eq!(scenario.agent_goals.len(), 40);
        for goal in &scenario.goals {
            assert!(scenario.agent_goals.contains(goal), "{goal}: nobody");
        }
        let contender = ours::Ours::new(&args);
        let mut app = contender.build_app(&scenario);
        let mut requests = app.world_mut().query::<&bevy_astar::PathRequest>();
        let mut goals: Vec<Cell> = requests
            .iter(app.world())
            .map(|request| request.goal)
            .collect();
        let mut expected = scenario.agent_goals.clone();
        goals.sort_unstable_by_key(|cell| (cell.x, cell.y));
        expected.sort_unstable_by_key(|cell| (cell.x, cell.y));
        assert_eq!(goals, expected);
    }

    #[test]
    fn cell_positions_agree_with_the_plugins_grid() {
        let nav = NavGrid::new(Grid::new(20, 10));
        for (x, y) in [(0, 0), (19, 9), (7, 3)] {
            let cell = Cell::new(x, y);
            let center = cell_center(cell);
            assert_eq!(center, nav.cell_center(cell));
            assert_eq!(cell_at(center, 20), Some(cell));
            for offset in [Vec2::new(0.49, -0.49), Vec2::new(-0.5, 0.0)] {
                assert_eq!(
                    cell_at(center + offset, 20).filter(|cell| cell.y < 10),
                    nav.world_to_cell(center + offset)
                );
            }
        }
        assert_eq!(cell_at(Vec2::new(-0.1, 3.0), 20), None);
        assert_eq!(cell_at(Vec2::new(20.0, 3.0), 20), None);
    }
}
