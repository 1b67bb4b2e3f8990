//! The stage gate: background work waits at its slice points while the plugin's stages run,
//! so that on a machine with few cores the stages are not left waiting for a core.
//!
//! Work is never held back for long: a closing lasts until the stages end or its time is up,
//! work that waited goes on once the gate has opened even if it closed again since (frames run
//! back to back), and a thread that waited may then run as long as it waited without looking at
//! the gate, so the gate takes at most half of the background's time.

use bevy::platform::time::Instant;
use core::cell::Cell;
use core::sync::atomic::{AtomicBool, Ordering};
use core::time::Duration;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How often waiting work looks at the gate again. The gate does not wake it when it opens:
/// on a machine with few cores, a thread woken by another takes that one's core, and the
/// stage that opened the gate would wait for it.
const LOOK_AGAIN: Duration = Duration::from_micros(200);

/// Who holds the gate closed, and until when at the latest.
#[derive(Default)]
struct GateState {
    /// How many apps are in their stages (each [`GateClosed`] counts once).
    closers: u32,
    /// When waiting work goes on even if the gate is still closed.
    until: Option<Instant>,
    /// How many times the gate was closed from open.
    closings: u64,
}

impl GateState {
    /// Whether work arriving `now` waits.
    fn holds(&self, now: Instant) -> bool {
        self.closers > 0 && self.until.is_some_and(|until| now < until)
    }
}

thread_local! {
    /// Until when this thread's work goes on without looking at the gate, having waited at it.
    static PASS_UNTIL: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// A gate that background work waits at while it is closed.
pub(crate) struct StageGate {
    state: Mutex<GateState>,
    /// Whether anyone holds the gate closed (`closers` above 0), written with it: work on an
    /// open gate, the usual case at every slice point, goes on without taking the lock.
    held: AtomicBool,
}

/// The process's gate: the contention it eases is for the process's cores, whichever app's
/// stages run.
pub(crate) static PROCESS_GATE: StageGate = StageGate::new();

impl StageGate {
    /// An open gate.
    pub(crate) const fn new() -> Self {
        Self {
            state: Mutex::new(GateState {
                closers: 0,
                until: None,
                closings: 0,
            }),
            held: AtomicBool::new(false),
        }
    }

    fn state(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the gate for at most `longest`, until the returned guard is dropped.
    pub(crate) fn close(&'static self, longest: Duration) -> GateClosed {
        let now = Instant::now();
        let until = now.checked_add(longest).unwrap_or(now);
        let mut state = self.state();
        if state.closers == 0 {
            state.closings += 1;
        }
        state.closers += 1;
        self.held.store(true, Ordering::Relaxed);
        state.until = Some(state.until.map_or(until, |held| held.max(until)));
        GateClosed(self)
    }

    /// Waits while the gate is closed, looking again every [`LOOK_AGAIN`]: until it opens
    /// (even if it closes again before this looks), or its time is up. A thread that waited
    /// then goes on for as long as it waited without looking. Returns whether it waited.
    pub(crate) fn wait_while_closed(&self) -> bool {
        if !self.held.load(Ordering::Relaxed) {
            return false;
        }
        let arrived = Instant::now();
        if PASS_UNTIL.get().is_some_and(|until| arrived < until) {
            return false;
        }
        let closing = {
            let state = self.state();
            if !state.holds(arrived) {
                return false;
            }
            state.closings
        };
        loop {
            let left = {
                let state = self.state();
                let now = Instant::now();
                match state.until {
                    Some(until) if state.holds(now) && state.closings == closing => until - now,
                    _ => break,
                }
            };
            std::thread::sleep(left.min(LOOK_AGAIN));
        }
        let now = Instant::now();
        PASS_UNTIL.set(now.checked_add(now - arrived));
        true
    }
}

/// Holds a [`StageGate`] closed until dropped, or until the time it was closed for is up,
/// whichever comes first.
#[must_use = "the gate opens again when this is dropped"]
pub(crate) struct GateClosed(&'static StageGate);

impl Drop for GateClosed {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.closers = state.closers.saturating_sub(1);
        if state.closers == 0 {
            state.until = None;
            self.0.held.store(false, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn work_waits_while_the_gate_is_closed_and_goes_on_when_it_opens_or_its_time_is_up() {
        // A gate of the test's own, as the process's is closed by the apps of other tests.
        static GATE: StageGate = StageGate::new();
        assert!(!GATE.wait_while_closed(), "an open gate lets work through");

        let closed = GATE.close(Duration::from_secs(60));
        let passed = Arc::new(AtomicBool::new(false));
        let waiter = {
            let passed = Arc::clone(&passed);
            std::thread::spawn(move || {
                let waited = GATE.wait_while_closed();
                passed.store(true, Ordering::SeqCst);
                waited
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !passed.load(Ordering::SeqCst),
            "work went through a closed gate"
        );
        drop(closed);
        assert!(waiter.join().unwrap(), "the work did not wait");

        // A gate closed for a moment lets work through once the moment is over, even while
        // still held.
        let held = GATE.close(Duration::from_millis(20));
        assert!(GATE.wait_while_closed());
        let later = std::thread::spawn(|| GATE.wait_while_closed());
        assert!(!later.join().unwrap(), "the gate's time is up");
        drop(held);

        // Two closers: the gate opens when both have let go.
        let first = GATE.close(Duration::from_secs(60));
        let second = GATE.close(Duration::from_secs(60));
        drop(first);
        let waiter = std::thread::spawn(|| GATE.wait_while_closed());
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "one closer still holds the gate");
        drop(second);
        assert!(waiter.join().unwrap());

        // Work that waited goes on once the gate opened, though it closed again before the
        // work looked; and it goes on for a while without looking again.
        let closed = GATE.close(Duration::from_secs(60));
        let waiter = std::thread::spawn(|| {
            let waited = GATE.wait_while_closed();
            (waited, GATE.wait_while_closed())
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(closed);
        let closed = GATE.close(Duration::from_secs(60));
        let (waited, waited_again) = waiter.join().unwrap();
        assert!(waited && !waited_again, "{waited} {waited_again}");
        let fresh = std::thread::spawn(|| GATE.wait_while_closed());
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !fresh.is_finished(),
            "work that did not wait passed a closed gate"
        );
        drop(closed);
        assert!(fresh.join().unwrap());
    }
}
