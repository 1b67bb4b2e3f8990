//! Gold and lives: towers cost gold, kills pay it, creeps that reach the goal take a life (the
//! game is lost when they run out: `game.rs`). Also the `Restart` message every module answers.

use crate::profile::timed;
use bevy::prelude::*;

/// Gold at the start.
pub(crate) const START_GOLD: u32 = 120;
/// Lives at the start.
pub(crate) const START_LIVES: u32 = 20;
/// Gold a tower costs.
pub(crate) const TOWER_COST: u32 = 30;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Economy>()
        .add_message::<Restart>()
        .add_systems(PreUpdate, timed("economy::reset", reset_on_restart));
}

/// Starts the game over: every module resets its part.
#[derive(Message, Clone, Copy, Debug, Default)]
pub(crate) struct Restart;

/// The player's purse and lives, and what happened to the creeps.
#[derive(Resource, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Economy {
    pub(crate) gold: u32,
    pub(crate) lives: u32,
    pub(crate) kills: u32,
    pub(crate) leaked: u32,
    pub(crate) towers_built: u32,
}

impl Default for Economy {
    fn default() -> Self {
        Self {
            gold: START_GOLD,
            lives: START_LIVES,
            kills: 0,
            leaked: 0,
            towers_built: 0,
        }
    }
}

impl Economy {
    /// Pays for a tower; `false` (and nothing paid) when the gold does not reach.
    pub(crate) const fn buy_tower(&mut self) -> bool {
        if self.gold < TOWER_COST {
            return false;
        }
        self.gold -= TOWER_COST;
        self.towers_built += 1;
        true
    }

    /// A creep died to a tower and paid `bounty`.
    pub(crate) const fn reward_kill(&mut self, bounty: u32) {
        self.kills += 1;
        self.gold = self.gold.saturating_add(bounty);
    }

    /// A creep reached the goal: a life lost.
    pub(crate) const fn lose_life(&mut self) {
        self.leaked += 1;
        self.lives = self.lives.saturating_sub(1);
    }
}

fn reset_on_restart(mut restarts: MessageReader<Restart>, mut economy: ResMut<Economy>) {
    if restarts.read().count() > 0 {
        *economy = Economy::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn towers_cost_gold_and_kills_pay_it() {
        let mut economy = Economy::default();
        let affordable = START_GOLD / TOWER_COST;
        for _ in 0..affordable {
            assert!(economy.buy_tower());
        }
        assert!(!economy.buy_tower(), "out of gold");
        assert_eq!(economy.gold, START_GOLD - affordable * TOWER_COST);
        economy.reward_kill(TOWER_COST);
        assert!(economy.buy_tower());
        assert_eq!(economy.towers_built, affordable + 1);
        assert_eq!(economy.kills, 1);
    }

    #[test]
    fn lives_run_out_and_stay_at_zero() {
        let mut economy = Economy::default();
        for _ in 0..START_LIVES - 1 {
            economy.lose_life();
        }
        assert_eq!(economy.lives, 1);
        economy.lose_life();
        economy.lose_life();
        assert_eq!(economy.lives, 0);
        assert_eq!(economy.leaked, START_LIVES + 1);
    }
}
