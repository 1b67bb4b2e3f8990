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
    for (id, search) in in_flight.iter_mut() {
        let wanted = search.members.iter().any(|member| {
            member.is_wanted(|entity| agents.get(entity).ok().map(|(request, ..)| *request))
        });
        if !wanted {
            // Stops a long A* between two slices; dropping the task below stops one not begun.
            search.cancelled.store(true, Ordering::Relaxed);
            finished.push((id, None));
        } else if let Some(outcomes) = check_ready(&mut search.task) {
            finished.push((id, outcomes));
        }
    }
    let policy = settings.invalidation;
    let mut pending_changes: Option<MapChange> = None;
    for (id, outcomes) in finished {
        let Some(search) = in_flight.remove(id) else {
            continue;
        };
        let Some(outcomes) = outcomes else {
            stats.searches_cancelled += 1;
            continue;
        };
        stats.searches_finished += 1;
        if let Some(outcome) = outcomes.first() {
            stats.record_search_time(outcome.duration);
        }
        for (member, mut outcome) in search.members.iter().zip(outcomes) {
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
                for subscriber in &member.subscribers {
                    if let Ok((request, mut path, mut state)) = agents.get_mut(subscriber.entity)
                        && member.key.matches(request)
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
                cache.insert(member.key, Arc::clone(&outcome), settings.cache_capacity);
            }
            for subscriber in &member.subscribers {
                match agents.get_mut(subscriber.entity) {
                    Ok((request, mut path, mut state)) if member.key.matches(request) => {
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
    }
    if settings.cache_capacity == 0 {
        cache.clear();
    }
    stats.in_flight = in_flight.len();
    stats.queue_length = queue.len();
}
