//! The warm-up and the measured frames of `pathbench agents`, the same for every
//! [`Contender`]: towers at the same frames, the same timestamps, the same watch on cut agents.

use super::crowd_meter::process_cpu_time;
use super::record::{RepathWatch, RunRecord, SpanSeries};
use super::{Contender, Scenario, WARMUP_LIMIT};
use bevy::app::App;
use std::time::{Duration, Instant};

/// Runs `scenario` with `contender`.
///
/// # Errors
/// When the warm-up does not settle or the contender reports an error.
pub fn run(contender: &dyn Contender, scenario: &Scenario) -> Result<RunRecord, String> {
    let mut app = contender.build_app(scenario);
    let mut record = RunRecord {
        library: contender.library(),
        search: contender.search(),
        plugin: SpanSeries::new("plugin"),
        plugin_sets: contender
            .plugin_sets()
            .iter()
            .map(|&name| SpanSeries::new(name))
            .collect(),
        game: SpanSeries::new(contender.game_code().unwrap_or("none")),
        ..RunRecord::default()
    };
    warm_up(contender, scenario, &mut app, &mut record)?;
    let before = contender.counters(app.world());
    let mut tracking = Tracking::default();
    contender.begin_measurement(app.world_mut());
    let cpu_before = process_cpu_time();
    let measured = Instant::now();
    for frame in 1..=scenario.frames {
        measure_frame(
            contender,
            scenario,
            &mut app,
            &mut record,
            (frame, &mut tracking),
        )?;
    }
    record.wall_time = measured.elapsed();
    // The library's CPU time, without the benchmark's own checks of new paths.
    record.cpu_time = cpu_before.zip(process_cpu_time()).map(|(before, after)| {
        after
            .saturating_sub(before)
            .saturating_sub(tracking.watching)
    });
    record.crowd = contender.crowd_figures(app.world());
    record.unfinished_placements = tracking.watch.unfinished();
    contender
        .counters(app.world())
        .write_since(&before, &mut record);
    Ok(record)
}

/// Runs frames until every agent has its first path and nothing is pending.
fn warm_up(
    contender: &dyn Contender,
    scenario: &Scenario,
    app: &mut App,
    record: &mut RunRecord,
) -> Result<(), String> {
    loop {
        let started = Instant::now();
        app.update();
        record.warmup_frames += 1;
        let world = app.world_mut();
        contender.after_update(world, scenario);
        let ready = contender.settled(world);
        contender.restart_finished(world, scenario);
        scenario.pace(started);
        if ready {
            return Ok(());
        }
        if record.warmup_frames >= WARMUP_LIMIT {
            return Err(format!(
                "{}: agents still without a path after {} warm-up frames",
                contender.library(),
                record.warmup_frames
            ));
        }
    }
}

/// What the measured frames follow across frames: the cut agents, and the library's count of
/// agents checked for changes when the last tower went down.
#[derive(Default)]
struct Tracking {
    watch: RepathWatch,
    checked_at_placement: Option<u64>,
    /// Time spent on the main thread finding the agents a tower cut and checking their new
    /// paths for the watch, which the process's CPU time leaves out.
    watching: Duration,
}

/// One measured frame: the tower due, the update, the spans, the watch on cut agents, the
/// agents checked for the last change, the game code and the restarts.
fn measure_frame(
    contender: &dyn Contender,
    scenario: &Scenario,
    app: &mut App,
    record: &mut RunRecord,
    (frame, tracking): (u64, &mut Tracking),
) -> Result<(), String> {
    let started = Instant::now();
    let placement = scenario.placement_at(frame);
    let searches_before = contender.searches_for_changes(app.world());
    if let Some((index, tower)) = placement {
        tracking.checked_at_placement = contender.checked_for_changes(app.world());
        let placing = Instant::now();
        let (placed, cut) = contender.place_tower(app.world_mut(), scenario, tower)?;
        // Finding the cut agents is the benchmark's own check; the map edit is the library's.
        tracking.watching += placing.elapsed().saturating_sub(placed.edit_time);
        if let Some(door) = scenario.door_at(index) {
            contender.toggle_door(app.world_mut(), door)?;
        }
        debug_assert_eq!(record.placements.len(), index);
        record.placements.push(placed);
        tracking.watch.watch(index, frame, cut);
    }
    app.world_mut().resource_mut::<super::FrameStamps>().clear();
    app.update();
    let (plugin, sets) = contender.plugin_spans(app.world().resource::<super::FrameStamps>())?;
    record.plugin.frames.push(plugin);
    for (series, time) in record.plugin_sets.iter_mut().zip(sets) {
        series.frames.push(time);
    }
    if placement.is_some()
        && let Some((before, after)) =
            searches_before.zip(contender.searches_for_changes(app.world()))
        && let Some(last) = record.placements.last_mut()
    {
        last.searched = usize::try_from(after - before).unwrap_or(usize::MAX);
    }
    // Every check until the next tower is this one's: only towers change the map.
    if let Some((at_placement, now)) = tracking
        .checked_at_placement
        .zip(contender.checked_for_changes(app.world()))
        && let Some(last) = record.placements.last_mut()
    {
        last.checked = Some(now.saturating_sub(at_placement));
    }
    let world = app.world_mut();
    let watched = Instant::now();
    contender.update_watch(world, frame, &mut tracking.watch, &mut record.placements)?;
    record.waiting.push(contender.waiting(world));
    tracking.watching += watched.elapsed();
    if contender.game_code().is_some() {
        let game_started = Instant::now();
        contender.after_update(world, scenario);
        record.game.frames.push(game_started.elapsed());
    }
    let (arrivals, failures) = contender.restart_finished(world, scenario);
    record.arrivals += arrivals;
    record.failures += failures;
    scenario.pace(started);
    Ok(())
}
