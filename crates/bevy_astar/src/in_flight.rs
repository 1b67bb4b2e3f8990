//! The searches running in the background: each answers one request, or a batch of requests
//! for one goal, and lists the agents waiting for each answer.

use crate::background::BackgroundTask;
use crate::cache::RequestKey;
use crate::kinds::KindKey;
use crate::outcome::ReadyOutcome;
use crate::{NavChange, PathRequest};
use astar_grid::Grid;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use core::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::vec;

/// An agent waiting for a running search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Subscriber {
    pub entity: Entity,
    /// Its place in the queue, kept if the search must be redone.
    pub sequence: u64,
}

/// One request a running search answers, and the agents that want its answer.
pub(crate) struct SearchMember {
    pub key: RequestKey,
    pub subscribers: Vec<Subscriber>,
}

impl SearchMember {
    /// Whether some subscriber still exists and still asks for this request.
    pub(crate) fn is_wanted(&self, request_of: impl Fn(Entity) -> Option<PathRequest>) -> bool {
        self.subscribers.iter().any(|subscriber| {
            request_of(subscriber.entity).is_some_and(|request| self.key.matches(&request))
        })
    }
}

/// A search running in the background ([`BackgroundTask`]).
pub(crate) struct InFlightSearch {
    /// One outcome per member, in member order, made ready for applying ([`ReadyOutcome`]);
    /// `None` when it gave up because
    /// [`InFlightSearch::cancelled`] was set.
    pub task: BackgroundTask<Option<Vec<ReadyOutcome>>>,
    /// Set when no agent wants the result any more, so that a long search stops early.
    pub cancelled: Arc<AtomicBool>,
    /// The grid it searches; kept so that edits copy the grid instead of changing it.
    pub snapshot: Arc<Grid>,
    /// The agent kind whose grid it searches, whose changes can make its result stale.
    pub kind: KindKey,
    /// The navigation grid's id and the profiles' revision when it started: a result of
    /// another grid, or (for agents of other kinds) of other profiles, is stale.
    pub origin: (u64, u64),
    /// Map changes published since it started.
    pub changes: Vec<Arc<NavChange>>,
    /// The requests it answers: one, or several for one goal.
    pub members: Vec<SearchMember>,
    /// Once the task has finished: the outcomes of the members not applied yet, in order, the
    /// first of them for `members[next_member]`. A large batch is applied over several frames
    /// (see [`PathfindingSettings::max_paths_applied_per_frame`](crate::PathfindingSettings)).
    pub results: Option<vec::IntoIter<ReadyOutcome>>,
    /// The member whose outcome is applied next.
    pub next_member: usize,
    /// Whether an identical request may wait for its answer ([`InFlightSearches::join`]): a
    /// single search from scratch, not a goal batch (see [`InFlightSearches::insert`]) and not
    /// the repair of one agent's cut path, whose spliced path a fresh request would not get.
    pub joinable: bool,
}

impl InFlightSearch {
    /// Whether it answers a goal batch (several requests for one goal) rather than one request.
    pub(crate) fn is_batch(&self) -> bool {
        self.members.len() > 1
    }

    /// A search that has just started, for `members`; a single search that is no repair is
    /// `joinable`.
    pub(crate) fn new(
        task: BackgroundTask<Option<Vec<ReadyOutcome>>>,
        cancelled: Arc<AtomicBool>,
        (snapshot, kind): (Arc<Grid>, KindKey),
        origin: (u64, u64),
        (members, repair): (Vec<SearchMember>, bool),
    ) -> Self {
        let joinable = members.len() == 1 && !repair;
        Self {
            joinable,
            task,
            cancelled,
            snapshot,
            kind,
            origin,
            changes: Vec::new(),
            members,
            results: None,
            next_member: 0,
        }
    }
}

/// Running searches, with at most one answering any request key.
#[derive(Resource, Default)]
pub(crate) struct InFlightSearches {
    searches: HashMap<u64, InFlightSearch>,
    /// For every request being answered: its search and its place among the members.
    by_key: HashMap<RequestKey, (u64, usize)>,
    next_id: u64,
}

impl InFlightSearches {
    /// Number of searches running.
    pub(crate) fn len(&self) -> usize {
        self.searches.len()
    }

    /// Whether a running search answers `key`, so that [`InFlightSearches::join`] succeeds.
    pub(crate) fn is_running(&self, key: &RequestKey) -> bool {
        self.by_key.get(key).is_some_and(|&(id, member)| {
            self.searches
                .get(&id)
                .is_some_and(|search| member < search.members.len())
        })
    }

    /// Adds `subscriber` to the running search answering `key`; false when there is none.
    pub(crate) fn join(&mut self, key: &RequestKey, subscriber: Subscriber) -> bool {
        let Some(&(id, member)) = self.by_key.get(key) else {
            return false;
        };
        let Some(member) = self
            .searches
            .get_mut(&id)
            .and_then(|search| search.members.get_mut(member))
        else {
            return false;
        };
        // An agent subscribed already waits now at its new place in the queue.
        match member
            .subscribers
            .iter_mut()
            .find(|other| other.entity == subscriber.entity)
        {
            Some(subscribed) => subscribed.sequence = subscriber.sequence,
            None => member.subscribers.push(subscriber),
        }
        true
    }

    /// Records a search just started. A single search can be joined by identical requests
    /// ([`InFlightSearches::join`]); a goal batch cannot: registering each of its thousands of
    /// members would cost more on the main thread than the rare identical request later costs
    /// the next batch, which resumes the goal's Dijkstra and finds that start settled.
    pub(crate) fn insert(&mut self, search: InFlightSearch) {
        self.next_id += 1;
        let id = self.next_id;
        if search.joinable {
            for (index, member) in search.members.iter().enumerate() {
                self.by_key.insert(member.key, (id, index));
            }
        }
        self.searches.insert(id, search);
    }

    /// Takes the search `id` out for good, with its members.
    pub(crate) fn remove(&mut self, id: u64) -> Option<InFlightSearch> {
        let search = self.searches.remove(&id)?;
        self.forget_members(&search, id, 0..search.members.len());
        Some(search)
    }

    /// Stops routing to the search `id` the keys of its members `answered` (those of a search
    /// that is not joinable never were).
    pub(crate) fn forget_members(
        &mut self,
        search: &InFlightSearch,
        id: u64,
        answered: core::ops::Range<usize>,
    ) {
        if !search.joinable {
            return;
        }
        for member in search.members.get(answered).unwrap_or_default() {
            self.forget(&member.key, id);
        }
    }

    /// Takes the search `id` out while its results are applied; its members stay joinable
    /// until [`InFlightSearches::forget_members`] or [`InFlightSearches::restore`].
    pub(crate) fn take(&mut self, id: u64) -> Option<InFlightSearch> {
        self.searches.remove(&id)
    }

    /// Puts back a search taken out with [`InFlightSearches::take`].
    pub(crate) fn restore(&mut self, id: u64, search: InFlightSearch) {
        self.searches.insert(id, search);
    }

    /// Stops routing `key` to the search `id` (its member has been answered).
    fn forget(&mut self, key: &RequestKey, id: u64) {
        if self.by_key.get(key).is_some_and(|&(at, _)| at == id) {
            self.by_key.remove(key);
        }
    }

    /// The searches whose results are waiting to be applied, oldest first.
    pub(crate) fn with_results(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .searches
            .iter()
            .filter(|(_, search)| search.results.is_some())
            .map(|(&id, _)| id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Every running search with its id.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (u64, &mut InFlightSearch)> {
        self.searches.iter_mut().map(|(&id, search)| (id, search))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::Cell;

    fn key(x: u32) -> RequestKey {
        let request = PathRequest::new(Cell::new(x, 0), Cell::new(0, 1));
        RequestKey::new(&request, &request.options)
    }

    /// A search for `keys`, one subscriber each, whose task never runs.
    fn search_for(keys: &[RequestKey]) -> InFlightSearch {
        bevy::tasks::AsyncComputeTaskPool::get_or_init(bevy::tasks::TaskPool::default);
        let subscriber = Subscriber {
            entity: Entity::PLACEHOLDER,
            sequence: 0,
        };
        let members = keys
            .iter()
            .map(|&key| SearchMember {
                key,
                subscribers: vec![subscriber],
            })
            .collect();
        let placement = crate::background::Placement {
            thread: crate::SearchThread::TaskPool,
            queue: &crate::background::MainThreadWork::default(),
        };
        let task = BackgroundTask::spawn(core::future::pending(), placement);
        let grid = Arc::new(Grid::new(2, 2));
        InFlightSearch::new(
            task,
            Arc::default(),
            (grid, KindKey::DEFAULT),
            (0, 0),
            (members, false),
        )
    }

    #[test]
    fn single_searches_are_joined_until_answered_and_goal_batches_are_not() {
        let mut in_flight = InFlightSearches::default();
        in_flight.insert(search_for(&[key(0)]));
        in_flight.insert(search_for(&[key(1), key(2)]));
        assert!(in_flight.is_running(&key(0)));
        assert!(!in_flight.is_running(&key(1)) && !in_flight.is_running(&key(2)));
        let joining = Subscriber {
            entity: Entity::from_raw_u32(7).unwrap_or(Entity::PLACEHOLDER),
            sequence: 1,
        };
        assert!(in_flight.join(&key(0), joining));
        assert!(!in_flight.join(&key(1), joining));

        let single = in_flight.take(1);
        assert!(
            single
                .as_ref()
                .is_some_and(|search| search.members[0].subscribers.len() == 2)
        );
        if let Some(single) = single {
            // Answered, and put back as a search with members left would be.
            in_flight.forget_members(&single, 1, 0..1);
            in_flight.restore(1, single);
        }
        assert_eq!(in_flight.len(), 2);
        assert!(!in_flight.is_running(&key(0)));
        assert!(in_flight.remove(2).is_some() && in_flight.remove(1).is_some());
        assert_eq!(in_flight.len(), 0);
    }
}
