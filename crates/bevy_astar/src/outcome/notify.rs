//! Writing a finished outcome into an agent's `Path`, with its message and entity event.

use super::RetiredOutcomes;
use crate::goal_tree::SharedRoute;
use crate::outcome::ReadyOutcome;
use crate::path::PathRoute;
use crate::request::PathRequestState;
use crate::trace::PathTrace;
use crate::{NavGrid, NavVersion, Path, PathAlgorithm, PathFound, PathNotFound, PathStatus};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use core::time::Duration;

/// What applying a result needs: commands for the trace and the observers, and the message
/// writers.
#[derive(SystemParam)]
pub(crate) struct PathNotifier<'w, 's> {
    commands: Commands<'w, 's>,
    found: MessageWriter<'w, PathFound>,
    not_found: MessageWriter<'w, PathNotFound>,
}

impl PathNotifier<'_, '_> {
    /// Shows `ready`'s outcome in the agent's path and announces it; what it replaces (the
    /// previous outcome, the cells and waypoints the path showed) goes to `retired`, to be freed
    /// off the main thread.
    pub(crate) fn apply(
        &mut self,
        (entity, path, state): (Entity, &mut Path, &mut PathRequestState),
        ready: ReadyOutcome,
        nav: &NavGrid,
        retired: &mut RetiredOutcomes,
    ) {
        if let Some(route) = ready.outcome.route.clone() {
            let (version, algorithm) = (ready.outcome.map_version, ready.outcome.algorithm);
            self.show_route((entity, path, state), route, (version, algorithm), retired);
            retired.retire_ready(Some(ready));
            return;
        }
        let (outcome, (cells, waypoints)) = ready.shown_in(nav.geometry());
        // The whole path of first cells the path shows: a follower walks on.
        let extends = (path.shows_first_cells()
            && outcome.status == PathStatus::Found
            && cells.starts_with(path.own_cells())
            && waypoints.starts_with(path.own_waypoints()))
        .then_some(path.revision);
        path.status = outcome.status;
        let cost = outcome.cost;
        let shown = path.replace_route(PathRoute::Own {
            cells,
            waypoints,
            cost,
        });
        retired.retire_route(shown);
        path.map_version = outcome.map_version;
        path.revision += 1;
        if let Some(shown) = extends {
            path.set_extends(shown);
        }
        path.search_time = outcome.duration;
        path.algorithm = outcome.algorithm;
        if let Some(trace) = &outcome.trace {
            self.commands
                .entity(entity)
                .try_insert(PathTrace::new(trace.clone()));
        }
        match outcome.status.failure() {
            None => {
                let found = PathFound { entity };
                self.found.write(found);
                self.commands.trigger(found);
            }
            Some(reason) => {
                let not_found = PathNotFound { entity, reason };
                self.not_found.write(not_found);
                self.commands.trigger(not_found);
            }
        }
        state.searching_for = None;
        retired.retire(state.set_applied(Some(outcome)));
    }

    /// Shows `route`, on a goal's shared tree of map version `map_version` made by
    /// `algorithm`, in the agent's path and announces it; the agent keeps no result of its own
    /// (map changes reach it through the tree).
    pub(crate) fn show_route(
        &mut self,
        (entity, path, state): (Entity, &mut Path, &mut PathRequestState),
        route: SharedRoute,
        (map_version, algorithm): (NavVersion, PathAlgorithm),
        retired: &mut RetiredOutcomes,
    ) {
        path.status = PathStatus::Found;
        retired.retire_route(path.replace_route(PathRoute::Shared(route)));
        path.map_version = map_version;
        path.revision += 1;
        path.search_time = Duration::ZERO;
        path.algorithm = algorithm;
        let found = PathFound { entity };
        self.found.write(found);
        self.commands.trigger(found);
        state.searching_for = None;
        retired.retire(state.set_applied(None));
        retired.retire(state.cut_path.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::SearchOutcome;
    use astar_grid::{Cell, Grid};
    use bevy::ecs::system::RunSystemOnce;
    use std::sync::Arc;

    /// Shows `outcome` in the one agent's path, as the Apply stage does.
    fn show(
        world: &mut World,
        outcome: Arc<SearchOutcome>,
    ) -> Result<(), bevy::ecs::system::RunSystemError> {
        world.run_system_once(
            move |mut notifier: PathNotifier,
                  nav: Res<NavGrid>,
                  mut retired: ResMut<RetiredOutcomes>,
                  mut agents: Query<(Entity, &mut Path, &mut PathRequestState)>| {
                for (entity, mut path, mut state) in &mut agents {
                    let agent = (entity, &mut *path, &mut *state);
                    notifier.apply(
                        agent,
                        ReadyOutcome::new(Arc::clone(&outcome)),
                        &nav,
                        &mut retired,
                    );
                }
            },
        )
    }

    /// A world with what applying needs but the grid, and one agent on it.
    fn world_with_agent() -> (World, Entity) {
        let mut world = World::new();
        world.init_resource::<Messages<PathFound>>();
        world.init_resource::<Messages<PathNotFound>>();
        world.init_resource::<RetiredOutcomes>();
        let agent = world
            .spawn((Path::default(), PathRequestState::default()))
            .id();
        (world, agent)
    }

    #[test]
    fn a_new_result_retires_the_cells_and_waypoints_the_path_showed() {
        let (mut world, agent) = world_with_agent();
        world.insert_resource(NavGrid::new(Grid::new(8, 8)));
        let geometry = world.resource::<NavGrid>().geometry();
        let placed = |cells| {
            let mut outcome = SearchOutcome::found_along(cells);
            outcome.place(geometry);
            Arc::new(outcome)
        };
        let first = placed(vec![Cell::new(0, 0), Cell::new(1, 0)]);
        assert!(show(&mut world, first).is_ok());
        drop(world.resource_mut::<RetiredOutcomes>().take());
        // The agent searches again: its outcome is let go of (and freed) while its path still
        // shows the cells, which the path then holds alone.
        let mut state = world.get_mut::<PathRequestState>(agent);
        let searching = state.as_mut().and_then(|state| state.set_applied(None));
        drop(searching);
        let path = world.get::<Path>(agent);
        let shown = path.map(|path| {
            (
                Arc::downgrade(&path.cells()),
                Arc::downgrade(&path.waypoints()),
            )
        });
        let Some((cells, waypoints)) = shown else {
            panic!("the agent has no path");
        };
        assert_eq!(cells.strong_count(), 1);

        let second = placed(vec![Cell::new(0, 0), Cell::new(0, 1)]);
        assert!(show(&mut world, second).is_ok());
        let (_, retired_paths, _) = world.resource_mut::<RetiredOutcomes>().take();
        assert_eq!(retired_paths.len(), 1);
        assert!(retired_paths.iter().any(|(kept, _)| {
            cells
                .upgrade()
                .is_some_and(|cells| Arc::ptr_eq(kept, &cells))
        }));
        assert!(waypoints.upgrade().is_some());
        drop(retired_paths);
        assert!(cells.upgrade().is_none() && waypoints.upgrade().is_none());
    }

    #[test]
    fn waypoints_worked_out_for_another_layout_are_placed_again_for_the_grid_s() {
        let (mut world, agent) = world_with_agent();
        let nav = NavGrid::new(Grid::new(8, 8));
        let mut outcome = SearchOutcome::found_along(vec![Cell::new(0, 0), Cell::new(1, 1)]);
        outcome.place(nav.geometry());
        // The grid is moved and rescaled after the search placed its waypoints.
        let moved = nav
            .with_origin(Vec2::new(100.0, -50.0))
            .with_cell_size(Vec2::splat(4.0));
        let expected: Vec<Vec2> = outcome
            .cells
            .iter()
            .map(|&cell| moved.geometry().footprint_center(cell, 1))
            .collect();
        assert_ne!(&*outcome.waypoints, &expected[..]);
        world.insert_resource(moved);
        assert!(show(&mut world, Arc::new(outcome)).is_ok());
        let shown = world
            .get::<Path>(agent)
            .map(|path| path.waypoints().to_vec());
        assert_eq!(shown, Some(expected));
    }
}
