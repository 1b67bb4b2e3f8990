//! The scenario with this project's plugin: `AStarPlugin` with its default settings, agents with
//! a `PathRequest` and a `PathFollower`, towers blocked through `NavGrid::block`.
//!
//! The plugin finds the agents a map change affects and searches them again in the background.
//! One game system runs between the plugin's `Invalidate` and `Dispatch` sets and moves the
//! request start of every agent queued again to the cell it stands on, so that its new path
//! leads on from there (the plugin's `PathRequest::start_at_agent` does the same at dispatch;
//! the game system is kept so that the recorded runs stay comparable); its time is reported as
//! game code, apart from the plugin's. Agents walk their old path while they wait for the new
//! one.

use super::record::{
    FrameStamps, Placement, Repath, RepathWatch, RunRecord, SpanSeries, Watched, stamp,
};
use super::{Scenario, cell_at, cell_center};
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

/// Moves the request start of every agent the plugin queued again to the cell it stands on:
/// it looks at agents whose `Path` changed, and also at queued agents whose request start has
/// been blocked since (an agent already queued is not
/// queued again, so its `Path` does not change when a tower lands on its old start).
fn search_from_current_cell(
    nav: Res<NavGrid>,
    mut agents: Query<(&mut PathRequest, Ref<Path>, &Transform)>,
) {
    for (mut request, path, transform) in &mut agents {
        let start_blocked = !nav.is_walkable(request.start);
        let queued_again = path.status == PathStatus::Queued && path.is_changed();
        if !(queued_again || (path.status == PathStatus::Queued && start_blocked)) {
            continue;
        }
        if let Some(cell) = nav.world_to_cell(transform.translation.truncate())
            && nav.is_walkable(cell)
            && request.start != cell
        {
            request.start = cell;
        }
    }
}

/// The headless app: the plugin, the grid, the game system and the timestamp systems.
fn build_app(scenario: &Scenario) -> App {
    let mut app = App::new();
    let mut plugin = AStarPlugin::default().with_path_repair(scenario.repair_cut_paths);
    if let Some(min) = scenario.goal_batch_min {
        plugin = plugin.with_goal_batch_min(min);
    }
    if let Some(max) = scenario.max_paths_applied_per_frame {
        plugin = plugin.with_max_paths_applied_per_frame(max);
    }

    app.add_plugins((MinimalPlugins, plugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            Scenario::frame_duration(),
        ))
        .insert_resource(NavGrid::new(scenario.map.grid.clone()))
        .init_resource::<FrameStamps>()
        .add_systems(
            Update,
            (
                stamp::<0>.before(AStarSystems::Invalidate),
                stamp::<1>.after(AStarSystems::Invalidate),
                search_from_current_cell
                    .after(stamp::<1>)
                    .before(stamp::<2>),
                stamp::<2>.before(AStarSystems::Dispatch),
                stamp::<3>
                    .after(AStarSystems::Dispatch)
                    .before(AStarSystems::Apply),
                stamp::<4>
                    .after(AStarSystems::Apply)
                    .before(AStarSystems::Follow),
                stamp::<5>.after(AStarSystems::Follow),
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
                        PathRequest::new(cell, goal),
                        PathFollower::new(speed),
                        Transform::from_translation(cell_center(cell).extend(0.0)),
                        Walker { index, life: 0 },
                    )
                })
                .collect::<Vec<_>>(),
        )
        .for_each(drop);
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
fn restart_finished(app: &mut App, scenario: &Scenario) -> (u64, u64) {
    let size = scenario.map.size();
    let goal = scenario.map.goal;
    let world = app.world_mut();
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
        let arrived = path.is_found()
            && follower.is_finished()
            && cell_at(transform.translation.truncate(), size) == Some(goal);
        if failed || arrived {
            arrivals += u64::from(arrived);
            failures += u64::from(failed);
            restart(scenario, &mut walker, &mut transform, &mut request);
        }
    }
    (arrivals, failures)
}

/// Agents whose new path is still to come (queued or being searched).
fn waiting(app: &mut App) -> usize {
    let world = app.world_mut();
    let mut paths = world.query::<&Path>();
    paths
        .iter(world)
        .filter(|path| path.status.is_pending())
        .count()
}

/// Whether every agent has its first path and nothing is queued or running.
fn settled(app: &mut App) -> bool {
    let world = app.world_mut();
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
    app: &mut App,
    scenario: &Scenario,
    tower: Cell,
) -> Result<(Placement, Vec<Watched>), String> {
    let size = scenario.map.size();
    let world = app.world_mut();
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
        let ahead = path
            .cells
            .get(follower.next_waypoint()..)
            .unwrap_or_default();
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
        && path.cells.iter().all(|&cell| grid.is_walkable(cell))
    {
        Repath::Done
    } else {
        Repath::Waiting
    }
}

/// Runs the scenario with `AStarPlugin`.
///
/// # Errors
/// When the warm-up does not settle or a timestamp system did not run.
pub fn run(scenario: &Scenario) -> Result<RunRecord, String> {
    let mut app = build_app(scenario);
    let mut record = RunRecord {
        library: "bevy_astar",
        search: format!(
            "A* (8 neighbours, no corner cutting, octile), background tasks, result cache, {}, \
             at most {} paths applied a frame{}",
            match scenario
                .goal_batch_min
                .unwrap_or(PathfindingSettings::default().goal_batch_min)
            {
                0 => "no goal batches".to_owned(),
                min => format!("goal batches of {min}+"),
            },
            scenario
                .max_paths_applied_per_frame
                .unwrap_or(PathfindingSettings::default().max_paths_applied_per_frame),
            if scenario.repair_cut_paths {
                "; cut paths repaired locally"
            } else {
                ""
            }
        ),
        plugin: SpanSeries::new("plugin"),
        plugin_sets: ["Invalidate", "Dispatch", "Apply", "Follow"]
            .map(SpanSeries::new)
            .to_vec(),
        game: SpanSeries::new("search_from_current_cell"),
        ..RunRecord::default()
    };
    loop {
        let started = Instant::now();
        app.update();
        record.warmup_frames += 1;
        let ready = settled(&mut app);
        restart_finished(&mut app, scenario);
        scenario.pace(started);
        if ready {
            break;
        }
        if record.warmup_frames >= super::WARMUP_LIMIT {
            return Err(format!(
                "bevy_astar: agents still without a path after {} warm-up frames",
                record.warmup_frames
            ));
        }
    }
    let before = app.world().resource::<PathfindingStats>().clone();
    let mut watch = RepathWatch::default();
    let measured = Instant::now();
    for frame in 1..=scenario.frames {
        let started = Instant::now();
        let placement = scenario.placement_at(frame);
        let invalidated_before = app.world().resource::<PathfindingStats>().paths_invalidated;
        if let Some((index, tower)) = placement {
            let (placed, cut) = place_tower(&mut app, scenario, tower)?;
            debug_assert_eq!(record.placements.len(), index);
            record.placements.push(placed);
            watch.watch(index, frame, cut);
        }
        app.world_mut().resource_mut::<FrameStamps>().clear();
        app.update();
        let stamps = app.world().resource::<FrameStamps>();
        let sets = [
            stamps.between(0, 1)?,
            stamps.between(2, 3)?,
            stamps.between(3, 4)?,
            stamps.between(4, 5)?,
        ];
        let game = stamps.between(1, 2)?;
        record.plugin.frames.push(sets.iter().sum());
        for (series, time) in record.plugin_sets.iter_mut().zip(sets) {
            series.frames.push(time);
        }
        record.game.frames.push(game);
        let world = app.world();
        let stats = world.resource::<PathfindingStats>();
        if placement.is_some()
            && let Some(last) = record.placements.last_mut()
        {
            last.searched =
                usize::try_from(stats.paths_invalidated - invalidated_before).unwrap_or(usize::MAX);
        }
        let grid = world.resource::<NavGrid>().snapshot();
        watch.update(frame, &mut record.placements, |agent| {
            repath_status(world, &grid, agent)
        });
        record.waiting.push(waiting(&mut app));
        let (arrivals, failures) = restart_finished(&mut app, scenario);
        record.arrivals += arrivals;
        record.failures += failures;
        scenario.pace(started);
    }
    record.wall_time = measured.elapsed();
    record.unfinished_placements = watch.unfinished();
    let after = app.world().resource::<PathfindingStats>();
    record.searches = after.searches_started - before.searches_started;
    record.repairs = Some(after.paths_repaired - before.paths_repaired);
    let hits = after.cache_hits - before.cache_hits;
    let misses = after.cache_misses - before.cache_misses;
    record.cache = Some((hits, hits + misses));
    let finished = after.searches_finished - before.searches_finished;
    if let Ok(finished @ 1..) = u32::try_from(finished) {
        record.background_search_time =
            Some((after.total_search_time - before.total_search_time) / finished);
    }
    Ok(record)
}
