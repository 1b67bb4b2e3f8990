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
/// | [`CrowdPlugin`] | steers agents with [`CrowdAvoidance`](crate::CrowdAvoidance) round each other | always |
/// | [`PathfindingDiagnosticsPlugin`] | the figures as Bevy diagnostics | always |
/// | `PathfindingDebugPlugin` | gizmos of searches, paths and crowds (needs Bevy's gizmo plugin) | feature `debug` |
/// | `NavTilemapPlugin` | the grid kept in sync with a `bevy_ecs_tilemap` map | feature `tilemap` |
/// | `PathfindingPanelPlugin` | a window of statistics, settings and debug toggles (needs a window) | feature `egui` |
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
/// # let plugins = plugins.disable::<PathfindingDebugPlugin>();
/// # #[cfg(feature = "tilemap")]
/// # let plugins = plugins.disable::<bevy_astar::tilemap::NavTilemapPlugin>();
/// # #[cfg(feature = "egui")]
/// # let plugins = plugins.disable::<bevy_astar::egui_panel::PathfindingPanelPlugin>();
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
        let group = group.add(crate::debug::PathfindingDebugPlugin::default());
        #[cfg(feature = "tilemap")]
        let group = group.add(crate::tilemap::NavTilemapPlugin::default());
        #[cfg(feature = "egui")]
        let group = group.add(crate::egui_panel::PathfindingPanelPlugin::default());
        group
    }
}
