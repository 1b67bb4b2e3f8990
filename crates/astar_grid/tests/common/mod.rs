//! Building blocks shared by the integration tests: an independent reference search, a path
//! checker, the directions links lead in, the documented choice of the closest reachable cell, brute-force models of agents
//! with a footprint, proptest strategies for random grids, terrain, profiles and queries, and
//! random crowd scenes.

pub mod closest_cell;
pub mod crowd_scenes;
pub mod flow_following;
pub mod footprint;
pub mod hex_reference;
pub mod link_directions;
pub mod path_check;
pub mod random_grid;
pub mod reference_search;
