//! The plugin's own background threads for [`SearchThread::IdleThreads`](crate::SearchThread::IdleThreads),
//! which the operating system runs only on a core that the game's threads leave free.
//!
//! Two pools, started on first use and shared by every app of the process, as Bevy's are:
//! - the work pool runs searches, batches and builds, on as many threads as Bevy's async
//!   compute pool has (at least one), so that a thread's searcher is kept as often as there;
//! - the upkeep pool runs the spare copies of huge grids on one thread, so that a copy never
//!   waits behind a crowd's searches and is ready for the next edit.
//!
//! On Linux and Android each thread asks for `SCHED_IDLE` as it starts: a thread of the game
//! that wakes takes the core back at once, where a lowered nice value still waits out the
//! running thread's time slice. A thread cannot raise its priority again without privileges,
//! which is why the threads are the plugin's and not Bevy's. Elsewhere the threads keep the
//! normal priority.

use bevy::tasks::{TaskPool, TaskPoolBuilder};
use std::sync::OnceLock;

/// The pool of searches, batches and builds.
static WORK: OnceLock<TaskPool> = OnceLock::new();
/// The pool of spare grid copies.
static UPKEEP: OnceLock<TaskPool> = OnceLock::new();

/// The pool that runs the plugin's searches, batches and builds at idle priority.
pub(crate) fn work_pool() -> &'static TaskPool {
    WORK.get_or_init(|| {
        let threads = bevy::tasks::AsyncComputeTaskPool::try_get()
            .map_or(1, |pool| pool.thread_num())
            .max(1);
        idle_pool("astar search", threads)
    })
}

/// The pool that makes spare copies of huge grids at idle priority.
pub(crate) fn upkeep_pool() -> &'static TaskPool {
    UPKEEP.get_or_init(|| idle_pool("astar upkeep", 1))
}

/// A pool of `threads` threads called `name`, each at idle priority.
fn idle_pool(name: &str, threads: usize) -> TaskPool {
    TaskPoolBuilder::new()
        .num_threads(threads)
        .thread_name(name.to_owned())
        .on_thread_spawn(|| {
            // A thread the system does not lower still runs the work, at the normal priority.
            lower_this_thread();
        })
        .build()
}

/// Asks the operating system to run the calling thread only when a core is otherwise idle
/// (`SCHED_IDLE`). Returns whether it did; a refusal leaves the thread as it was.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[expect(
    unsafe_code,
    reason = "sched_setscheduler is a C function; it reads one parameter that lives on this stack"
)]
pub(crate) fn lower_this_thread() -> bool {
    let parameter = libc::sched_param { sched_priority: 0 };
    // SAFETY: 0 names the calling thread, and `parameter` outlives the call, which only reads it.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &raw const parameter) == 0 }
}

/// Elsewhere the threads keep the normal priority.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn lower_this_thread() -> bool {
    false
}

/// Whether the calling thread runs at idle priority (`SCHED_IDLE`).
#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
#[expect(
    unsafe_code,
    reason = "sched_getscheduler is a C function without arguments to check"
)]
pub(crate) fn this_thread_is_idle() -> bool {
    // SAFETY: 0 names the calling thread; the call reads nothing of ours.
    unsafe { libc::sched_getscheduler(0) == libc::SCHED_IDLE }
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;

    #[test]
    fn work_on_either_pool_runs_at_idle_priority_and_the_caller_keeps_its_own() {
        let work = bevy::tasks::block_on(work_pool().spawn(async { this_thread_is_idle() }));
        let upkeep = bevy::tasks::block_on(upkeep_pool().spawn(async { this_thread_is_idle() }));
        assert!(work && upkeep, "work pool {work}, upkeep pool {upkeep}");
        assert!(!this_thread_is_idle(), "the test's own thread was lowered");
    }
}
