//! `PathfindingPlugins`: the plugin family as one group, each part of which can be disabled.

use crate::diagnostics::PathfindingDiagnosticsPlugin;
use crate::{AStarPlugin, CrowdPlugin, PathFollowPlugin};
use bevy::app::{PluginGroup, PluginGroupBuilder};

/// Every plugin of the family, in the order they build:
///
/// | plugin | what it does | when |
/// |---|---|---|
/// | [`AStarPlugin`] | requests, searches, paths kept up to date under map edits | always |
/// | [`PathFollowPlugin`] | moves [`PathFollower`](crate::PathFollower)s along their paths | always |
/// | [`CrowdPlugin`] | steers agents with [`Avoidance`](crate::Avoidance) round each other | always |
/// | [`PathfindingDiagnosticsPlugin`] | the figures as Bevy diagnostics | always |
/// | `AStarDebugPlugin` | gizmos of searches, paths and crowds (needs Bevy's gizmo plugin) | feature `debug` |
/// | `TilemapNavPlugin` | the grid kept in sync with a `bevy_ecs_tilemap` map | feature `tilemap` |
/// | `AStarEguiPanelPlugin` | a window of statistics, settings and debug toggles (needs a window) | feature `egui` |
///
/// Configure a plugin with [`PluginGroup::set`], leave one out with
/// [`PluginGroupBuilder::disable`]; the plugins that add systems run them in the schedule
/// [`AStarPlugin::in_schedule`] names.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let mut app = App::new();
/// let plugins = PathfindingPlugins
///     .set(AStarPlugin::default().with_max_in_flight(32))
///     .disable::<CrowdPlugin>();
/// # #[cfg(feature = "debug")]
/// # let plugins = plugins.disable::<AStarDebugPlugin>();
/// # #[cfg(feature = "tilemap")]
/// # let plugins = plugins.disable::<bevy_astar::tilemap::TilemapNavPlugin>();
/// # #[cfg(feature = "egui")]
/// # let plugins = plugins.disable::<bevy_astar::egui_panel::AStarEguiPanelPlugin>();
/// app.add_plugins((MinimalPlugins, plugins));
/// assert!(app.is_plugin_added::<PathFollowPlugin>());
/// assert!(!app.is_plugin_added::<CrowdPlugin>());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PathfindingPlugins;

impl PluginGroup for PathfindingPlugins {
    fn build(self) -> PluginGroupBuilder {
        let group = PluginGroupBuilder::start::<Self>()
            .add(AStarPlugin::default())
            .add(PathFollowPlugin)
            .add(CrowdPlugin)
            .add(PathfindingDiagnosticsPlugin::default());
        #[cfg(feature = "debug")]
        let group = group.add(crate::debug::AStarDebugPlugin::default());
        #[cfg(feature = "tilemap")]
        let group = group.add(crate::tilemap::TilemapNavPlugin::default());
        #[cfg(feature = "egui")]
        let group = group.add(crate::egui_panel::AStarEguiPanelPlugin::default());
        group
    }
}
