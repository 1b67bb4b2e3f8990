//! Agents that walk A* paths given while their hierarchy was being built, queued again once it
//! has been built whole, so that they move onto their goal's shared sector routes: a map change
//! then reaches them through the goal's field, and no longer by a check of each agent's path.

use crate::engine::flow_field::FieldKey;
use crate::engine::goal_batch::GoalBatches;
use crate::engine::hierarchical::Hierarchies;
use crate::kinds::KindKey;
use crate::outcome::SearchOutcome;
use crate::queue::{RequestQueue, set_status};
use crate::request::PathRequestState;
use crate::{
    NavGrid, Path, PathAlgorithm, PathRequest, PathStatus, PathfindingSettings, PathfindingStats,
};
use astar_grid::Algorithm;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

/// The agents that walk paths of their own which a hierarchical request got from A* (a goal
/// batch, or a search alone) while the hierarchy was not yet built whole, by the goal's field
/// they may move onto, each with the [`Path::revision`] it showed then.
#[derive(Resource, Default)]
pub(crate) struct AwaitingRoutes {
    by_goal: HashMap<FieldKey, Vec<(Entity, u64)>>,
}

/// The goal's sector field that an agent asking `request`, and showing `shown`, may move onto
/// once its hierarchy is built whole; `None` when it has no reason to move:
/// - the request is not hierarchical, or its kind, options or batch settings keep it off the
///   goals' sector fields (`goal_batch_min` is 0, the options ask for more than an optimal,
///   unlimited search, or the hierarchy cannot serve them, as on a hexagonal map: it would
///   never be built for them, and the agent would wait here for good);
/// - its start stays where it was asked for (not [`PathRequest::start_at_agent`]): a route
///   from there would walk the agent back;
/// - what it shows is not a found path of its own made by A* (a hierarchical answer, a route
///   on a shared tree, or a failure, which map changes reach already).
pub(crate) fn field_to_move_onto(
    request: &PathRequest,
    shown: &SearchOutcome,
    goal_batch_min: usize,
) -> Option<FieldKey> {
    let kind = KindKey::of(request);
    let on_fields = request.algorithm == PathAlgorithm::Hierarchical
        && kind.is_default()
        && goal_batch_min > 0
        && GoalBatches::accepts_options(PathAlgorithm::AStar, &request.options)
        && Algorithm::Hierarchical
            .check_options(&request.options)
            .is_ok();
    let own_astar_path = shown.status == PathStatus::Found
        && shown.route.is_none()
        && shown.algorithm != PathAlgorithm::Hierarchical
        && shown.cells.len() > 1;
    (on_fields && request.start_at_agent && own_astar_path).then(|| {
        FieldKey::new(
            request.goal,
            request.options.movement,
            request.options.cost,
            kind,
        )
    })
}

/// The agents [`queue_agents_onto_routes`] reads: those whose path changed since its last run,
/// and all of them, to queue.
type RouteCandidates<'w, 's> = ParamSet<
    'w,
    's,
    (
        Query<
            'static,
            'static,
            (
                Entity,
                &'static PathRequest,
                &'static Path,
                &'static mut PathRequestState,
            ),
            Changed<Path>,
        >,
        Query<'static, 'static, (&'static mut Path, &'static mut PathRequestState)>,
    ),
>;

/// Notes the agents whose path changed to one [`field_to_move_onto`] names a field for, and
/// queues again, once the hierarchy of a goal they wait for is built whole, those still
/// showing that path: their requests join the goal's sector field, which gives them routes.
/// Each agent is queued so once (until it shows a hierarchical answer again), at most a quarter
/// of [`PathfindingSettings::max_paths_applied_per_frame`] a frame, and only while the queue
/// holds fewer than that: agents that a map change cut come first.
pub(crate) fn queue_agents_onto_routes(
    nav: Option<Res<NavGrid>>,
    settings: Res<PathfindingSettings>,
    mut work: (
        ResMut<AwaitingRoutes>,
        ResMut<Hierarchies>,
        ResMut<RequestQueue>,
        ResMut<PathfindingStats>,
    ),
    mut agents: RouteCandidates,
) {
    let (awaiting, hierarchies, queue, stats) = &mut work;
    for (entity, request, path, mut state) in &mut agents.p0() {
        let Some(shown) = state.applied.clone() else {
            continue;
        };
        if shown.algorithm == PathAlgorithm::Hierarchical {
            state.moved_onto_routes = false;
        }
        if state.moved_onto_routes {
            continue;
        }
        if let Some(key) = field_to_move_onto(request, &shown, settings.goal_batch_min) {
            let waiting = awaiting.by_goal.entry(key).or_default();
            if waiting.last() != Some(&(entity, path.revision)) {
                waiting.push((entity, path.revision));
            }
        }
    }
    let Some(nav) = nav.as_deref() else {
        return;
    };
    let most = (settings.max_paths_applied_per_frame / 4).max(1) as usize;
    let mut left = most.saturating_sub(queue.len());
    let mut agents = agents.p1();
    awaiting.by_goal.retain(|key, waiting| {
        if left == 0 || hierarchies.for_fields(nav, &key.options()).is_none() {
            return true;
        }
        while left > 0
            && let Some((entity, revision)) = waiting.pop()
        {
            let Ok((mut path, mut state)) = agents.get_mut(entity) else {
                continue;
            };
            let still_shown = path.revision == revision && state.applied.is_some();
            if !still_shown || state.moved_onto_routes || state.queued.is_some() {
                continue;
            }
            state.moved_onto_routes = true;
            queue.enqueue(entity, &mut state);
            set_status(&mut path, PathStatus::Queued);
            stats.paths_moved_onto_routes += 1;
            left -= 1;
        }
        !waiting.is_empty()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::PathFootprint;
    use astar_grid::{Cell, Movement, SearchOptions};
    use core::time::Duration;
    use std::sync::Arc;

    fn shown(algorithm: PathAlgorithm, status: PathStatus, cells: u32) -> SearchOutcome {
        let cells: Arc<[Cell]> = (0..cells).map(|x| Cell::new(x, 0)).collect();
        SearchOutcome {
            status,
            start: Cell::new(0, 0),
            goal: Cell::new(5, 0),
            footprint: PathFootprint::default(),
            waypoint_cells: cells.to_vec(),
            cells,
            waypoints: Arc::from([]),
            placed_in: None,
            cost: 0.0,
            trace: None,
            duration: Duration::ZERO,
            map_version: default(),
            algorithm,
            options: SearchOptions::default(),
            cacheable: true,
            kind: KindKey::DEFAULT,
            route: None,
        }
    }

    fn hierarchical() -> PathRequest {
        PathRequest::new(Cell::new(0, 0), Cell::new(5, 0))
            .with_algorithm(PathAlgorithm::Hierarchical)
            .with_start_at_agent(true)
    }

    #[test]
    fn only_astar_paths_of_hierarchical_requests_that_start_at_the_agent_move_onto_fields() {
        let astar = shown(PathAlgorithm::AStar, PathStatus::Found, 6);
        let key = field_to_move_onto(&hierarchical(), &astar, 8);
        assert_eq!(
            key,
            Some(FieldKey::new(
                Cell::new(5, 0),
                SearchOptions::default().movement,
                SearchOptions::default().cost,
                KindKey::DEFAULT
            ))
        );
        // Already hierarchical, failed, or at its goal: nothing to move.
        let by_hierarchy = shown(PathAlgorithm::Hierarchical, PathStatus::Found, 6);
        assert_eq!(field_to_move_onto(&hierarchical(), &by_hierarchy, 8), None);
        let failed = shown(PathAlgorithm::AStar, PathStatus::NoPath, 0);
        assert_eq!(field_to_move_onto(&hierarchical(), &failed, 8), None);
        let arrived = shown(PathAlgorithm::AStar, PathStatus::Found, 1);
        assert_eq!(field_to_move_onto(&hierarchical(), &arrived, 8), None);
        // Requests the fields do not serve.
        let astar_request = hierarchical().with_algorithm(PathAlgorithm::AStar);
        assert_eq!(field_to_move_onto(&astar_request, &astar, 8), None);
        let fixed_start = hierarchical().with_start_at_agent(false);
        assert_eq!(field_to_move_onto(&fixed_start, &astar, 8), None);
        assert_eq!(field_to_move_onto(&hierarchical(), &astar, 0), None);
        let mut limited = hierarchical();
        limited.options.max_expansions = Some(10);
        assert_eq!(field_to_move_onto(&limited, &astar, 8), None);
        let large = hierarchical().with_size(2);
        assert_eq!(field_to_move_onto(&large, &astar, 8), None);
        let mut hexagonal = hierarchical();
        hexagonal.options.movement = Movement::HEX;
        assert_eq!(field_to_move_onto(&hexagonal, &astar, 8), None);
    }
}
