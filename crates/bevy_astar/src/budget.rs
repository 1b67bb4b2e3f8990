//! The per-frame time budget of a stage's bulk work: a clock each stage starts when its work on
//! agents begins and reads every few agents, so that a map change that touches thousands of
//! agents spreads their work over frames instead of stalling one.

use bevy::platform::time::Instant;
use core::time::Duration;

/// How many agents a stage handles between two readings of the clock.
const AGENTS_PER_READING: u32 = 32;

/// The time a stage has left this frame for its work on agents
/// ([`PathfindingSettings::stage_budget`](crate::PathfindingSettings::stage_budget)).
///
/// The first agent of a frame is always handled, so every stage makes progress whatever the
/// budget; after that the stage stops once the budget is spent, leaving the rest, oldest first,
/// to the next frame.
pub(crate) struct StageClock {
    began: Instant,
    budget: Duration,
    /// Agents handled since the clock was last read.
    since_reading: u32,
    /// Whether any agent was handled this frame.
    handled_any: bool,
    spent: bool,
}

impl StageClock {
    /// A clock for `budget`, starting now.
    pub(crate) fn start(budget: Duration) -> Self {
        Self {
            began: Instant::now(),
            budget,
            since_reading: 0,
            handled_any: false,
            spent: false,
        }
    }

    /// Whether the budget is spent, so that the stage leaves its next agent to a later frame;
    /// false for the frame's first agent. Each call not answered `true` counts as one agent
    /// handled.
    pub(crate) fn is_spent(&mut self) -> bool {
        if self.spent {
            return true;
        }
        if !self.handled_any {
            self.handled_any = true;
            return false;
        }
        self.since_reading += 1;
        if self.since_reading >= AGENTS_PER_READING {
            self.since_reading = 0;
            self.spent = self.began.elapsed() >= self.budget;
        }
        self.spent
    }

    /// Whether the budget is spent now: reads the clock, and counts no agent.
    pub(crate) fn is_over(&mut self) -> bool {
        self.spent = self.spent || self.began.elapsed() >= self.budget;
        self.spent
    }

    /// Sets `time` of the budget aside for work the stage does after its agents (such as
    /// starting what it gathered), so that the agents get only what is left.
    pub(crate) fn reserve(&mut self, time: Duration) {
        self.budget = self.budget.saturating_sub(time);
    }

    /// The time left of the budget now (none once it is spent).
    pub(crate) fn left(&self) -> Duration {
        self.budget.saturating_sub(self.began.elapsed())
    }

    /// Whether an earlier call found the budget spent.
    pub(crate) const fn was_spent(&self) -> bool {
        self.spent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_budget_still_lets_the_first_agent_through_and_then_stops() {
        let mut clock = StageClock::start(Duration::ZERO);
        assert!(!clock.is_spent());
        let handled = (0..1000).take_while(|_| !clock.is_spent()).count();
        assert_eq!(handled, AGENTS_PER_READING as usize - 1);
        assert!(clock.was_spent() && clock.is_spent());
    }

    #[test]
    fn time_reserved_for_later_work_shortens_the_agents_share() {
        let mut clock = StageClock::start(Duration::from_secs(3600));
        assert!((0..100).all(|_| !clock.is_spent()));
        clock.reserve(Duration::from_secs(3599));
        clock.reserve(Duration::from_secs(3599));
        let handled = (0..1000).take_while(|_| !clock.is_spent()).count();
        assert!(handled < AGENTS_PER_READING as usize, "{handled}");
    }

    #[test]
    fn an_ample_budget_lets_every_agent_through() {
        let mut clock = StageClock::start(Duration::from_secs(3600));
        assert!((0..10_000).all(|_| !clock.is_spent()));
        assert!(!clock.was_spent());
    }
}
