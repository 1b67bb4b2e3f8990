//! Where searches and field builds run. With Bevy's `multi_threaded` (the plugin's default
//! feature) they are tasks of the [`AsyncComputeTaskPool`](bevy::tasks::AsyncComputeTaskPool),
//! on its threads, unless [`PathfindingSettings::search_thread`] asks for the main thread.
//! Without it (as on the web) that pool runs a task to its end as soon as it is spawned, on
//! the main thread: a long search would stall the frame that started it. On the main thread
//! the plugin keeps its own queue of work instead, and
//! [`advance_main_thread_work`] runs it oldest first within
//! [`PathfindingSettings::stage_budget`]: a search yields at its slice points
//! ([`slice_point`]) once the frame's time is spent, and goes on where it stopped next frame.
//!
//! On the task pool, work waits at its slice points while the plugin's stages run, if
//! [`PathfindingSettings::background_pause`] says so ([`gate`]): on a machine with two cores,
//! the frame's two executor threads and a background search otherwise share them, and a stage
//! waits for a core while the search runs.

#[cfg_attr(
    all(not(feature = "multi_threaded"), not(test)),
    expect(dead_code, reason = "only tasks on the pool wait at the gate")
)]
mod gate;
#[cfg(feature = "multi_threaded")]
pub(crate) mod idle_pool;

use crate::{BackgroundPause, CarriedOver, PathfindingSettings, PathfindingStats, SearchThread};
pub(crate) use main_thread::MainThreadWork;

use bevy::prelude::*;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;

/// Outcomes a batch works out (its paths read, smoothed and placed in the world) between two
/// slice points.
pub(crate) const OUTCOMES_PER_SLICE: usize = 32;

/// Work started for the plugin, whose output is collected with
/// [`BackgroundTask::check_ready`]; dropping it abandons the work.
pub(crate) struct BackgroundTask<T>(Handle<T>);

/// Where a [`BackgroundTask`]'s work runs, and how its output comes back.
enum Handle<T> {
    /// A task of the async compute pool.
    #[cfg(feature = "multi_threaded")]
    Pool(bevy::tasks::Task<T>),
    /// Work queued on the main thread, which stores its output in the slot.
    MainThread(std::sync::Arc<std::sync::Mutex<Option<T>>>),
}

/// Where new work goes: [`PathfindingSettings::search_thread`], and the app's queue of work
/// for the main thread.
#[derive(Clone, Copy)]
pub(crate) struct Placement<'a> {
    pub(crate) thread: SearchThread,
    pub(crate) queue: &'a MainThreadWork,
}

impl<T: Send + 'static> BackgroundTask<T> {
    /// Starts `work` where `placement` says: on the task pool, or queued on the main thread
    /// (always, without Bevy's `multi_threaded`).
    pub(crate) fn spawn(
        work: impl Future<Output = T> + Send + 'static,
        placement: Placement<'_>,
    ) -> Self {
        #[cfg(feature = "multi_threaded")]
        if placement.thread.is_pool() {
            let pool = match placement.thread {
                SearchThread::IdleThreads => idle_pool::work_pool(),
                _ => bevy::tasks::AsyncComputeTaskPool::get(),
            };
            return Self(Handle::Pool(pool.spawn(async move {
                // The woken worker may have taken the core of the system that spawned it
                // (a thread that slept is favoured on waking): on a machine with few
                // cores, waiting for the stages, or giving the core back once, lets the
                // frame's systems finish before the work gets going.
                if !gate::PROCESS_GATE.wait_while_closed() {
                    std::thread::yield_now();
                }
                work.await
            })));
        }
        let slot = std::sync::Arc::new(std::sync::Mutex::new(None));
        placement
            .queue
            .queue(work, std::sync::Arc::downgrade(&slot));
        Self(Handle::MainThread(slot))
    }

    /// The work's output once it has finished, taken out (later calls return `None`).
    pub(crate) fn check_ready(&mut self) -> Option<T> {
        match &mut self.0 {
            #[cfg(feature = "multi_threaded")]
            Handle::Pool(task) => bevy::tasks::futures::check_ready(task),
            Handle::MainThread(slot) => slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take(),
        }
    }

    /// Waits for the work's output, running the app's main-thread work, `queue`, for it if
    /// need be.
    #[cfg(test)]
    pub(crate) fn wait(&mut self, queue: &MainThreadWork) -> T {
        #[cfg(feature = "multi_threaded")]
        if let Handle::Pool(task) = &mut self.0 {
            return bevy::tasks::block_on(task);
        }
        loop {
            if let Some(output) = self.check_ready() {
                return output;
            }
            queue.run(Duration::MAX);
        }
    }
}

/// A point between two slices of a search: once the frame's main-thread time is spent, the
/// search yields here and goes on next frame. Searches on the task pool never yield; they wait
/// here while the stage gate is closed.
pub(crate) fn slice_point() -> impl Future<Output = ()> {
    SlicePoint { passed: false }
}

/// The future of [`slice_point`].
struct SlicePoint {
    passed: bool,
}

impl Future for SlicePoint {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        // Work on the main thread runs while the stages hold the gate: it never waits there.
        #[cfg(feature = "multi_threaded")]
        if !main_thread::running() {
            gate::PROCESS_GATE.wait_while_closed();
        }
        if self.passed || !main_thread::out_of_time() {
            return Poll::Ready(());
        }
        self.passed = true;
        context.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Runs the work queued on the main thread, oldest first, within
/// [`PathfindingSettings::stage_budget`] (the oldest always runs a slice), and reports what is
/// left in [`CarriedOver::searches`](crate::CarriedOver::searches). Nothing is queued when
/// the task pool runs the work.
pub(crate) fn advance_main_thread_work(
    settings: Res<PathfindingSettings>,
    work: Res<MainThreadWork>,
    mut stats: ResMut<PathfindingStats>,
) {
    let left = work.run(settings.stage_budget);
    stats.carried_over.searches = left;
}

/// The pool for upkeep (spare grid copies, drops): the plugin's idle upkeep thread where
/// `thread` is [`SearchThread::IdleThreads`] (with Bevy's `multi_threaded`), `usual`, one of
/// Bevy's pools, otherwise.
pub(crate) fn upkeep_pool(
    thread: SearchThread,
    usual: &'static bevy::tasks::TaskPool,
) -> &'static bevy::tasks::TaskPool {
    #[cfg(feature = "multi_threaded")]
    if thread == SearchThread::IdleThreads {
        return idle_pool::upkeep_pool();
    }
    let _ = thread;
    usual
}

/// Drops `outcomes` on the async compute pool, or on the plugin's idle upkeep thread where
/// `thread` is [`SearchThread::IdleThreads`], once the stages have run.
pub(crate) fn drop_in_background<T: Send + 'static>(outcomes: T, thread: SearchThread) {
    upkeep_pool(thread, bevy::tasks::AsyncComputeTaskPool::get())
        .spawn(async move {
            #[cfg(feature = "multi_threaded")]
            gate::PROCESS_GATE.wait_while_closed();
            drop(outcomes);
        })
        .detach();
}

/// While the plugin's stages run, the stage gate that [`PathfindingSettings::background_pause`]
/// closed.
#[derive(Resource, Default)]
pub(crate) struct StageGateHold(Option<gate::GateClosed>);

/// The longest the stage gate stays closed in a frame, whatever the stage budget.
const LONGEST_PAUSE: Duration = Duration::from_millis(20);

/// Closes the stage gate for the plugin's stages, if the settings say so and the stages carried
/// work over last frame (a burst, when they are at their budgets; otherwise their work is short
/// and the gate would only delay the background's): for at most four stage budgets
/// ([`LONGEST_PAUSE`] at most), so that work never waits long whatever the stages, or the
/// systems running beside them, do.
pub(crate) fn close_stage_gate(
    settings: Res<PathfindingSettings>,
    stats: Res<PathfindingStats>,
    mut hold: ResMut<StageGateHold>,
) {
    let pause = cfg!(feature = "multi_threaded") && pauses(&settings, &stats.carried_over);
    let longest = settings.stage_budget.saturating_mul(4).min(LONGEST_PAUSE);
    hold.0 = pause.then(|| gate::PROCESS_GATE.close(longest));
}

/// Whether background work pauses for this frame's stages, after `carried` was left over.
fn pauses(settings: &PathfindingSettings, carried: &CarriedOver) -> bool {
    let burst = carried.scans
        + carried.invalidations
        + carried.dispatches
        + carried.batched
        + carried.results
        > 0;
    burst && settings.background_pause.applies()
}

/// Opens the stage gate once the plugin's stages have run.
pub(crate) fn open_stage_gate(mut hold: ResMut<StageGateHold>) {
    hold.0 = None;
}

/// Whether this machine has two cores or fewer (or will not say).
fn few_cores() -> bool {
    std::thread::available_parallelism().map_or(true, |cores| cores.get() <= 2)
}

impl BackgroundPause {
    /// Whether background work pauses on this machine.
    fn applies(self) -> bool {
        match self {
            Self::OnFewCores => {
                static FEW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
                *FEW.get_or_init(few_cores)
            }
            Self::Always => true,
            Self::Never => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_work_pauses_in_a_burst_where_the_setting_says_so() {
        let settings = |background_pause| PathfindingSettings {
            background_pause,
            ..PathfindingSettings::default()
        };
        let quiet = CarriedOver::default();
        let bursts = [
            CarriedOver { scans: 1, ..quiet },
            CarriedOver {
                invalidations: 1,
                ..quiet
            },
            CarriedOver {
                dispatches: 1,
                ..quiet
            },
            CarriedOver {
                batched: 1,
                ..quiet
            },
            CarriedOver {
                results: 1,
                ..quiet
            },
        ];
        for burst in &bursts {
            assert!(pauses(&settings(BackgroundPause::Always), burst));
            assert!(!pauses(&settings(BackgroundPause::Never), burst));
            assert_eq!(
                pauses(&settings(BackgroundPause::OnFewCores), burst),
                few_cores()
            );
        }
        // Searches left on the main thread are not the task pool's: no pause for them.
        let main_thread = CarriedOver {
            searches: 1,
            ..quiet
        };
        for pause in [BackgroundPause::Always, BackgroundPause::OnFewCores] {
            assert!(!pauses(&settings(pause), &quiet));
            assert!(!pauses(&settings(pause), &main_thread));
        }
    }

    #[cfg(all(
        feature = "multi_threaded",
        any(target_os = "linux", target_os = "android")
    ))]
    #[test]
    fn work_runs_at_idle_priority_on_idle_threads_only() {
        bevy::tasks::AsyncComputeTaskPool::get_or_init(bevy::tasks::TaskPool::default);
        let queue = MainThreadWork::default();
        let idle_where = |thread| {
            let placement = Placement {
                thread,
                queue: &queue,
            };
            let mut task = BackgroundTask::spawn(
                async {
                    (
                        idle_pool::this_thread_is_idle(),
                        std::thread::current().id(),
                    )
                },
                placement,
            );
            task.wait(&queue)
        };
        let here = std::thread::current().id();
        let (idle, thread) = idle_where(SearchThread::IdleThreads);
        assert!(idle && thread != here, "idle threads: idle {idle}");
        let (idle, thread) = idle_where(SearchThread::TaskPool);
        assert!(!idle && thread != here, "task pool: idle {idle}");
        let (idle, thread) = idle_where(SearchThread::MainThread);
        assert!(!idle && thread == here, "main thread: idle {idle}");
    }
}

mod main_thread {
    use bevy::platform::time::Instant;
    use bevy::prelude::Resource;
    use core::cell::Cell;
    use core::future::Future;
    use core::pin::Pin;
    use core::task::{Context, Waker};
    use core::time::Duration;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

    /// One piece of queued work.
    struct Queued {
        /// The work, which stores its output where its handle reads it.
        work: Pin<Box<dyn Future<Output = ()> + Send>>,
        /// Whether its handle still exists (else nobody wants the output).
        wanted: Box<dyn Fn() -> bool + Send>,
    }

    /// The work an app queued for its main thread, oldest first: one queue per app, which
    /// whatever thread runs the app's systems reaches.
    #[derive(Resource, Clone, Default)]
    pub(crate) struct MainThreadWork(Arc<Mutex<VecDeque<Queued>>>);

    thread_local! {
        /// When the running slice's time is up, while [`MainThreadWork::run`] runs work.
        static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    }

    impl MainThreadWork {
        /// The queue, locked.
        fn locked(&self) -> MutexGuard<'_, VecDeque<Queued>> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner)
        }

        /// Queues `work`, whose output goes to `slot` if it still exists by then.
        pub(super) fn queue<T: Send + 'static>(
            &self,
            work: impl Future<Output = T> + Send + 'static,
            slot: Weak<Mutex<Option<T>>>,
        ) {
            let wanted = {
                let slot = Weak::clone(&slot);
                Box::new(move || slot.strong_count() > 0)
            };
            let work = Box::pin(async move {
                let output = work.await;
                if let Some(slot) = slot.upgrade() {
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(output);
                }
            });
            self.locked().push_back(Queued { work, wanted });
        }

        /// Runs queued work oldest first for `budget`: the oldest runs at least to its next
        /// slice point; a piece that yields because its time is up stays first in the queue
        /// (one waiting on anything else goes last). Returns how many pieces are left.
        pub(crate) fn run(&self, budget: Duration) -> usize {
            let began = Instant::now();
            let deadline = began
                .checked_add(budget)
                .unwrap_or(began + Duration::from_secs(86_400));
            DEADLINE.set(Some(deadline));
            let mut context = Context::from_waker(Waker::noop());
            // Each piece is looked at once at most, so work that waits on something else
            // cannot keep the loop going.
            let pieces = self.locked().len();
            for _ in 0..pieces {
                let Some(mut queued) = self.locked().pop_front() else {
                    break;
                };
                if !(queued.wanted)() {
                    continue; // abandoned: dropped unrun
                }
                let finished = queued.work.as_mut().poll(&mut context).is_ready();
                if !finished {
                    let mut queue = self.locked();
                    if out_of_time() {
                        queue.push_front(queued);
                    } else {
                        queue.push_back(queued);
                    }
                }
                if out_of_time() {
                    break;
                }
            }
            DEADLINE.set(None);
            self.locked()
                .iter()
                .filter(|queued| (queued.wanted)())
                .count()
        }
    }

    /// Whether this thread is running queued work now.
    #[cfg_attr(
        not(feature = "multi_threaded"),
        expect(dead_code, reason = "only work on the pool asks where it runs")
    )]
    pub(super) fn running() -> bool {
        DEADLINE.get().is_some()
    }

    /// Whether the running slice's time is up.
    pub(super) fn out_of_time() -> bool {
        DEADLINE
            .get()
            .is_some_and(|deadline| Instant::now() >= deadline)
    }
}
