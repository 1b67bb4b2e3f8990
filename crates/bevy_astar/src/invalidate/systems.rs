//! The Invalidate stage's systems: publish the frame's edits as a map change, then drop the
//! cached results and queue the agents that the change affects ([`super::rule`]).

use super::rule::affected_agent;
use crate::budget::StageClock;
use crate::cache::PathCache;
use crate::in_flight::InFlightSearches;
use crate::kinds::KindKey;
use crate::map::{AgentLayers, KindChanges, SWEEP_FRAMES};
use crate::map::{NavChange, NavChanged, NavVersion};
use crate::outcome::RetiredOutcomes;
use crate::queue::{RequestQueue, set_status};
use crate::request::PathRequestState;
use crate::{
    NavGrid, Path, PathRequest, PathStatus, PathfindingSettings, PathfindingStats, TerrainProfiles,
};
use bevy::platform::collections::HashSet;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::utils::Parallel;
use core::time::Duration;
use std::collections::VecDeque;
use std::sync::Arc;

/// On a hexagonal map, gives every request the movement rule of hexagonal grids
/// ([`NavShape::movement_for`](crate::NavShape::movement_for)), keeping the rule it asked for;
/// on a map of another shape, gives that rule back. Either is a change of the request, which is
/// searched again. Runs at the start of Invalidate and again at the start of Dispatch, so that
/// a request written between the two is searched with the map's rule too. Does nothing on maps
/// that were never hexagonal (`rewrote` remembers whether any rule is held).
pub(crate) fn match_requests_to_map(
    nav: Option<Res<NavGrid>>,
    mut rewrote: Local<bool>,
    mut requests: Query<(&mut PathRequest, &mut PathRequestState)>,
) {
    let Some(shape) = nav.map(|nav| nav.shape()) else {
        return;
    };
    if !shape.is_hex() && !*rewrote {
        return;
    }
    *rewrote = shape.is_hex();
    for (mut request, mut state) in &mut requests {
        let asked = request.options.movement;
        if shape.is_hex() {
            let movement = shape.movement_for(asked);
            if movement != asked {
                state.requested_movement = Some(asked);
                request.options.movement = movement;
            }
        } else if let Some(original) = state.requested_movement.take()
            && original != asked
        {
            request.options.movement = original;
        }
    }
}

/// Whether the map's movement rules may differ from the requests' this frame
/// ([`match_requests_to_map`]'s run condition): on a hexagonal map, and in a frame in which the
/// map changed (it may have stopped being hexagonal); never without a map, where the system has
/// nothing to do either.
pub(crate) fn map_may_rewrite_rules(nav: Option<Res<NavGrid>>) -> bool {
    nav.is_some_and(|nav| nav.shape().is_hex() || nav.is_changed())
}

/// Applies this frame's [`NavChanged`] messages to the result cache and the running searches.
pub(crate) fn invalidate_results(
    mut changes: MessageReader<NavChanged>,
    settings: Res<PathfindingSettings>,
    mut cache: ResMut<PathCache>,
    mut in_flight: ResMut<InFlightSearches>,
) {
    for message in changes.read() {
        cache.invalidate(message, settings.invalidation);
        for (_, search) in in_flight.iter_mut() {
            if let Some(change) = message.change_for_kind(search.kind) {
                search.changes.push(Arc::clone(change));
            }
        }
    }
}

/// Whether map changes are still to be checked against agents or their agents queued
/// ([`invalidate_paths`]'s run condition, besides a new change).
pub(crate) fn invalidations_pending(pending: Res<PendingInvalidations>) -> bool {
    !pending.scans.is_empty() || !pending.agents.is_empty()
}

/// Agents one pass of the scan checks at most: the scan of every agent's path against a change
/// goes a window of agents at a time, in parallel, until the stage budget is spent.
const SCAN_WINDOW: usize = 512;

/// Agents of the window a frame always scans, budget or not, so that the scan moves on.
const FORCED_SCAN_WINDOW: usize = 64;

/// The agents of the next window of the scan: as many as `left` of the budget covers at
/// `per_agent` (the time an agent took in the windows before), between
/// [`FORCED_SCAN_WINDOW`] and [`SCAN_WINDOW`]; [`FORCED_SCAN_WINDOW`] for the window a frame
/// always scans (`forced`), so that one slow window cannot stall the frame.
fn scan_window_size(left: Duration, per_agent: Duration, forced: bool) -> usize {
    if forced {
        return FORCED_SCAN_WINDOW;
    }
    let fits = left.as_nanos() / per_agent.as_nanos().max(1);
    usize::try_from(fits)
        .unwrap_or(usize::MAX)
        .clamp(FORCED_SCAN_WINDOW, SCAN_WINDOW)
}

/// The work a map change left for later frames: agents still to check against it, and agents
/// it affected still to be queued again, each oldest first.
#[derive(Resource, Default)]
pub(crate) struct PendingInvalidations {
    scans: VecDeque<PendingScan>,
    agents: VecDeque<PendingInvalidation>,
    /// The time the scan took an agent in its last window (none before the first).
    scan_per_agent: Duration,
}

/// A map change whose agents are not all checked yet.
struct PendingScan {
    message: NavChanged,
    /// The agents when the change came (those spawned since search the new map).
    agents: Vec<Entity>,
    /// How many of `agents` are checked.
    checked: usize,
}

/// An affected agent waiting to be queued again.
pub(crate) struct PendingInvalidation {
    entity: Entity,
    /// Whether the change cut its path (a candidate for repair).
    cut: bool,
    /// The revision of the agent's [`Path`] that the change affected: once the agent shows
    /// another one (searched since, so knowing the change), there is nothing left to do. A
    /// revision, not a reference to the result, so that no result's memory outlives it here.
    revision: u64,
}

/// The agents' components Invalidate reads and changes.
type InvalidatedAgents<'w, 's> =
    Query<'w, 's, (Entity, &'static mut Path, &'static mut PathRequestState)>;

/// Applies this frame's [`NavChanged`] messages to the agents' current paths: checks every
/// agent's path against each change, oldest change first, a window of agents at a time,
/// and queues exactly the agents whose path a change affects, both within
/// [`PathfindingSettings::stage_budget`]; the rest waits in [`PendingInvalidations`].
pub(crate) fn invalidate_paths(
    mut changes: MessageReader<NavChanged>,
    settings: Res<PathfindingSettings>,
    mut bookkeeping: (
        ResMut<RequestQueue>,
        ResMut<PathfindingStats>,
        ResMut<RetiredOutcomes>,
        ResMut<PendingInvalidations>,
    ),
    mut agents: InvalidatedAgents,
    (mut affected, mut shown): (
        Local<Parallel<Vec<PendingInvalidation>>>,
        Local<ShownResults>,
    ),
) {
    let (queue, stats, retired, pending) = &mut bookkeeping;
    let pending: &mut PendingInvalidations = pending;
    if !changes.is_empty() {
        shown.refresh(&mut agents);
    }
    for message in changes.read() {
        // Only agents showing a result of their own can be affected: those on a shared tree,
        // and those waiting for a search, are not read at all.
        let affected = shown.agents();
        stats.agents_checked_for_changes += affected.len() as u64;
        pending.scans.push_back(PendingScan {
            message: message.clone(),
            agents: affected,
            checked: 0,
        });
    }
    let mut clock = StageClock::start(settings.stage_budget);
    // The agents found in earlier frames first, then the scan with the time left, in windows
    // sized to it (at least a small window a frame, so that it always moves), then the agents
    // it found.
    queue_affected(pending, &mut agents, (queue, stats, retired), &mut clock);
    let mut first_window = true;
    let mut per_agent = pending.scan_per_agent;
    while let Some(scan) = pending.scans.front_mut() {
        let first = core::mem::take(&mut first_window);
        let over = clock.is_over();
        if over && !first {
            break;
        }
        // Over the budget, the first window is the one the frame always scans.
        let size = scan_window_size(clock.left(), per_agent, over);
        let window = scan.checked..(scan.checked + size).min(scan.agents.len());
        let started = Instant::now();
        scan_window(scan, window.clone(), &settings, &agents, &mut affected);
        let scanned = u32::try_from(window.len()).unwrap_or(u32::MAX).max(1);
        per_agent = started.elapsed() / scanned;
        let mut found: Vec<PendingInvalidation> = affected.drain().collect();
        found.sort_unstable_by_key(|waiting| waiting.entity);
        pending.agents.extend(found);
        scan.checked = window.end;
        if scan.checked == scan.agents.len() {
            pending.scans.pop_front();
        }
    }
    pending.scan_per_agent = per_agent;
    queue_affected(pending, &mut agents, (queue, stats, retired), &mut clock);
    stats.carried_over.invalidations = pending.agents.len();
    stats.carried_over.scans = pending.scans.len();
}

/// The agents showing a result of their own (their [`PathRequestState::applied_on`] is set):
/// the only ones a map change can affect. Kept from the bookkeeping changed since the last
/// refresh, which [`invalidate_paths`] reads by its change ticks alone, so that a map change
/// reads the few agents it may affect rather than every agent's bookkeeping.
#[derive(Default)]
pub(crate) struct ShownResults {
    agents: HashSet<Entity>,
    /// When the set was last built from every agent: it is built again after
    /// [`SHOWN_RESULTS_REBUILT_AFTER`], before a change tick could grow old enough to be
    /// clamped (which would hide it).
    rebuilt: Option<Instant>,
}

/// How long [`ShownResults`] goes on from change ticks before it is built from every agent again.
const SHOWN_RESULTS_REBUILT_AFTER: Duration = Duration::from_secs(600);

impl ShownResults {
    /// Brings the set up to date: the agents whose bookkeeping changed since the last refresh
    /// (every agent, when the set is built again) go in or out by their `applied_on`, and the
    /// agents gone (despawned, or no longer requesting) go out.
    fn refresh(&mut self, agents: &mut InvalidatedAgents) {
        let rebuild = self
            .rebuilt
            .is_none_or(|at| at.elapsed() >= SHOWN_RESULTS_REBUILT_AFTER);
        if rebuild {
            self.agents.clear();
            self.rebuilt = Some(Instant::now());
        }
        for (entity, _, state) in &mut *agents {
            if !rebuild && !state.is_changed() {
                continue;
            }
            if state.applied_on.is_some() {
                self.agents.insert(entity);
            } else {
                self.agents.remove(&entity);
            }
        }
        self.agents.retain(|&entity| agents.contains(entity));
    }

    /// The agents in the set, in the order of their ids.
    fn agents(&self) -> Vec<Entity> {
        let mut agents: Vec<Entity> = self.agents.iter().copied().collect();
        agents.sort_unstable();
        agents
    }
}

/// Checks the agents `window` of `scan`, in parallel, collecting in `affected` the ones whose
/// path the change affects. Each agent is held to the change of its own kind's grid, and only a
/// path of a map older than the change is held to it.
fn scan_window(
    scan: &PendingScan,
    window: core::ops::Range<usize>,
    settings: &PathfindingSettings,
    agents: &InvalidatedAgents,
    affected: &mut Parallel<Vec<PendingInvalidation>>,
) {
    let message = &scan.message;
    let policy = settings.invalidation;
    let Some(window) = scan.agents.get(window) else {
        return;
    };
    agents
        .par_iter_many(window)
        .for_each(|(entity, path, state)| {
            let Some(change) = state
                .applied_on
                .filter(|&(version, _)| version < message.version)
                .and_then(|(_, kind)| message.change_for_kind(kind))
            else {
                return;
            };
            let repair = settings.repair_cut_paths && !change.is_whole_map();
            if let Some(cut) = affected_agent((path, state), change, policy, repair) {
                affected.borrow_local_mut().push(PendingInvalidation {
                    entity,
                    cut,
                    revision: path.revision,
                });
            }
        });
}

/// Queues the affected agents waiting in `pending`, oldest first, while `clock` allows.
fn queue_affected(
    pending: &mut PendingInvalidations,
    agents: &mut InvalidatedAgents,
    (queue, stats, retired): (
        &mut RequestQueue,
        &mut PathfindingStats,
        &mut RetiredOutcomes,
    ),
    clock: &mut StageClock,
) {
    while !pending.agents.is_empty() && !clock.is_spent() {
        let Some(waiting) = pending.agents.pop_front() else {
            break;
        };
        let Ok((_, mut path, mut state)) = agents.get_mut(waiting.entity) else {
            continue;
        };
        // Each result shown is a new revision; `applied` is let go of when a search starts.
        let still_shown = state.applied.is_some() && path.revision == waiting.revision;
        if !still_shown {
            continue;
        }
        let cut_path = if waiting.cut {
            state.applied.clone()
        } else {
            None
        };
        retired.retire(core::mem::replace(&mut state.cut_path, cut_path));
        queue.enqueue(waiting.entity, &mut state);
        set_status(&mut path, PathStatus::Queued);
        stats.paths_invalidated += 1;
    }
}

/// What [`publish_map_changes`] remembers between frames.
#[derive(Default)]
pub(crate) struct Publisher {
    /// The navigation grid last published.
    grid: Option<u64>,
    /// Frames run, for the sweeps of unused derived grids.
    frames: u32,
}

/// Publishes the edits made to the [`NavGrid`] since the last frame as one new [`NavVersion`],
/// with the change each agent kind's derived grid saw ([`AgentLayers::apply`]). Every
/// [`SWEEP_FRAMES`] frames it also drops the derived grids of kinds nothing uses any more
/// ([`AgentLayers::evict_unused`]), published as a whole-map change of those kinds.
pub(crate) fn publish_map_changes(
    mut nav_grid: Option<ResMut<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    requests: Query<&PathRequest>,
    mut layers: ResMut<AgentLayers>,
    mut version: ResMut<NavVersion>,
    mut publisher: Local<Publisher>,
    mut changed: MessageWriter<NavChanged>,
) {
    let grid_id = nav_grid.as_ref().map(|grid| grid.id());
    let change = if grid_id != publisher.grid {
        publisher.grid = grid_id;
        if let Some(grid) = nav_grid.as_mut() {
            grid.bypass_change_detection().take_changes();
        }
        NavChange::whole_map()
    } else if let Some(grid) = nav_grid.as_mut().filter(|grid| grid.has_pending_changes()) {
        grid.bypass_change_detection().take_changes()
    } else {
        NavChange::default()
    };
    publisher.frames = publisher.frames.wrapping_add(1);
    let evicted = if publisher.frames.is_multiple_of(SWEEP_FRAMES) && !layers.is_empty() {
        let named: HashSet<KindKey> = requests.iter().map(KindKey::of).collect();
        layers.evict_unused(|kind| named.contains(&kind))
    } else {
        Vec::new()
    };
    let mut kinds = match nav_grid.as_deref() {
        Some(nav) => layers.apply(nav, &profiles, &change),
        // The grid is gone: so is every kind's.
        None if change.is_whole_map() => layers.grid_removed(),
        None => KindChanges::default(),
    };
    let whole_map = Arc::new(NavChange::whole_map());
    kinds.kinds.extend(
        evicted
            .into_iter()
            .map(|kind| (kind, Arc::clone(&whole_map))),
    );
    if change.is_empty() && kinds.is_empty() {
        return;
    }
    *version = version.next();
    changed.write(NavChanged {
        version: *version,
        change: Arc::new(change),
        kinds: kinds.kinds,
        kinds_reset: kinds.reset.then_some(whole_map),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_window_holds_what_the_budget_left_covers_within_its_bounds() {
        let micros = Duration::from_micros;
        // The window a frame always scans is small, whatever the budget.
        assert_eq!(
            scan_window_size(Duration::ZERO, micros(5), true),
            FORCED_SCAN_WINDOW
        );
        assert_eq!(
            scan_window_size(micros(900), Duration::ZERO, true),
            FORCED_SCAN_WINDOW
        );
        // 1 ms left at 5 us an agent: 200 agents.
        assert_eq!(scan_window_size(micros(1_000), micros(5), false), 200);
        // Cheap agents, or none measured yet: the largest window.
        assert_eq!(
            scan_window_size(micros(1_000), Duration::from_nanos(100), false),
            SCAN_WINDOW
        );
        assert_eq!(
            scan_window_size(micros(1_000), Duration::ZERO, false),
            SCAN_WINDOW
        );
        // Dear agents and little time: the smallest.
        assert_eq!(
            scan_window_size(micros(50), micros(10), false),
            FORCED_SCAN_WINDOW
        );
    }
}
