//! Requests for one goal gathered during a frame's dispatch, so that a crowd heading for the
//! same place is answered by one search grown from the goal instead of one search per agent.

use crate::cache::RequestKey;
use crate::flow_fields::FieldKey;
use crate::in_flight::{SearchMember, Subscriber};
use crate::search_task::SearchJob;
use crate::{PathAlgorithm, PathRequest};
use astar_grid::SearchOptions;
use bevy::platform::collections::HashMap;

/// A request waiting in a batch: its key and the agents asking for it, what to search, and the
/// algorithm it asked for (should it be searched alone).
pub(crate) struct BatchMember {
    pub waiting: SearchMember,
    pub job: SearchJob,
    pub algorithm: PathAlgorithm,
}

/// This frame's batchable requests, grouped by goal, movement rule and cost model, in the
/// order their first request was queued.
#[derive(Default)]
pub(crate) struct GoalBatches {
    groups: Vec<Vec<BatchMember>>,
    group_of: HashMap<FieldKey, usize>,
    member_of: HashMap<RequestKey, (usize, usize)>,
}

impl GoalBatches {
    /// Whether a request may be answered by a search from its goal: the answer must be the one
    /// its own search would give, an optimal path or none, so A* and jump point requests with
    /// optimal options, no expansion limit or partial path, and no trace.
    pub(crate) fn accepts(request: &PathRequest, options: &SearchOptions) -> bool {
        matches!(
            request.algorithm,
            PathAlgorithm::AStar | PathAlgorithm::JumpPoint
        ) && options.is_optimal()
            && options.max_expansions.is_none()
            && !options.partial_path
            && !options.trace
    }

    /// Adds `subscriber`'s request; returns false when an identical request was already added
    /// this frame (the agent then shares its answer).
    pub(crate) fn add(
        &mut self,
        key: RequestKey,
        job: SearchJob,
        algorithm: PathAlgorithm,
        subscriber: Subscriber,
    ) -> bool {
        if let Some(&(group, member)) = self.member_of.get(&key) {
            self.groups[group][member]
                .waiting
                .subscribers
                .push(subscriber);
            return false;
        }
        let field = FieldKey::new(job.goal, job.options.movement, job.options.cost);
        let group = *self.group_of.entry(field).or_insert_with(|| {
            self.groups.push(Vec::new());
            self.groups.len() - 1
        });
        self.member_of
            .insert(key, (group, self.groups[group].len()));
        self.groups[group].push(BatchMember {
            waiting: SearchMember {
                key,
                subscribers: vec![subscriber],
            },
            job,
            algorithm,
        });
        true
    }

    /// The groups, oldest first.
    pub(crate) fn into_groups(self) -> Vec<Vec<BatchMember>> {
        self.groups
    }
}
