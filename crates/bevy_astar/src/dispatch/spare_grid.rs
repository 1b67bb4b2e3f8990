//! The spare copy of a huge navigation grid, made on the task pool while searches hold the
//! grid, so that the game's next edit takes it instead of copying the grid on the frame.

use crate::{NavGrid, PathfindingSettings, SearchThread};
use bevy::prelude::*;
use std::sync::PoisonError;

/// Copies the navigation grid on the task pool while searches hold it (a grid of a million
/// cells or more, [`NavGrid`]), so that the next edit takes the copy instead of copying the
/// grid on the frame. Without Bevy's `multi_threaded`, or with searches on the main thread,
/// the edit copies the grid itself, as it did.
pub(crate) fn prepare_spare_grid(nav: Option<ResMut<NavGrid>>, settings: Res<PathfindingSettings>) {
    if !cfg!(feature = "multi_threaded") || settings.search_thread != SearchThread::TaskPool {
        return;
    }
    let Some(mut nav) = nav else {
        return;
    };
    let Some((grid, slot)) = nav.bypass_change_detection().spare_to_make() else {
        return;
    };
    bevy::tasks::AsyncComputeTaskPool::get()
        .spawn(async move {
            let copy = astar_grid::Grid::clone(&grid);
            drop(grid);
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(copy);
        })
        .detach();
}
