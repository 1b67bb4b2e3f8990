//! This project's plugin as a contender: `AStarPlugin` with its default settings (or those the
//! arguments change), agents with a `PathRequest` and a `PathFollower`, towers blocked through
//! `NavGrid::block`.
//!
//! The plugin finds the agents a map change affects and searches them again in the background;
//! their requests set `PathRequest::start_at_agent`, so that a new path leads on from the cell
//! the agent has got to. Agents walk their old path while they wait for the new one. The plugin
//! moves them itself: there is no game code to time.

use super::crowd_meter::{CrowdFigures, CrowdMeter, Indexed, meter_crowd};
use super::record::{Counters, FrameStamps, Placement, Repath, RepathWatch, Watched, stamp};
use super::{AgentsArgs, Contender, PauseChoice, Scenario, cell_at, cell_center};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use std::time::{Duration, Instant};

/// An agent of the benchmark: its number and how many walks it started.
#[derive(Component)]
struct Walker {
    index: usize,
    life: u32,
}

/// `AStarPlugin` under the scenario, with the settings the arguments change.
pub struct Ours {
    settings: PathfindingSettings,
    /// Whether the agents avoid each other (`CrowdAvoidance`).
    crowd: bool,
    /// Whether an agent arrives anywhere within [`GOAL_AREA`] of the goal (the `--crowd`
    /// scenario, in both of its runs), rather than on the goal cell at the end of its path.
    goal_area: bool,
    /// The crowd settings of the agents that avoid each other.
    crowd_settings: CrowdSettings,
}

impl Ours {
    /// The contender with the settings of `args` (`--repair-cut-paths`, `--goal-batch-min`,
    /// `--max-paths-applied-per-frame`, `--stage-budget-us`, `--background-pause`) and the plugin's defaults for the rest.
    pub fn new(args: &AgentsArgs) -> Self {
        let defaults = PathfindingSettings::default();
        Self {
            settings: PathfindingSettings {
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
        }
    }

    /// The same contender with agents that avoid each other.
    #[must_use]
    pub const fn with_crowd(mut self) -> Self {
        self.crowd = true;
        self
    }
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
    settings: &PathfindingSettings,
    scenario: &Scenario,
    crowd: Option<&CrowdSettings>,
) -> App {
    let mut app = App::new();
    let plugin = AStarPlugin::default().with_settings(settings.clone());

    app.add_plugins((MinimalPlugins, plugin, PathFollowPlugin, CrowdPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            Scenario::frame_duration(),
        ))
        .insert_resource(NavGrid::new(scenario.map.grid.clone()))
        .init_resource::<FrameStamps>()
        .init_resource::<CrowdMeter>()
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
    let goal = scenario.map.goal;
    let speed = scenario.speed;
    app.world_mut()
        .spawn_batch(
            scenario
                .first_cells
                .iter()
                .enumerate()
                .map(move |(index, &cell)| {
                    (
                        PathRequest::new(cell, goal).with_start_at_agent(true),
                        PathFollower::new(speed),
                        Transform::from_translation(cell_center(cell).extend(0.0)),
                        Walker { index, life: 0 },
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
    let goal = scenario.map.goal;
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
    let edit_started = Instant::now();
    let blocked = world.resource_mut::<NavGrid>().block(tower);
    let edit_time = edit_started.elapsed();
    if !blocked.map_err(|error| error.to_string())? {
        return Err(format!("tower {tower} placed on a blocked cell"));
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
    for (entity, mut walker, path, follower, mut transform, mut request) in agents.iter_mut(world) {
        if cell_at(transform.translation.truncate(), size) == Some(tower) {
            crushed += 1;
            restart(scenario, &mut walker, &mut transform, &mut request);
            continue;
        }
        // Agents already queued again keep walking their old path: it counts too.
        let walking = path.status.failure().is_none() && !follower.is_finished();
        let cells = path.cells();
        let ahead = cells_ahead(&cells, follower, transform.translation.truncate());
        if walking && ahead.contains(&tower) {
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
    };
    Ok((placement, cut))
}

/// How a cut agent stands: a new revision of a found path that avoids every blocked cell.
fn repath_status(world: &World, grid: &Grid, agent: &Watched) -> Repath {
    let Ok(entity) = world.get_entity(agent.entity) else {
        return Repath::Left;
    };
    let (Some(walker), Some(path)) = (entity.get::<Walker>(), entity.get::<Path>()) else {
        return Repath::Left;
    };
    if walker.life != agent.life {
        Repath::Left
    } else if path.status.failure().is_some() {
        Repath::Failed
    } else if path.revision > agent.revision
        && path.is_found()
        && path.cells().iter().all(|&cell| grid.is_walkable(cell))
    {
        Repath::Done
    } else {
        Repath::Waiting
    }
}

impl Contender for Ours {
    fn library(&self) -> &'static str {
        if self.crowd {
            "bevy_astar+orca"
        } else {
            "bevy_astar"
        }
    }

    fn search(&self) -> String {
        let settings = &self.settings;
        format!(
            "A* (8 neighbours, no corner cutting, octile), {}, result cache, {}, \
             at most {} paths applied a frame, {} us a stage{}",
            if cfg!(feature = "multi_threaded") {
                "background tasks"
            } else {
                "searches sliced on the main thread"
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
        ) + if self.crowd {
            "; agents avoid each other (CrowdAvoidance: ORCA)"
        } else {
            ""
        }
    }

    fn plugin_sets(&self) -> &'static [&'static str] {
        &["Invalidate", "Dispatch", "Apply", "Follow"]
    }

    fn build_app(&self, scenario: &Scenario) -> App {
        build_app(
            &self.settings,
            scenario,
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

    fn update_watch(
        &self,
        world: &mut World,
        frame: u64,
        watch: &mut RepathWatch,
        placements: &mut [Placement],
    ) -> Result<(), String> {
        let grid = world.resource::<NavGrid>().snapshot();
        watch.update(frame, placements, |agent| {
            repath_status(world, &grid, agent)
        });
        Ok(())
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
        }
    }
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
