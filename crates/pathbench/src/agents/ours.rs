//! This project's plugin as a contender: `AStarPlugin` with its default settings (or those the
//! arguments change), agents with a `PathRequest` and a `PathFollower`, towers blocked through
//! `NavGrid::block`.
//!
//! The plugin finds the agents a map change affects and searches them again in the background;
//! their requests set `PathRequest::start_at_agent`, so that a new path leads on from the cell
//! the agent has got to. Agents walk their old path while they wait for the new one. Agents on a
//! goal's shared tree (`shared_goal_min_agents`) are not searched again: the tree is updated,
//! and their route ahead follows it. The plugin moves them itself: there is no game code to
//! time.
//!
//! An agent a tower cut counts as re-pathed once its cells ahead (on a shared route, the tree's
//! route from the cell it stands on; on a path of its own, the path from where its follower
//! is) avoid every blocked cell and cost what an optimal path from there costs on the map as it
//! is now ([`super::optimum`]).

use super::crowd_meter::{CrowdFigures, CrowdMeter, Indexed, meter_crowd};
use super::optimum::{OptimalCosts, legal_to_goal, on_shortest_path};
use super::record::{
    Counters, FrameStamps, Placement, Repath, RepathWatch, Sharing, Watched, stamp,
};
use super::{
    AgentsArgs, Contender, PauseChoice, Scenario, SharedChoice, ThreadChoice, cell_at, cell_center,
};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An agent of the benchmark: its number, how many walks it started and its goal.
#[derive(Component)]
struct Walker {
    index: usize,
    life: u32,
    goal: Cell,
}

/// `AStarPlugin` under the scenario, with the settings the arguments change.
pub struct Ours {
    /// Its name in the table.
    label: &'static str,
    settings: PathfindingSettings,
    /// Whether the agents avoid each other (`CrowdAvoidance`).
    crowd: bool,
    /// Whether an agent arrives anywhere within [`GOAL_AREA`] of the goal (the `--crowd`
    /// scenario, in both of its runs), rather than on the goal cell at the end of its path.
    goal_area: bool,
    /// The crowd settings of the agents that avoid each other.
    crowd_settings: CrowdSettings,
    /// Whether the map has the scenario's doors (`--doors`), toggled at the placements.
    doors: bool,
    /// What the agents' requests search with (`--hierarchical`).
    algorithm: PathAlgorithm,
}

impl Ours {
    /// The contender with the settings of `args` (`--repair-cut-paths`, `--goal-batch-min`,
    /// `--max-paths-applied-per-frame`, `--stage-budget-us`, `--background-pause`,
    /// `--search-thread`, `--shared`, `--shared-min`) and the plugin's defaults for the rest.
    pub fn new(args: &AgentsArgs) -> Self {
        let defaults = PathfindingSettings::default();
        let shared_goal_min_agents = match args.shared {
            SharedChoice::Off => 0,
            SharedChoice::On | SharedChoice::Both => {
                args.shared_min.unwrap_or(defaults.shared_goal_min_agents)
            }
        };
        Self {
            label: "bevy_astar",
            settings: PathfindingSettings {
                shared_goal_min_agents,
                repair_cut_paths: args.repair_cut_paths,
                goal_batch_min: args.goal_batch_min.unwrap_or(defaults.goal_batch_min),
                max_paths_applied_per_frame: args
                    .max_paths_applied_per_frame
                    .unwrap_or(defaults.max_paths_applied_per_frame),
                stage_budget: args
                    .stage_budget_us
                    .map_or(defaults.stage_budget, Duration::from_micros),
                background_pause: args
                    .background_pause
                    .map_or(defaults.background_pause, PauseChoice::setting),
                search_thread: args
                    .search_thread
                    .map_or(defaults.search_thread, ThreadChoice::setting),
                ..defaults
            },
            crowd: false,
            goal_area: args.crowd,
            crowd_settings: CrowdSettings {
                planning_interval: args
                    .planning_interval
                    .unwrap_or(CrowdSettings::default().planning_interval),
                ..CrowdSettings::default()
            },
            doors: true,
            algorithm: if args.hierarchical {
                PathAlgorithm::Hierarchical
            } else {
                PathAlgorithm::AStar
            },
        }
    }

    /// The same contender with agents that avoid each other.
    #[must_use]
    pub const fn with_crowd(mut self) -> Self {
        self.crowd = true;
        self.label = "bevy_astar+orca";
        self
    }

    /// The same contender with density-aware routes at `weight`
    /// (`CrowdSettings::route_density_weight`).
    #[must_use]
    pub fn with_density(mut self, weight: f32) -> Self {
        self.crowd_settings.route_density_weight = weight;
        self.label = "bevy_astar+orca+density";
        self
    }

    /// The same contender with sharing off: every agent gets a path of its own.
    #[must_use]
    pub const fn with_own_paths(mut self) -> Self {
        self.settings.shared_goal_min_agents = 0;
        self
    }

    /// The same contender on a map without the scenario's doors.
    #[must_use]
    pub const fn without_doors(mut self) -> Self {
        self.doors = false;
        self
    }

    /// The same contender, called `label` in the table.
    #[must_use]
    pub const fn labelled(mut self, label: &'static str) -> Self {
        self.label = label;
        self
    }
}

/// The movement rule and cost model of every agent's request (the defaults), for the optimum.
fn request_rules() -> (Movement, CostModel) {
    let options = SearchOptions::default();
    (options.movement, options.cost)
}

impl Indexed for Walker {
    fn index(&self) -> usize {
        self.index
    }
}

/// How near the goal's centre, in cells, an agent of the `--crowd` scenario has arrived,
/// wherever it is on its path: a crowd cannot pour into one cell, and a game's goal takes many
/// agents at once (as `tower_defense`'s does).
const GOAL_AREA: f32 = 3.0;

/// The headless app: the plugin, the grid, the agents and the timestamp systems.
fn build_app(
    (settings, algorithm): (&PathfindingSettings, PathAlgorithm),
    (scenario, grid): (&Scenario, Grid),
    crowd: Option<&CrowdSettings>,
) -> App {
    let mut app = App::new();
    let plugin = AStarPlugin::default().with_settings(settings.clone());

    app.add_plugins((MinimalPlugins, plugin, PathFollowPlugin, CrowdPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            Scenario::frame_duration(),
        ))
        .insert_resource(NavGrid::new(grid))
        .init_resource::<FrameStamps>()
        .init_resource::<CrowdMeter>()
        .init_resource::<OptimalCosts>()
        .add_systems(Last, meter_crowd::<Walker>)
        .add_systems(
            Update,
            (
                stamp::<0>.before(PathfindingSystems::Invalidate),
                stamp::<1>
                    .after(PathfindingSystems::Invalidate)
                    .before(PathfindingSystems::Dispatch),
                stamp::<2>
                    .after(PathfindingSystems::Dispatch)
                    .before(PathfindingSystems::Apply),
                stamp::<3>
                    .after(PathfindingSystems::Apply)
                    .before(PathfindingSystems::Follow),
                stamp::<4>.after(PathfindingSystems::Follow),
            ),
        );
    let speed = scenario.speed;
    app.world_mut()
        .spawn_batch(
            scenario
                .first_cells
                .iter()
                .enumerate()
                .map(|(index, &cell)| {
                    let goal = scenario.goal_of(index);
                    (
                        PathRequest::new(cell, goal)
                            .with_start_at_agent(true)
                            .with_algorithm(algorithm),
                        PathFollower::new(speed),
                        Transform::from_translation(cell_center(cell).extend(0.0)),
                        Walker {
                            index,
                            life: 0,
                            goal,
                        },
                    )
                })
                .collect::<Vec<_>>(),
        )
        .for_each(drop);
    if let Some(crowd) = crowd {
        app.insert_resource(crowd.clone());
        let mut walkers = app.world_mut().query_filtered::<Entity, With<Walker>>();
        let entities: Vec<Entity> = walkers.iter(app.world()).collect();
        for entity in entities {
            app.world_mut()
                .entity_mut(entity)
                .insert(CrowdAvoidance::default());
        }
    }
    app.finish();
    app.cleanup();
    app
}

/// Starts a new walk at a spawn: the agent is moved there and its request changed (marked
/// changed even when the start is the same, so that a new path is applied).
fn restart(
    scenario: &Scenario,
    walker: &mut Walker,
    transform: &mut Transform,
    request: &mut Mut<PathRequest>,
) {
    walker.life += 1;
    let spawn = scenario.spawn_for(walker.index, walker.life);
    transform.translation = cell_center(spawn).extend(0.0);
    request.start = spawn;
    request.set_changed();
}

/// Restarts agents that reached the goal or whose search failed; returns (arrivals, failures).
fn restart_finished(world: &mut World, scenario: &Scenario, goal_area: bool) -> (u64, u64) {
    let size = scenario.map.size();
    let mut agents = world.query::<(
        &mut Walker,
        &Path,
        &PathFollower,
        &mut Transform,
        &mut PathRequest,
    )>();
    let (mut arrivals, mut failures) = (0, 0);
    for (mut walker, path, follower, mut transform, mut request) in agents.iter_mut(world) {
        let failed = path.status.failure().is_some();
        let position = transform.translation.truncate();
        let goal = walker.goal;
        let arrived = path.is_found()
            && if goal_area {
                position.distance(cell_center(goal)) <= GOAL_AREA
            } else {
                follower.is_finished() && cell_at(position, size) == Some(goal)
            };
        if failed || arrived {
            arrivals += u64::from(arrived);
            failures += u64::from(failed);
            restart(scenario, &mut walker, &mut transform, &mut request);
        }
    }
    (arrivals, failures)
}

/// Agents whose new path is still to come (queued or being searched).
fn waiting(world: &mut World) -> usize {
    let mut paths = world.query::<&Path>();
    paths
        .iter(world)
        .filter(|path| path.status.is_pending())
        .count()
}

/// Whether every agent has its first path and nothing is queued or running.
fn settled(world: &mut World) -> bool {
    let stats = world.resource::<PathfindingStats>();
    if stats.queue_length > 0 || stats.in_flight > 0 {
        return false;
    }
    let mut paths = world.query::<&Path>();
    paths.iter(world).all(Path::is_found)
}

/// The scenario's map with its doors.
fn grid_with_doors(scenario: &Scenario) -> Grid {
    let mut grid = scenario.map.grid.clone();
    for &door in &scenario.doors {
        // Drawn on walkable cells of this grid, apart from the towers: always valid.
        let _ = grid.add_link(door);
    }
    grid
}

/// Blocks `tower`, restarts the agents standing on it and lists the agents whose path ahead
/// includes it; returns the placement (search count still 0) and the cut agents.
///
/// # Errors
/// When the tower cell is outside the grid or already blocked.
fn place_tower(
    world: &mut World,
    scenario: &Scenario,
    tower: Cell,
) -> Result<(Placement, Vec<Watched>), String> {
    let size = scenario.map.size();
    let square = scenario.tower_cells(tower);
    let edit_started = Instant::now();
    let mut nav = world.resource_mut::<NavGrid>();
    let mut blocked = false;
    for &cell in &square {
        blocked |= nav.block(cell).map_err(|error| error.to_string())?;
    }
    let edit_time = edit_started.elapsed();
    if !blocked {
        return Err(format!("tower {tower} placed on blocked cells"));
    }
    let mut agents = world.query::<(
        Entity,
        &mut Walker,
        &Path,
        &PathFollower,
        &mut Transform,
        &mut PathRequest,
    )>();
    let mut cut = Vec::new();
    let mut crushed = 0;
    let mut shared_walks = RouteMemo::default();
    for (entity, mut walker, path, follower, mut transform, mut request) in agents.iter_mut(world) {
        if cell_at(transform.translation.truncate(), size).is_some_and(|at| square.contains(&at)) {
            crushed += 1;
            restart(scenario, &mut walker, &mut transform, &mut request);
            continue;
        }
        // Agents already queued again keep walking their old path: it counts too. A shared
        // route is still read from the tree before the change: the plugin updates it later.
        let walking = path.status.failure().is_none() && !follower.is_finished();
        if !walking {
            continue;
        }
        let position = transform.translation.truncate();
        let on_square = |cell: Cell| square.contains(&cell);
        let crosses = if path.is_shared() {
            // Routes of one goal join: each is walked only up to where an earlier one passed.
            cell_at(position, size).is_some_and(|from| {
                shared_walks.judge(path, from, on_square, |cell, _, after| {
                    after || on_square(cell)
                })
            })
        } else {
            with_cells_ahead(path, follower, position, size, |ahead| {
                ahead.iter().copied().any(on_square)
            })
        };
        if crosses {
            cut.push(Watched {
                entity,
                life: walker.life,
                revision: path.revision,
            });
        }
    }
    let placement = Placement {
        tower,
        cut: cut.len(),
        searched: 0,
        crushed,
        frames_to_repath: None,
        left: 0,
        failed: 0,
        edit_time,
        // The plugin finds the cut agents itself: the game has nothing to do.
        reaction_time: Duration::ZERO,
        checked: None,
    };
    Ok((placement, cut))
}

/// Calls `inspect` with the cells still ahead of an agent at `position` on a `size` x `size`
/// map: on a route on a goal's shared tree, the tree's route from the cell it stands on (the
/// follower's waypoint index means nothing there); on a path of its own, [`cells_ahead`] from
/// where its follower heads.
fn with_cells_ahead<R>(
    path: &Path,
    follower: &PathFollower,
    position: Vec2,
    size: u32,
    inspect: impl FnOnce(&[Cell]) -> R,
) -> R {
    if path.is_shared() {
        let cells = cell_at(position, size)
            .map(|cell| path.cells_from(cell))
            .unwrap_or_default();
        inspect(&cells)
    } else {
        let cells = path.cells();
        inspect(cells_ahead(&cells, follower, position))
    }
}

/// Most cells a walk along a shared route takes before it is judged to lead nowhere.
const MOST_ROUTE_CELLS: usize = 1 << 24;

/// Verdicts on the walks from cells along the shared routes of one goal, each cell's verdict
/// kept for the walk from it: routes that join an earlier walk cost their own cells only.
#[derive(Default)]
struct RouteMemo(HashMap<Cell, bool>);

impl RouteMemo {
    /// The verdict on the walk along `path` (a shared route) from `from`: walked a cell at a
    /// time ([`Path::next_cell`]) to a cell judged before or to its end, which `end` judges;
    /// then each cell walked, back to `from`, is judged by `verdict(cell, next, judged after)`.
    fn judge(
        &mut self,
        path: &Path,
        from: Cell,
        end: impl Fn(Cell) -> bool,
        verdict: impl Fn(Cell, Cell, bool) -> bool,
    ) -> bool {
        let mut walked = Vec::new();
        let mut at = from;
        let mut after = loop {
            if let Some(&known) = self.0.get(&at) {
                break known;
            }
            match path
                .next_cell(at)
                .filter(|_| walked.len() < MOST_ROUTE_CELLS)
            {
                Some(next) => {
                    walked.push(at);
                    at = next;
                }
                None => {
                    let judged = end(at);
                    self.0.insert(at, judged);
                    break judged;
                }
            }
        };
        let mut next = at;
        for &cell in walked.iter().rev() {
            after = verdict(cell, next, after);
            self.0.insert(cell, after);
            next = cell;
        }
        after
    }
}

/// How a cut agent stands: re-pathed once its cells ahead avoid every blocked cell of `grid`
/// (the map now) and cost what an optimal path from where it stands costs (`optimum` gives
/// the goal's costs on `grid`), or, where paths are not the shortest (`legal_only`: routes
/// that weigh the crowd, hierarchical paths), are a legal walk to the goal, for which no
/// optimum is measured; a path of its own must be a new one too, so that an agent that walked
/// through the tower before its new path came does not count. The error of the optimum is kept
/// in `failure`, and the agent counted as waiting.
fn repath_status(
    world: &World,
    (grid, size, legal_only): (&Arc<Grid>, u32, bool),
    (optimum, walks): (&mut OptimalCosts, &mut HashMap<Cell, RouteMemo>),
    agent: &Watched,
    failure: &mut Option<String>,
) -> Repath {
    let Ok(entity) = world.get_entity(agent.entity) else {
        return Repath::Left;
    };
    let (Some(walker), Some(path), Some(follower), Some(transform)) = (
        entity.get::<Walker>(),
        entity.get::<Path>(),
        entity.get::<PathFollower>(),
        entity.get::<Transform>(),
    ) else {
        return Repath::Left;
    };
    if walker.life != agent.life {
        return Repath::Left;
    }
    if path.status.failure().is_some() {
        return Repath::Failed;
    }
    if !path.is_found() || !(path.is_shared() || path.revision > agent.revision) {
        return Repath::Waiting;
    }
    let rules = request_rules();
    let position = transform.translation.truncate();
    let repathed = if legal_only && path.is_shared() {
        // The routes of one goal, judged once per cell: the frame's walks join.
        let memo = walks.entry(walker.goal).or_default();
        let goal = walker.goal;
        cell_at(position, size).is_some_and(|from| {
            let legal =
                |cell, next, after| after && grid.step_cost(cell, next, rules.0, rules.1).is_some();
            grid.is_walkable(from) && memo.judge(path, from, |cell| cell == goal, legal)
        })
    } else if legal_only {
        with_cells_ahead(path, follower, position, size, |ahead| {
            legal_to_goal(grid, walker.goal, ahead, rules.0, rules.1)
        })
    } else {
        let field = match optimum.field(grid, walker.goal, rules) {
            Ok(field) => field,
            Err(error) => {
                failure.get_or_insert(error);
                return Repath::Waiting;
            }
        };
        with_cells_ahead(path, follower, position, size, |ahead| {
            on_shortest_path(grid, field, ahead, rules.0, rules.1)
        })
    };
    if repathed {
        Repath::Done
    } else {
        Repath::Waiting
    }
}

impl Contender for Ours {
    fn library(&self) -> &'static str {
        self.label
    }

    fn search(&self) -> String {
        let settings = &self.settings;
        format!(
            "{} (8 neighbours, no corner cutting, octile), {}, result cache, {}, \
             at most {} paths applied a frame, {} us a stage{}",
            if self.algorithm == PathAlgorithm::Hierarchical {
                "the sector hierarchy (shared sector fields per goal)"
            } else {
                "A*"
            },
            match settings.search_thread {
                _ if !cfg!(feature = "multi_threaded") => "searches sliced on the main thread",
                SearchThread::TaskPool => "background tasks",
                SearchThread::IdleThreads => "background tasks on idle-priority threads",
                SearchThread::MainThread => "searches sliced on the main thread",
            },
            match settings.goal_batch_min {
                0 => "no goal batches".to_owned(),
                min => format!("goal batches of {min}+"),
            },
            settings.max_paths_applied_per_frame,
            settings.stage_budget.as_micros(),
            if settings.repair_cut_paths {
                "; cut paths repaired locally"
            } else {
                ""
            }
        ) + &match settings.shared_goal_min_agents {
            0 => "; no shared goal trees".to_owned(),
            min => format!("; a goal's tree shared from {min} agents"),
        } + if self.crowd {
            "; agents avoid each other (CrowdAvoidance: ORCA)"
        } else {
            ""
        }
    }

    fn plugin_sets(&self) -> &'static [&'static str] {
        &["Invalidate", "Dispatch", "Apply", "Follow"]
    }

    fn build_app(&self, scenario: &Scenario) -> App {
        let grid = if self.doors {
            grid_with_doors(scenario)
        } else {
            scenario.map.grid.clone()
        };
        build_app(
            (&self.settings, self.algorithm),
            (scenario, grid),
            self.crowd.then_some(&self.crowd_settings),
        )
    }

    fn begin_measurement(&self, world: &mut World) {
        world.resource_mut::<CrowdMeter>().begin();
    }

    fn crowd_figures(&self, world: &World) -> Option<CrowdFigures> {
        Some(world.resource::<CrowdMeter>().figures())
    }

    fn plugin_spans(&self, stamps: &FrameStamps) -> Result<(Duration, Vec<Duration>), String> {
        let sets = (0..4)
            .map(|set| stamps.between(set, set + 1))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((sets.iter().sum(), sets))
    }

    fn settled(&self, world: &mut World) -> bool {
        settled(world)
    }

    fn restart_finished(&self, world: &mut World, scenario: &Scenario) -> (u64, u64) {
        restart_finished(world, scenario, self.goal_area)
    }

    fn toggle_door(&self, world: &mut World, door: usize) -> Result<(), String> {
        if !self.doors {
            return Ok(());
        }
        let mut nav = world.resource_mut::<NavGrid>();
        let (id, open) = nav
            .grid()
            .links()
            .iter()
            .nth(door)
            .map(|(id, link)| (id, link.open))
            .ok_or_else(|| format!("no door {door} on the map"))?;
        nav.set_link_open(id, !open)
            .map(|_| ())
            .map_err(|error| error.to_string())
    }

    fn place_tower(
        &self,
        world: &mut World,
        scenario: &Scenario,
        tower: Cell,
    ) -> Result<(Placement, Vec<Watched>), String> {
        place_tower(world, scenario, tower)
    }

    fn searches_for_changes(&self, world: &World) -> Option<u64> {
        Some(world.resource::<PathfindingStats>().paths_invalidated)
    }

    fn checked_for_changes(&self, world: &World) -> Option<u64> {
        Some(
            world
                .resource::<PathfindingStats>()
                .agents_checked_for_changes,
        )
    }

    fn update_watch(
        &self,
        world: &mut World,
        frame: u64,
        watch: &mut RepathWatch,
        placements: &mut [Placement],
    ) -> Result<(), String> {
        if watch.unfinished() == 0 {
            return Ok(());
        }
        let grid = world.resource::<NavGrid>().snapshot();
        let size = grid.width();
        let legal_only = (self.crowd && self.crowd_settings.route_density_weight > 0.0)
            || self.algorithm == PathAlgorithm::Hierarchical;
        let mut failure = None;
        let mut walks = HashMap::new();
        world.resource_scope(|world, mut optimum: Mut<OptimalCosts>| {
            watch.update(frame, placements, |agent| {
                let map = (&grid, size, legal_only);
                let known = (&mut *optimum, &mut walks);
                repath_status(world, map, known, agent, &mut failure)
            });
        });
        failure.map_or(Ok(()), Err)
    }

    fn waiting(&self, world: &mut World) -> usize {
        waiting(world)
    }

    fn counters(&self, world: &World) -> Counters {
        let stats = world.resource::<PathfindingStats>();
        Counters {
            searches: stats.searches_started,
            repairs: Some(stats.paths_repaired),
            cache: Some((stats.cache_hits, stats.cache_hits + stats.cache_misses)),
            background: Some((stats.searches_finished, stats.total_search_time)),
            sharing: Some(Sharing {
                min_agents: world
                    .resource::<PathfindingSettings>()
                    .shared_goal_min_agents,
                routes: stats.shared_routes,
                trees: stats.goal_trees,
                milli_bytes_per_cell: milli_bytes_per_cell(world, stats),
                sector_routes: (stats.sector_routes_renewed, stats.sector_routes_patched),
            }),
        }
    }
}

/// The memory of the flow fields and goal trees held, in thousandths of a byte per map cell and
/// field (0 when none is held).
fn milli_bytes_per_cell(world: &World, stats: &PathfindingStats) -> u64 {
    let grid = world.resource::<NavGrid>().grid();
    let cells = u64::from(grid.width()) * u64::from(grid.height());
    let fields = stats.flow_fields as u64;
    (stats.flow_field_bytes as u64 * 1000)
        .checked_div(cells * fields)
        .unwrap_or(0)
}

/// The cells of an unsmoothed path still ahead of an agent at `position`: from the path cell
/// nearest to it among the few up to the waypoint it heads for (a follower aims past the cells
/// of a straight run, at most 32, so that waypoint may be several cells on).
fn cells_ahead<'a>(cells: &'a [Cell], follower: &PathFollower, position: Vec2) -> &'a [Cell] {
    const LOOKED_BACK: usize = 40;
    let heading = follower.next_waypoint().min(cells.len().saturating_sub(1));
    let first = heading.saturating_sub(LOOKED_BACK);
    let nearest = cells
        .get(first..=heading)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(index, cell)| (first + index, cell))
        .rev()
        .min_by(|(_, a), (_, b)| {
            let distance = |cell: &Cell| cell_center(*cell).distance_squared(position);
            distance(a).total_cmp(&distance(b))
        })
        .map_or(heading, |(index, _)| index);
    cells.get(nearest..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_memo_judges_each_cell_once_and_later_walks_stop_where_an_earlier_one_passed() {
        let at = |x| Cell::new(x, 0);
        let goal = at(4);
        let first = Path::with_cells([at(0), at(1), at(2), at(3), goal], [], 4.0);
        let mut memo = RouteMemo::default();
        let reaches = |cell: Cell| cell == goal;
        let avoids_two = |cell: Cell, _, after: bool| after && cell != at(2);
        // The walk from 0 passes 2: judged false all the way back, true from 3 on.
        assert!(!memo.judge(&first, at(0), reaches, avoids_two));
        assert!(memo.judge(&first, at(3), reaches, avoids_two));
        // A later route that joins at 3 and knows nothing past it is judged by the memo: a
        // walk of its own would end at 3, short of the goal.
        let joining = Path::with_cells([Cell::new(3, 1), at(3)], [], 1.0);
        assert!(memo.judge(&joining, Cell::new(3, 1), reaches, avoids_two));
        let mut fresh = RouteMemo::default();
        assert!(!fresh.judge(&joining, Cell::new(3, 1), reaches, avoids_two));
    }
}
