//! The Apply stage's systems: collect finished searches (stale results are dropped and their
//! agents queued again, results for changed requests are dropped, the rest are cached and
//! applied), then free what was let go of.

use crate::background::drop_in_background;
use crate::budget::StageClock;
use crate::cache::PathCache;
use crate::in_flight::{InFlightSearch, InFlightSearches, SearchMember};
use crate::kinds::KindKey;
use crate::outcome::{PathNotifier, RetiredOutcomes};
use crate::outcome::{ReadyOutcome, SearchOutcome};
use crate::queue::{RequestQueue, SearchBookkeeping, set_status};
use crate::request::PathRequestState;
use crate::{
    NavCellChange, NavChange, NavGrid, Path, PathRequest, PathStatus, PathfindingSettings,
    PathfindingStats, TerrainProfiles,
};
use astar_grid::{Cell, Grid};
use bevy::prelude::*;
use core::sync::atomic::Ordering;
use std::sync::Arc;

/// Polls every running search once (without blocking) and applies what has finished, oldest
/// search first, writing at most [`PathfindingSettings::max_paths_applied_per_frame`] paths
/// within [`PathfindingSettings::stage_budget`].
///
/// A search no agent wants any more (all despawned, or their requests changed) is cancelled;
/// a result is applied only to agents whose request still asks for it. Results left for a
/// later frame keep receiving map changes, so they are checked for staleness when applied.
pub(crate) fn poll_searches(
    settings: Res<PathfindingSettings>,
    nav: Option<Res<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    mut bookkeeping: SearchBookkeeping,
    mut agents: AppliedAgents,
    mut notifier: PathNotifier,
) {
    let SearchBookkeeping {
        queue,
        cache,
        in_flight,
        stats,
        retired,
    } = &mut bookkeeping;
    collect_finished(in_flight, stats, &agents);
    let mut applier = ResultApplier::new(&settings, nav.as_deref(), &profiles, retired);
    for id in in_flight.with_results() {
        if applier.budget == 0 || applier.clock.was_spent() {
            break;
        }
        let Some(mut search) = in_flight.take(id) else {
            continue;
        };
        let mut ledger = Ledger {
            queue,
            cache,
            stats,
        };
        applier.apply_search(
            id,
            &mut search,
            in_flight,
            &mut agents,
            &mut notifier,
            &mut ledger,
        );
        if search.next_member < search.members.len() {
            in_flight.restore(id, search);
        }
    }
    if settings.cache_capacity == 0 {
        cache.clear();
    }
    stats.carried_over.results = results_left(in_flight);
    stats.in_flight = in_flight.len();
    stats.queue_length = queue.len();
}

/// How many finished outcomes wait in `in_flight` for a later frame.
fn results_left(in_flight: &mut InFlightSearches) -> usize {
    in_flight
        .iter_mut()
        .filter(|(_, search)| search.results.is_some())
        .map(|(_, search)| search.members.len().saturating_sub(search.next_member))
        .sum()
}

/// Polls every running search that has not finished yet, without blocking: a search no agent
/// wants any more (all despawned, or their requests changed) is cancelled, and a finished one
/// keeps its outcomes until they are applied.
fn collect_finished(
    in_flight: &mut InFlightSearches,
    stats: &mut PathfindingStats,
    agents: &AppliedAgents,
) {
    let mut cancelled = Vec::new();
    for (id, search) in in_flight.iter_mut() {
        if search.results.is_some() {
            continue;
        }
        let wanted = search.members.iter().any(|member| {
            member.is_wanted(|entity| agents.get(entity).ok().map(|(request, ..)| *request))
        });
        if !wanted {
            // Stops a long A* between two slices; dropping the task below stops one not begun.
            search.cancelled.store(true, Ordering::Relaxed);
            cancelled.push(id);
        } else if let Some(outcomes) = search.task.check_ready() {
            match outcomes {
                Some(outcomes) => {
                    stats.searches_finished += 1;
                    if let Some(outcome) = outcomes.first() {
                        stats.record_search_time(outcome.outcome.duration);
                    }
                    search.results = Some(outcomes.into_iter());
                }
                None => cancelled.push(id),
            }
        }
    }
    for id in cancelled {
        in_flight.remove(id);
        stats.searches_cancelled += 1;
    }
}

/// The shared bookkeeping that applying results changes.
struct Ledger<'a> {
    queue: &'a mut RequestQueue,
    cache: &'a mut PathCache,
    stats: &'a mut PathfindingStats,
}

/// The agents' components that applying results reads and writes.
type AppliedAgents<'w, 's> = Query<
    'w,
    's,
    (
        &'static PathRequest,
        &'static mut Path,
        &'static mut PathRequestState,
    ),
>;

/// The search a result came from, as the staleness check needs it.
struct AppliedSearch<'a> {
    snapshot: &'a Arc<Grid>,
    kind: KindKey,
    origin: (u64, u64),
    /// Whether it answered a goal batch, whose outcomes are cached only for requests that recur.
    batch: bool,
    changes: &'a [Arc<NavChange>],
}

/// Applies finished results within the frame's budget.
struct ResultApplier<'a> {
    settings: &'a PathfindingSettings,
    nav: Option<&'a NavGrid>,
    /// The profiles' revision now.
    profiles_revision: u64,
    /// The grid's unpublished changes, gathered at most once per frame.
    pending_changes: Option<NavChange>,
    /// The same, as agents of each size may see them ([`pending_for_size`]).
    pending_by_size: Vec<(u8, [NavChange; 2])>,
    /// Where replaced outcomes go, to be freed off the main thread.
    retired: &'a mut RetiredOutcomes,
    /// Paths that may still be written this frame.
    budget: usize,
    /// The stage's time this frame.
    clock: StageClock,
}

/// The unpublished edits `pending` of `nav` as an agent of `size` cells may see them: every
/// anchor whose footprint covers an edited cell ([`astar_grid::agent::Footprint::anchors_covering`]), changed both ways
/// (blocked, and opened), so that a result either could touch counts as touched.
fn widen_for_size(pending: &NavChange, size: u8, nav: &NavGrid) -> [NavChange; 2] {
    let edited: Vec<Cell> = pending.cells().map(|changed| changed.cell).collect();
    let footprint = nav.shape().footprint();
    let anchors = footprint.anchors_covering(&edited, size, nav.width(), nav.height());
    let both_ways = |before, after| {
        NavChange::from_cells(anchors.iter().map(|&cell| NavCellChange {
            cell,
            before,
            after,
        }))
        .with_links(pending.links().iter().copied())
    };
    [both_ways(1, 0), both_ways(0, 1)]
}

impl<'a> ResultApplier<'a> {
    /// This frame's applier under `settings`, on `nav` and the current `profiles`, sending
    /// replaced outcomes to `retired`; its budget is
    /// [`PathfindingSettings::max_paths_applied_per_frame`] paths within
    /// [`PathfindingSettings::stage_budget`], whose clock starts now.
    fn new(
        settings: &'a PathfindingSettings,
        nav: Option<&'a NavGrid>,
        profiles: &TerrainProfiles,
        retired: &'a mut RetiredOutcomes,
    ) -> Self {
        Self {
            settings,
            nav,
            profiles_revision: profiles.revision(),
            pending_changes: None,
            pending_by_size: Vec::new(),
            retired,
            budget: settings.max_paths_applied_per_frame.max(1) as usize,
            clock: StageClock::start(settings.stage_budget),
        }
    }
}

impl ResultApplier<'_> {
    /// The grid's unpublished changes widened for agents of `size` cells
    /// ([`widen_for_size`]), gathered at most once per frame and size.
    fn pending_for_size(&mut self, nav: &NavGrid, size: u8) -> &[NavChange; 2] {
        let index = match self
            .pending_by_size
            .iter()
            .position(|(known, _)| *known == size)
        {
            Some(index) => index,
            None => {
                let pending = self
                    .pending_changes
                    .get_or_insert_with(|| nav.pending_changes());
                let widened = widen_for_size(pending, size, nav);
                self.pending_by_size.push((size, widened));
                self.pending_by_size.len() - 1
            }
        };
        &self.pending_by_size[index].1
    }

    /// Whether the grid's unpublished changes may have made `outcome`, searched for agents of
    /// `kind`, wrong: the changes themselves for the navigation grid; for a kind's derived
    /// grid, which takes in edits when they are published, every anchor whose footprint covers
    /// an edited cell ([`widen_for_size`]).
    fn pending_affects(&mut self, nav: &NavGrid, kind: KindKey, outcome: &SearchOutcome) -> bool {
        let policy = self.settings.invalidation;
        if kind.is_default() {
            let pending = self
                .pending_changes
                .get_or_insert_with(|| nav.pending_changes());
            outcome.affected_by(pending, policy)
        } else {
            self.pending_for_size(nav, kind.size)
                .iter()
                .any(|change| outcome.affected_by(change, policy))
        }
    }

    /// Applies the finished outcomes of the search `id` in member order while the budget
    /// lasts; the members not reached wait in `search` for the next frame.
    fn apply_search(
        &mut self,
        id: u64,
        search: &mut InFlightSearch,
        in_flight: &mut InFlightSearches,
        agents: &mut AppliedAgents,
        notifier: &mut PathNotifier,
        ledger: &mut Ledger,
    ) {
        let first = search.next_member;
        while self.budget > 0 && search.next_member < search.members.len() && !self.clock.is_spent()
        {
            let Some(outcome) = search.results.as_mut().and_then(Iterator::next) else {
                break;
            };
            let Some(member) = search.members.get(search.next_member) else {
                break;
            };
            search.next_member += 1;
            let target = AppliedSearch {
                snapshot: &search.snapshot,
                kind: search.kind,
                origin: search.origin,
                batch: search.is_batch(),
                changes: &search.changes,
            };
            self.apply(&target, member, outcome, agents, notifier, ledger);
        }
        in_flight.forget_members(search, id, first..search.next_member);
    }

    /// Applies `ready`'s outcome to the agents of `member` that still want it, or queues them
    /// again when the map changed under it; caches it when allowed.
    fn apply(
        &mut self,
        search: &AppliedSearch,
        member: &SearchMember,
        ready: ReadyOutcome,
        agents: &mut AppliedAgents,
        notifier: &mut PathNotifier,
        ledger: &mut Ledger,
    ) {
        let stale = self.is_stale(search, &ready.outcome);
        let Some(nav) = self.nav.filter(|_| !stale) else {
            ledger.stats.stale_results_dropped += 1;
            requeue_stale(member, agents, ledger.queue);
            self.retired.retire_ready(Some(ready));
            return;
        };
        let capacity = self.settings.cache_capacity;
        if search.batch {
            ledger
                .cache
                .offer_recurring(member.key, &ready.outcome, capacity);
        } else {
            ledger.cache.offer(member.key, &ready.outcome, capacity);
        }
        self.hand_out(nav, member, ready, agents, notifier, ledger);
    }

    /// Shows `ready`'s outcome in the path of each of `member`'s agents whose request still
    /// awaits it (taking the agent out of the queue if it was queued again with the same
    /// request meanwhile), one path of the frame's budget each; counts the agents whose request
    /// changed meanwhile.
    fn hand_out(
        &mut self,
        nav: &NavGrid,
        member: &SearchMember,
        ready: ReadyOutcome,
        agents: &mut AppliedAgents,
        notifier: &mut PathNotifier,
        ledger: &mut Ledger,
    ) {
        let Ledger { queue, stats, .. } = ledger;
        // The last agent takes the outcome as it came; any before it share it.
        let mut ready = Some(ready);
        let last = member.subscribers.len().saturating_sub(1);
        for (index, subscriber) in member.subscribers.iter().enumerate() {
            match agents.get_mut(subscriber.entity) {
                Ok((request, mut path, mut state))
                    if member.key.matches(request) && state.awaits(subscriber.sequence) =>
                {
                    // Queued again with the same request meanwhile: this answer serves it.
                    queue.dequeue(subscriber.entity, &mut state);
                    let this = if index == last {
                        ready.take()
                    } else {
                        ready.as_ref().map(ReadyOutcome::share)
                    };
                    if let Some(this) = this {
                        let agent = (subscriber.entity, &mut *path, &mut *state);
                        notifier.apply(agent, this, nav, self.retired);
                        self.budget = self.budget.saturating_sub(1);
                    }
                }
                Ok(_) => stats.superseded_results_dropped += 1,
                // Despawned while its search ran: nothing to do.
                Err(_) => {}
            }
        }
        self.retired.retire_ready(ready);
    }

    /// Whether `outcome`, of `search`, is stale: there is no grid, or another one, or other
    /// profiles for a kind's derived grid (nothing carries over), or a change since the search
    /// started, published or not, may have made it wrong.
    fn is_stale(&mut self, search: &AppliedSearch, outcome: &SearchOutcome) -> bool {
        let policy = self.settings.invalidation;
        match self.nav {
            None => true,
            Some(nav) if nav.id() != search.origin.0 => true,
            Some(_) if !search.kind.is_default() && search.origin.1 != self.profiles_revision => {
                true
            }
            Some(nav) if nav.is_current(search.snapshot) => false,
            Some(nav) => {
                search
                    .changes
                    .iter()
                    .any(|change| outcome.affected_by(change, policy))
                    || self.pending_affects(nav, search.kind, outcome)
            }
        }
    }
}

/// Queues again the agents of `member` whose request still awaits its stale outcome, in their
/// old places.
fn requeue_stale(member: &SearchMember, agents: &mut AppliedAgents, queue: &mut RequestQueue) {
    for subscriber in &member.subscribers {
        if let Ok((request, mut path, mut state)) = agents.get_mut(subscriber.entity)
            && member.key.matches(request)
            && state.awaits(subscriber.sequence)
        {
            state.searching_for = None;
            queue.requeue(subscriber.entity, subscriber.sequence, &mut state);
            set_status(&mut path, PathStatus::Queued);
        }
    }
}

/// Hands the frame's retired outcomes (the agents' and the cache's) to a background thread,
/// which drops them ([`drop_in_background`]).
pub(crate) fn free_retired_outcomes(
    mut retired: ResMut<RetiredOutcomes>,
    mut cache: ResMut<PathCache>,
    settings: Res<PathfindingSettings>,
) {
    let retired = retired.bypass_change_detection();
    retired.retire_all(cache.bypass_change_detection().take_retired());
    if retired.is_empty() {
        return;
    }
    drop_in_background(retired.take(), settings.search_thread);
}

#[cfg(test)]
mod tests {
    use crate::background::MainThreadWork;
    use crate::in_flight::InFlightSearches;
    use crate::prelude::*;
    use bevy::prelude::*;
    use bevy::time::TimeUpdateStrategy;
    use core::time::Duration;

    #[test]
    fn a_spent_budget_writes_finished_results_over_frames_oldest_first() {
        // Every search starts in the first frame, which writes one path at most.
        let settings = PathfindingSettings {
            goal_batch_min: 0,
            max_searches_per_frame: 1024,
            max_in_flight: 1024,
            max_paths_applied_per_frame: 1,
            cache_capacity: 0,
            stage_budget: Duration::from_secs(60),
            ..PathfindingSettings::default()
        };
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AStarPlugin::default().with_settings(settings),
        ))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            16,
        )))
        .insert_resource(NavGrid::new(Grid::new(48, 48)));
        let agents: Vec<Entity> = (0..150u32)
            .map(|index| {
                let start = Cell::new(index / 48, index % 48);
                app.world_mut()
                    .spawn(PathRequest::new(start, Cell::new(45, 24)))
                    .id()
            })
            .collect();
        app.update();
        // Every search finishes, as in a busy frame; then the budget is spent from the start
        // of each frame.
        let work = app.world().resource::<MainThreadWork>().clone();
        let mut in_flight = app.world_mut().resource_mut::<InFlightSearches>();
        for (_, search) in in_flight.iter_mut() {
            if search.results.is_none() {
                search.results = search.task.wait(&work).map(IntoIterator::into_iter);
            }
        }
        let mut settings = app.world_mut().resource_mut::<PathfindingSettings>();
        settings.max_paths_applied_per_frame = 1024;
        settings.stage_budget = Duration::ZERO;
        let waiting = |app: &App| {
            agents
                .iter()
                .filter(|&&agent| {
                    app.world()
                        .get::<Path>(agent)
                        .is_some_and(|path| path.status.is_pending())
                })
                .count()
        };
        assert!(waiting(&app) >= 149);
        let mut frames = 0;
        while waiting(&app) > 0 {
            let before = waiting(&app);
            app.update();
            frames += 1;
            let stats = app.world().resource::<PathfindingStats>();
            // The first agent, then 31 more, before the clock is read.
            assert_eq!(before - waiting(&app), before.min(32), "frame {frames}");
            assert_eq!(stats.carried_over.results, waiting(&app), "frame {frames}");
            assert!(frames < 10);
        }
        assert!(frames >= 149 / 32, "{frames}");
    }

    /// Whether the outcomes kept to be freed held anything after `poll_searches`, in a frame
    /// that dropped a stale result.
    #[derive(Resource, Default)]
    struct RetiredAfterStale(Vec<bool>);

    #[test]
    fn a_stale_result_is_kept_to_be_freed_off_the_main_thread() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AStarPlugin::default()))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
                16,
            )))
            .insert_resource(NavGrid::new(Grid::new(16, 1)))
            .init_resource::<RetiredAfterStale>()
            .add_systems(
                Update,
                (
                    // The first frame's search is made stale before it is applied: a cell of
                    // the only path is blocked after Dispatch.
                    (|mut nav: ResMut<NavGrid>, mut done: Local<bool>| {
                        if !core::mem::replace(&mut *done, true) {
                            nav.block(Cell::new(6, 0)).unwrap();
                        }
                    })
                    .after(PathfindingSystems::Dispatch)
                    .before(PathfindingSystems::Apply),
                    (|stats: Res<PathfindingStats>,
                      retired: Res<crate::outcome::RetiredOutcomes>,
                      mut seen: ResMut<RetiredAfterStale>,
                      mut dropped: Local<u64>| {
                        if stats.stale_results_dropped > *dropped {
                            *dropped = stats.stale_results_dropped;
                            seen.0.push(!retired.is_empty());
                        }
                    })
                    .after(super::poll_searches)
                    .before(super::free_retired_outcomes),
                ),
            );
        let agent = app
            .world_mut()
            .spawn(PathRequest::new(Cell::new(0, 0), Cell::new(12, 0)))
            .id();
        for _ in 0..200 {
            app.update();
            if app.world().get::<Path>(agent).unwrap().status == PathStatus::NoPath {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            app.world().get::<Path>(agent).unwrap().status,
            PathStatus::NoPath,
            "searched again after the stale result"
        );
        assert_eq!(
            app.world().resource::<RetiredAfterStale>().0,
            [true],
            "the stale result was freed on the main thread"
        );
    }
}
