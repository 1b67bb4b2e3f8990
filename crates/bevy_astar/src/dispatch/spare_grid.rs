//! The spare copy of a huge navigation grid, made on the task pool while searches hold the
//! grid, so that the game's next edit takes it instead of copying the grid on the frame.

use crate::background::upkeep_pool;
use crate::{NavGrid, PathfindingSettings};
use bevy::prelude::*;
use std::sync::{Arc, PoisonError};

/// Copies the navigation grid on the task pool while searches hold it (a grid of a million
/// cells or more, [`NavGrid`]), so that the next edit takes the copy instead of copying the
/// grid on the frame. Without Bevy's `multi_threaded`, or with searches on the main thread,
/// the edit copies the grid itself, as it did.
///
/// The copy runs on the IO task pool, beside the searches and builds that fill the async
/// compute pool: queued behind them, it was not ready for the next edit. With
/// [`SearchThread::IdleThreads`](crate::SearchThread::IdleThreads) it runs on the plugin's
/// idle upkeep thread instead, beside its idle search threads. Waiting, the task holds the grid
/// by a weak reference only, so that it never keeps the grid from being edited in place; a grid
/// nothing holds any more when the task starts is not copied.
pub(crate) fn prepare_spare_grid(nav: Option<ResMut<NavGrid>>, settings: Res<PathfindingSettings>) {
    if !settings.search_thread.is_pool() {
        return;
    }
    let Some(mut nav) = nav else {
        return;
    };
    let Some((grid, slot)) = nav.bypass_change_detection().spare_to_make() else {
        return;
    };
    let grid = Arc::downgrade(&grid);
    upkeep_pool(settings.search_thread, bevy::tasks::IoTaskPool::get())
        .spawn(async move {
            let Some(grid) = grid.upgrade() else {
                return;
            };
            let copy = astar_grid::Grid::clone(&grid);
            drop(grid);
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(copy);
        })
        .detach();
}
