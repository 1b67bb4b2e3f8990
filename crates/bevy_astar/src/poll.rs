//! Collecting finished searches: stale results are dropped and their agents queued again,
//! results for changed requests are dropped, the rest are cached and applied.

use crate::apply::PathNotifier;
use crate::dispatch::{SearchBookkeeping, set_status};
use crate::request::PathRequestState;
use crate::{MapChange, NavGrid, Path, PathRequest, PathStatus, PathfindingSettings};
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use core::sync::atomic::Ordering;
use std::sync::Arc;

/// Polls every running search once (without blocking) and applies what has finished.
///
/// A search no agent wants any more (all despawned, or their requests changed) is cancelled;
/// a result is applied only to agents whose request still asks for it.
pub(crate) fn poll_searches(
    settings: Res<PathfindingSettings>,
    nav: Option<Res<NavGrid>>,
    mut bookkeeping: SearchBookkeeping,
    mut agents: Query<(&PathRequest, &mut Path, &mut PathRequestState)>,
    mut notifier: PathNotifier,
) {
    let SearchBookkeeping {
        queue,
        cache,
        in_flight,
        stats,
    } = &mut bookkeeping;
    let mut finished = Vec::new();
    for (key, search) in in_flight.searches.iter_mut() {
        let wanted = search.subscribers.iter().any(|subscriber| {
            agents
                .get(subscriber.entity)
                .is_ok_and(|(request, ..)| key.matches(request))
        });
        if !wanted {
            // Stops a long A* between two slices; dropping the task below stops one not begun.
            search.cancelled.store(true, Ordering::Relaxed);
            finished.push((*key, None));
        } else if let Some(outcome) = check_ready(&mut search.task) {
            finished.push((*key, outcome));
        }
    }
    let policy = settings.invalidation;
    let mut pending_changes: Option<MapChange> = None;
    for (key, outcome) in finished {
        let Some(search) = in_flight.searches.remove(&key) else {
            continue;
        };
        let Some(mut outcome) = outcome else {
            stats.searches_cancelled += 1;
            continue;
        };
        stats.searches_finished += 1;
        stats.record_search_time(outcome.duration);
        let stale = match nav.as_deref() {
            None => true,
            Some(nav) if nav.is_current(&search.snapshot) => false,
            Some(nav) => {
                search
                    .changes
                    .iter()
                    .any(|change| outcome.affected_by(change, policy))
                    || outcome.affected_by(
                        pending_changes.get_or_insert_with(|| nav.pending_changes()),
                        policy,
                    )
            }
        };
        if stale {
            stats.stale_results_dropped += 1;
            for subscriber in &search.subscribers {
                if let Ok((request, mut path, mut state)) = agents.get_mut(subscriber.entity)
                    && key.matches(request)
                {
                    queue.requeue(subscriber.entity, subscriber.sequence, &mut state);
                    set_status(&mut path, PathStatus::Queued);
                }
            }
            continue;
        }
        let Some(nav) = nav.as_deref() else {
            continue;
        };
        outcome.map_version = search.map_version;
        let outcome = Arc::new(outcome);
        if settings.cache_capacity > 0 && outcome.cacheable {
            cache.insert(key, Arc::clone(&outcome), settings.cache_capacity);
        }
        for subscriber in &search.subscribers {
            match agents.get_mut(subscriber.entity) {
                Ok((request, mut path, mut state)) if key.matches(request) => {
                    notifier.apply(
                        subscriber.entity,
                        &mut path,
                        &mut state,
                        Arc::clone(&outcome),
                        nav,
                    );
                }
                Ok(_) => stats.superseded_results_dropped += 1,
                // Despawned while its search ran: nothing to do.
                Err(_) => {}
            }
        }
    }
    if settings.cache_capacity == 0 {
        cache.clear();
    }
    stats.in_flight = in_flight.searches.len();
    stats.queue_length = queue.len();
}
