//! The search settings chosen in the panel, and the `PathRequest` they make.

use crate::terrain::KindChoice;
use bevy::prelude::*;
pub use bevy_astar::astar_grid::Algorithm;
use bevy_astar::astar_grid::SearchWindow;
use bevy_astar::prelude::*;

/// The panel's algorithm menu, in order: the core's algorithm, whether the heuristic weight
/// applies, and the label shown. Weighted A* (`f = g + w * h`, fewer expansions for paths at
/// most `w` times the optimum) is A* with a weight; Dijkstra's algorithm is A* with the zero
/// heuristic, expanding in rings around the start; jump point search finds A*'s paths (eight
/// neighbours, no corner cutting, uniform terrain) from far fewer expansions. The panel offers
/// no flow field.
pub const ALGORITHM_MENU: [(Algorithm, bool, &str); 4] = [
    (Algorithm::AStar, false, "A*"),
    (Algorithm::Dijkstra, false, "Dijkstra"),
    (Algorithm::AStar, true, "Weighted A*"),
    (Algorithm::JumpPoint, false, "JPS"),
];

/// How steps are priced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CostChoice {
    /// Straight 1, diagonal exactly `sqrt(2)`.
    #[default]
    Octile,
    /// Straight 10, diagonal [`SearchSettings::diagonal_cost`] (14 by default).
    Integer,
}

/// The cost of a straight step under [`CostChoice::Integer`].
pub const INTEGER_STRAIGHT_COST: u32 = 10;

/// Every search option the panel offers.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// A*, Dijkstra or jump point search.
    pub algorithm: Algorithm,
    /// Whether A* applies [`SearchSettings::weight`] (weighted A*); see
    /// [`SearchSettings::is_weighted`].
    pub weighted: bool,
    /// The heuristic weight of weighted A*, at least 1.
    pub weight: f64,
    /// Four or eight neighbours.
    pub neighborhood: Neighborhood,
    /// When a diagonal may pass the corners of walls (eight neighbours only).
    pub corners: CornerRule,
    /// The heuristic, or `None` for the neighbourhood's default (Dijkstra uses none, JPS
    /// always octile).
    pub heuristic: Option<Heuristic>,
    /// Exact octile costs or integers.
    pub cost: CostChoice,
    /// The diagonal step cost of the integer model (straight is 10).
    pub diagonal_cost: u32,
    /// Straighten the drawn path where a line of sight allows.
    pub smoothing: bool,
    /// Only search a window of this many cells around the start.
    pub window: Option<UVec2>,
    /// Stop after this many expansions.
    pub max_expansions: Option<u32>,
    /// When a window or expansion limit stops the search, show the path to the closest cell.
    pub partial_path: bool,
    /// When the goal cannot be reached (or is a wall), show the path to the reachable cell
    /// closest to it.
    pub closest_reachable: bool,
    /// The side of the agent's square footprint, 1 to [`MAX_PANEL_AGENT_SIZE`]: the path's
    /// cells are the footprint's top-left cells.
    pub agent_size: u8,
    /// The agent's kind: the terrain profile its request names.
    pub kind: KindChoice,
}

/// The largest agent the panel offers.
pub const MAX_PANEL_AGENT_SIZE: u8 = 4;

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::AStar,
            weighted: false,
            weight: 2.0,
            neighborhood: Neighborhood::Eight,
            corners: CornerRule::Both,
            heuristic: None,
            cost: CostChoice::Octile,
            diagonal_cost: 14,
            smoothing: false,
            window: None,
            max_expansions: None,
            partial_path: true,
            closest_reachable: false,
            agent_size: 1,
            kind: KindChoice::Walker,
        }
    }
}

impl SearchSettings {
    /// The step costs these settings ask for.
    pub fn cost_model(&self) -> CostModel {
        match self.cost {
            CostChoice::Octile => CostModel::Octile,
            CostChoice::Integer => CostModel::Integer {
                straight: INTEGER_STRAIGHT_COST,
                diagonal: self.diagonal_cost.max(1),
            },
        }
    }

    /// Whether the search is weighted A*: A* with the weight applied.
    pub fn is_weighted(&self) -> bool {
        self.algorithm == Algorithm::AStar && self.weighted
    }

    /// The heuristic the search will use.
    pub fn effective_heuristic(&self) -> Heuristic {
        match self.algorithm {
            Algorithm::Dijkstra => Heuristic::Zero,
            Algorithm::JumpPoint => Heuristic::Octile,
            Algorithm::AStar | Algorithm::FlowField | Algorithm::Hierarchical => self
                .heuristic
                .unwrap_or(Heuristic::default_for(self.neighborhood)),
        }
    }

    /// The core's search options for a search from `start`.
    pub fn options(&self, start: Cell) -> SearchOptions {
        let movement = Movement {
            neighborhood: self.neighborhood,
            corners: self.corners,
        };
        let mut options = SearchOptions::default()
            .with_movement(movement)
            .with_cost(self.cost_model())
            .with_heuristic(self.effective_heuristic())
            .with_partial_path(self.partial_path)
            .with_closest_reachable(self.closest_reachable);
        if self.is_weighted() {
            options = options.with_weight(self.weight.max(1.0));
        }
        if let Some(size) = self.window {
            options = options.with_window(SearchWindow::centered(start, size.x, size.y));
        }
        if let Some(max) = self.max_expansions {
            options = options.with_max_expansions(max);
        }
        options
    }

    /// The request for a path from `start` to `goal` under these settings, for an agent of
    /// the terrain profile `profile` (the plugin's id of [`SearchSettings::kind`]).
    pub fn request(&self, start: Cell, goal: Cell, profile: ProfileId) -> PathRequest {
        PathRequest::new(start, goal)
            .with_options(self.options(start))
            .with_smoothing(self.smoothing)
            .with_size(self.agent_size.clamp(1, MAX_PANEL_AGENT_SIZE))
            .with_profile(profile)
    }

    /// Whether the panel's own jump point search runs: it searches for one-cell agents only,
    /// so larger agents are searched by the plugin (which answers them with A*).
    pub fn runs_own_jump_points(&self) -> bool {
        self.algorithm == Algorithm::JumpPoint && self.agent_size <= 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_astar::astar_grid::Weighting;

    #[test]
    fn dijkstra_ignores_the_chosen_heuristic() {
        let settings = SearchSettings {
            algorithm: Algorithm::Dijkstra,
            heuristic: Some(Heuristic::Euclidean),
            ..SearchSettings::default()
        };
        let options = settings.options(Cell::new(0, 0));
        assert_eq!(options.resolved_heuristic(), Heuristic::Zero);
        assert!(options.weighting.is_unit());
    }

    #[test]
    fn only_weighted_astar_carries_the_weight() {
        let mut settings = SearchSettings {
            weight: 3.0,
            ..SearchSettings::default()
        };
        assert!(settings.options(Cell::new(0, 0)).weighting.is_unit());
        settings.weighted = true;
        assert_eq!(
            settings.options(Cell::new(0, 0)).weighting,
            Weighting::Static(3.0)
        );
    }

    #[test]
    fn jump_point_search_always_uses_the_octile_heuristic() {
        let settings = SearchSettings {
            algorithm: Algorithm::JumpPoint,
            heuristic: Some(Heuristic::Euclidean),
            ..SearchSettings::default()
        };
        assert_eq!(settings.effective_heuristic(), Heuristic::Octile);
        assert!(settings.options(Cell::new(0, 0)).weighting.is_unit());
    }

    #[test]
    fn the_request_carries_the_agent_size_profile_and_closest_cell_option() {
        let mut profiles = TerrainProfiles::default();
        let flyer = profiles
            .add("flyer", TerrainProfile::flyer())
            .expect("a new name");
        let settings = SearchSettings {
            agent_size: 3,
            closest_reachable: true,
            algorithm: Algorithm::JumpPoint,
            ..SearchSettings::default()
        };
        let request = settings.request(Cell::new(1, 1), Cell::new(5, 5), flyer);
        assert_eq!((request.size, request.profile), (3, flyer));
        assert!(request.options.closest_reachable);
        assert!(!settings.runs_own_jump_points());
        let too_big = SearchSettings {
            agent_size: 9,
            ..SearchSettings::default()
        };
        assert_eq!(
            too_big
                .request(Cell::new(0, 0), Cell::new(1, 1), ProfileId::DEFAULT)
                .size,
            MAX_PANEL_AGENT_SIZE
        );
    }

    #[test]
    fn default_heuristic_follows_the_neighbourhood() {
        let mut settings = SearchSettings::default();
        assert_eq!(settings.effective_heuristic(), Heuristic::Octile);
        settings.neighborhood = Neighborhood::Four;
        assert_eq!(settings.effective_heuristic(), Heuristic::Manhattan);
    }

    #[test]
    fn window_is_centred_on_the_start_and_integer_costs_use_the_diagonal() {
        let settings = SearchSettings {
            window: Some(UVec2::new(5, 3)),
            cost: CostChoice::Integer,
            diagonal_cost: 17,
            ..SearchSettings::default()
        };
        let options = settings.options(Cell::new(10, 10));
        assert_eq!(
            options.window,
            Some(SearchWindow::new(Cell::new(8, 9), Cell::new(12, 11)))
        );
        assert_eq!(
            options.cost,
            CostModel::Integer {
                straight: 10,
                diagonal: 17
            }
        );
    }
}
