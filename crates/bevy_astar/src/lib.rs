//! Grid pathfinding for Bevy: agents ask for paths with a [`PathRequest`] component and get a
//! [`Path`] back, searched in the background by the [`astar_grid`] core, rebuilt when the map
//! changes, and never searched twice when once will do.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_astar::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, AStarPlugin::default()))
//!     .insert_resource(NavGrid::new(Grid::new(32, 32)).with_cell_size(Vec2::splat(16.0)));
//! let agent = app.world_mut().spawn(PathRequest::new(Cell::new(0, 0), Cell::new(31, 20))).id();
//! # for _ in 0..1000 {
//! #     app.update();
//! #     if app.world().get::<Path>(agent).is_some_and(|path| !path.status.is_pending()) { break; }
//! # }
//! # assert!(app.world().get::<Path>(agent).is_some_and(Path::is_found));
//! ```
//!
//! After a few updates the agent's [`Path`] holds the cells, world waypoints and cost; a
//! [`PathFollower`] walks the agent's `Transform` along them ([`PathFollowPlugin`]).
//!
//! [`PathfindingPlugins`] adds the whole family: [`AStarPlugin`] (requests, searches, paths
//! kept up to date), [`PathFollowPlugin`], [`CrowdPlugin`], [`PathfindingDiagnosticsPlugin`]
//! (the figures as Bevy diagnostics) and, by cargo feature, the gizmo overlay, the tilemap sync
//! and the egui window; each can be configured with `.set(..)` or left out with
//! `.disable::<..>()`.
//!
//! - [`NavGrid`] is the map: edit it with [`NavGrid::block`], [`NavGrid::set_cost`] and friends;
//!   each frame with edits becomes a new [`NavVersion`] and a [`NavChanged`] message, and only
//!   agents whose paths the change affects search again. Its [`NavShape`] lays the cells out as
//!   squares, isometric diamonds or hexagons; on a hexagonal grid every request searches the
//!   six neighbours of each hex ([`Movement::HEX`](astar_grid::Movement::HEX)), and agents of
//!   larger sizes stand on discs of hexes.
//! - Links join cells that are not neighbours: doors, ladders, stairs between floors
//!   ([`astar_grid::FloorPlan`]), one-way drops and teleporters. A [`NavLink`] entity, or
//!   [`NavGrid::add_link`], [`NavGrid::set_link_open`] and [`NavGrid::remove_link`], are map
//!   changes like cell edits;
//!   a [`PathFollower`] stops at a link ([`LinkReached`]) and crosses it after its cost in time,
//!   or when the game releases it ([`LinkCrossed`]).
//! - [`PathfindingSettings`] throttles the work (searches per frame, searches in flight, minimum
//!   interval per agent) and sizes the result cache; identical requests share one search.
//! - Agents of several sizes and terrain kinds share the map: a request names its
//!   [`PathRequest::size`] and a [`PathRequest::profile`] registered in [`TerrainProfiles`]
//!   ([`kinds`] tells how each kind gets its own derived grid).
//! - With [`CrowdAvoidance`], a [`PathFollower`] is steered round the other avoiding agents and
//!   along the walls ([`crowd`]: ORCA local avoidance, in parallel), and searches again when it
//!   stops making progress.
//! - [`PathFound`] / [`PathNotFound`], each both a message and an entity event, announce
//!   results; [`PathfindingStats`] counts the work.
//! - `debug::PathfindingDebugPlugin` (feature `debug`, on by default) draws searches with gizmos;
//!   agents marked [`PathDebug`] record them into a [`PathTrace`]; with the `tilemap` feature,
//!   `tilemap::NavTilemapPlugin` keeps the grid in sync with a `bevy_ecs_tilemap` map of any
//!   map type (square, isometric or hexagonal).
//! - With the `egui` feature, `egui_panel::PathfindingPanelPlugin` adds a window with the
//!   statistics, the settings and the debug toggles.
//!
//! [`PathfindingSystems`] documents the system sets and their order.

mod apply;
mod background;
mod budget;
mod cache;
mod connectivity;
pub mod crowd;
#[cfg(feature = "debug")]
pub mod debug;
pub mod diagnostics;
mod dispatch;
#[cfg(feature = "egui")]
pub mod egui_panel;
mod engine;
mod follow;
mod goal_tree;
mod in_flight;
mod invalidate;
pub mod kinds;
mod map;
mod outcome;
mod path;
mod plugin;
mod plugins;
mod queue;
mod request;
mod schedule;
mod settings;
mod stats;
#[cfg(feature = "tilemap")]
pub mod tilemap;
mod trace;

pub use astar_grid;
pub use connectivity::NavConnectivity;
pub use crowd::plugin::CrowdPlugin;
pub use crowd::{CrowdAvoidance, CrowdSettings, CrowdVelocity};
pub use diagnostics::PathfindingDiagnosticsPlugin;
pub use follow::PathFollower;
pub use follow::crossing::{LinkCrossed, LinkCrossing, LinkReached};
pub use follow::plugin::PathFollowPlugin;
pub use kinds::{KindError, ProfileError, ProfileId, TerrainProfiles};
pub use map::{
    NavCellChange, NavChange, NavChanged, NavGrid, NavLink, NavLinkChange, NavLinkState, NavShape,
    NavVersion,
};
pub use outcome::{PathFound, PathNotFound};
pub use path::{Path, PathFailure, PathStatus};
pub use plugin::AStarPlugin;
pub use plugins::PathfindingPlugins;
pub use request::{PathAlgorithm, PathRequest, WorldPositionError};
pub use schedule::PathfindingSystems;
pub use settings::{BackgroundPause, InvalidationPolicy, PathfindingSettings, SearchThread};
pub use stats::{CarriedOver, PathfindingStats};
pub use trace::{PathDebug, PathDebugSettings, PathTrace};

// The names before the naming rule, kept for one release.
/// The former name of [`PathfindingSystems`].
#[deprecated(note = "renamed to `PathfindingSystems` (the naming rule in ARCHITECTURE.md)")]
pub type AStarSystems = PathfindingSystems;

/// The former name of [`NavVersion`].
#[deprecated(note = "renamed to `NavVersion` (the naming rule in ARCHITECTURE.md)")]
pub type MapVersion = NavVersion;

/// The former name of [`NavChanged`].
#[deprecated(note = "renamed to `NavChanged` (the naming rule in ARCHITECTURE.md)")]
pub type MapChanged = NavChanged;

/// The former name of [`NavChange`].
#[deprecated(note = "renamed to `NavChange` (the naming rule in ARCHITECTURE.md)")]
pub type MapChange = NavChange;

/// The former name of [`NavCellChange`].
#[deprecated(note = "renamed to `NavCellChange` (the naming rule in ARCHITECTURE.md)")]
pub type CellChange = NavCellChange;

/// The former name of [`PathDebug`].
#[deprecated(note = "renamed to `PathDebug` (the naming rule in ARCHITECTURE.md)")]
pub type DebugPath = PathDebug;

/// The former name of [`CrowdAvoidance`].
#[deprecated(note = "renamed to `CrowdAvoidance` (the naming rule in ARCHITECTURE.md)")]
pub type Avoidance = CrowdAvoidance;

/// The common types: the plugins, the components an agent carries, the settings, the
/// outcome events and the core's grid types. Bevy's own prelude is not included; import it
/// beside this one.
///
/// The agent's component is named [`Path`], like Bevy's components are named after what they
/// hold (`Transform`, `Sprite`), although `std::path::Path` and the core's
/// [`astar_grid::Path`] share the name: neither is in this prelude or Bevy's, so the name only
/// needs qualifying in a module that imports one of them too.
pub mod prelude {
    #[cfg(feature = "debug")]
    pub use crate::debug::{PathfindingDebugPlugin, PathfindingGizmos};
    pub use crate::{
        AStarPlugin, CarriedOver, CrowdAvoidance, CrowdPlugin, CrowdSettings, CrowdVelocity,
        InvalidationPolicy, LinkCrossed, LinkCrossing, LinkReached, NavChanged, NavGrid, NavLink,
        NavLinkState, NavShape, NavVersion, Path, PathAlgorithm, PathDebug, PathFailure,
        PathFollowPlugin, PathFollower, PathFound, PathNotFound, PathRequest, PathStatus,
        PathTrace, PathfindingDiagnosticsPlugin, PathfindingPlugins, PathfindingSettings,
        PathfindingStats, PathfindingSystems, ProfileId, SearchThread, TerrainProfiles,
    };
    pub use astar_grid::{
        Cell, CornerRule, CostModel, FloorCell, FloorPlan, Grid, Heuristic, Limit, Link, LinkError,
        LinkId, Movement, Neighborhood, SearchError, SearchOptions, TerrainProfile,
    };
}
