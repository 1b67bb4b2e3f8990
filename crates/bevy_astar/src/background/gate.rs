//! The stage gate: background work waits at its slice points while the plugin's stages run,
//! so that on a machine with few cores the stages are not left waiting for a core.

use bevy::platform::time::Instant;
use core::time::Duration;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Who holds the gate closed, and until when at the latest.
#[derive(Default)]
struct GateState {
    /// How many apps are in their stages (each [`GateClosed`] counts once).
    closers: u32,
    /// When waiting work goes on even if the gate is still closed.
    until: Option<Instant>,
}

/// A gate that background work waits at while it is closed.
pub(crate) struct StageGate {
    state: Mutex<GateState>,
    /// Wakes the work waiting at the gate when it opens.
    opened: Condvar,
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
            }),
            opened: Condvar::new(),
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
        state.closers += 1;
        state.until = Some(state.until.map_or(until, |held| held.max(until)));
        GateClosed(self)
    }

    /// Waits while the gate is closed (at most until its time is up); returns whether it
    /// waited.
    pub(crate) fn wait_while_closed(&self) -> bool {
        let mut state = self.state();
        let mut waited = false;
        while let Some(until) = state.until {
            let now = Instant::now();
            if state.closers == 0 || now >= until {
                break;
            }
            waited = true;
            state = self
                .opened
                .wait_timeout(state, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        waited
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
            drop(state);
            self.0.opened.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

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
        assert!(!passed.load(Ordering::SeqCst), "work went through a closed gate");
        drop(closed);
        assert!(waiter.join().unwrap(), "the work did not wait");

        // A gate closed for a moment lets work through once the moment is over, even while
        // still held.
        let held = GATE.close(Duration::from_millis(20));
        assert!(GATE.wait_while_closed());
        assert!(!GATE.wait_while_closed(), "the gate's time is up");
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
    }
}
