//! Terrain kinds: the agent kinds the panel offers (walker, heavy, flyer, boat), the terrain a
//! right click paints, and how each terrain value is named and coloured.
//!
//! Maps are read with `Legend::moving_ai_kinds`, so swamp (`S`), water (`W`), trees (`T`) and
//! out-of-map cells (`@`, `O`) keep their own terrain values, and each kind reads them through
//! its profile: walkers keep to ground and swamp, heavy units pay for swamp, flyers cross trees
//! and water, boats keep to water. A wall (value 0) stops every kind.

use crate::VisualiserSystems;
use crate::settings::SearchSettings;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::prelude::*;
use bevy_astar::astar_grid::agent::moving_ai::{GROUND, OUT_OF_MAP, SWAMP, TREES, WATER};
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    register_kinds(app);
    app.init_resource::<Brush>().add_systems(
        Update,
        mark_cells_the_kind_cannot_enter.in_set(VisualiserSystems::Request),
    );
}

/// Registers the profile of each [`KindChoice`] with the plugin, under the kind's name, and
/// inserts their ids as [`KindProfiles`].
pub(crate) fn register_kinds(app: &mut App) {
    let mut ids = [ProfileId::DEFAULT; KindChoice::MENU.len()];
    let mut profiles = app.world_mut().get_resource_or_init::<TerrainProfiles>();
    for (id, kind) in ids.iter_mut().zip(KindChoice::MENU) {
        *id = profiles
            .id(kind.name())
            .or_else(|| profiles.add(kind.name(), kind.profile()).ok())
            .unwrap_or(ProfileId::DEFAULT);
    }
    app.insert_resource(KindProfiles(ids));
}

/// The overlay's crosses (when shown) mark the cells the chosen kind cannot enter.
fn mark_cells_the_kind_cannot_enter(
    settings: Res<SearchSettings>,
    kinds: Res<KindProfiles>,
    mut store: ResMut<GizmoConfigStore>,
) {
    if settings.is_changed() {
        let (_, overlay) = store.config_mut::<PathfindingGizmos>();
        overlay.blocked_profile = kinds.id(settings.kind);
    }
}

/// The agent kinds the panel offers, each a terrain profile of the plugin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KindChoice {
    /// Ground and swamp at cost 1: the Moving AI benchmarks' reading of a map.
    #[default]
    Walker,
    /// A walker for whom swamp costs five.
    Heavy,
    /// Crosses trees and water; walls and out-of-map cells stop it.
    Flyer,
    /// Water only.
    Boat,
}

impl KindChoice {
    /// The kinds in menu order.
    pub const MENU: [Self; 4] = [Self::Walker, Self::Heavy, Self::Flyer, Self::Boat];

    /// The name shown in the panel, in scripts and in the plugin's profile table.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Walker => "walker",
            Self::Heavy => "heavy",
            Self::Flyer => "flyer",
            Self::Boat => "boat",
        }
    }

    /// The kind a script names.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::MENU.into_iter().find(|kind| kind.name() == name)
    }

    /// What the kind may enter, for the panel.
    pub const fn description(self) -> &'static str {
        match self {
            Self::Walker => "Ground and swamp; trees, water and walls stop it",
            Self::Heavy => "A walker for whom swamp costs five times as much",
            Self::Flyer => "Crosses trees, water and swamp; walls and out-of-map cells stop it",
            Self::Boat => "Water only",
        }
    }

    /// The kind's terrain profile.
    pub const fn profile(self) -> TerrainProfile {
        match self {
            Self::Walker => TerrainProfile::walker(),
            Self::Heavy => TerrainProfile::heavy(),
            Self::Flyer => TerrainProfile::flyer(),
            Self::Boat => TerrainProfile::boat(),
        }
    }
}

/// The plugin's profile id of each [`KindChoice`], in menu order.
#[derive(Resource, Clone, Copy, Debug)]
pub struct KindProfiles([ProfileId; KindChoice::MENU.len()]);

impl KindProfiles {
    /// The profile id requests of `kind` carry.
    pub fn id(&self, kind: KindChoice) -> ProfileId {
        let index = KindChoice::MENU
            .iter()
            .position(|&entry| entry == kind)
            .unwrap_or(0);
        self.0[index]
    }
}

/// The terrain a right click paints; clicking a cell that already holds it paints ground.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Brush {
    /// Value 0: impassable for every kind.
    #[default]
    Wall,
    /// Swamp: dear for heavy units.
    Swamp,
    /// Water: only boats and flyers cross it.
    Water,
    /// Trees: only flyers cross them.
    Trees,
}

impl Brush {
    /// The brushes in menu order.
    pub const MENU: [Self; 4] = [Self::Wall, Self::Swamp, Self::Water, Self::Trees];

    /// The terrain value painted.
    pub const fn value(self) -> u8 {
        match self {
            Self::Wall => 0,
            Self::Swamp => SWAMP,
            Self::Water => WATER,
            Self::Trees => TREES,
        }
    }

    /// The name shown in the panel and read in scripts.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Wall => "wall",
            Self::Swamp => "swamp",
            Self::Water => "water",
            Self::Trees => "trees",
        }
    }

    /// The brush a script names.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::MENU.into_iter().find(|brush| brush.name() == name)
    }

    /// What a stroke that starts on a cell of `value` paints: the brush's terrain, or ground
    /// where the cell already holds it.
    pub const fn paints_over(self, value: u8) -> u8 {
        if value == self.value() {
            GROUND
        } else {
            self.value()
        }
    }
}

/// The name of a terrain value of its own kind; `None` for ground and for rough ground (any other
/// value, a cost multiplier).
pub fn terrain_name(value: u8) -> Option<&'static str> {
    match value {
        0 => Some("wall"),
        SWAMP => Some("swamp"),
        WATER => Some("water"),
        TREES => Some("trees"),
        OUT_OF_MAP => Some("out of map"),
        _ => None,
    }
}

/// The terrain of `value` in words, for sentences: "a wall", "ground", "swamp", "rough ground
/// (cost x3)".
pub fn terrain_words(value: u8) -> String {
    match (value, terrain_name(value)) {
        (0, _) => "a wall".to_owned(),
        (_, Some(name)) => name.to_owned(),
        (GROUND, None) => "ground".to_owned(),
        (cost, None) => format!("rough ground (cost x{cost})"),
    }
}

/// The named terrains, in the order the legend and sentences list them.
pub const NAMED_TERRAINS: [(u8, &str); 6] = [
    (GROUND, "ground"),
    (SWAMP, "swamp"),
    (WATER, "water"),
    (TREES, "trees"),
    (0, "wall"),
    (OUT_OF_MAP, "out of map"),
];

/// The named terrains `profile` lets an agent enter ("ground", "swamp", ...), in the legend's
/// order.
pub fn passable_terrains(profile: &TerrainProfile) -> Vec<&'static str> {
    NAMED_TERRAINS
        .into_iter()
        .filter(|&(value, _)| profile.is_passable(value))
        .map(|(_, name)| name)
        .collect()
}

/// Words joined as a list: "water", "ground and swamp", "ground, swamp and trees" (`last` is
/// "and" or "or").
pub fn joined(words: &[&str], last: &str) -> String {
    match words {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., final_word] => format!("{} {last} {final_word}", init.join(", ")),
    }
}

/// Floor, the colour of cost-1 cells.
const FLOOR: [u8; 3] = [74, 76, 84];
/// The colour costlier terrain fades towards, reached at cost 16.
const ROUGH: [u8; 3] = [110, 84, 50];
const WALL: [u8; 3] = [16, 16, 20];
const SWAMP_COLOR: [u8; 3] = [78, 96, 60];
const WATER_COLOR: [u8; 3] = [44, 78, 128];
const TREES_COLOR: [u8; 3] = [36, 70, 40];
const OUT_OF_MAP_COLOR: [u8; 3] = [30, 28, 36];

/// The colour of a cell of terrain `value`.
pub fn terrain_color(value: u8) -> [u8; 4] {
    let [r, g, b] = match value {
        0 => WALL,
        GROUND => FLOOR,
        SWAMP => SWAMP_COLOR,
        WATER => WATER_COLOR,
        TREES => TREES_COLOR,
        OUT_OF_MAP => OUT_OF_MAP_COLOR,
        cost => {
            let t = f32::from(cost.min(16) - 1) / 15.0;
            let mix =
                |from: u8, to: u8| (f32::from(from) + (f32::from(to) - f32::from(from)) * t) as u8;
            [
                mix(FLOOR[0], ROUGH[0]),
                mix(FLOOR[1], ROUGH[1]),
                mix(FLOOR[2], ROUGH[2]),
            ]
        }
    };
    [r, g, b, 255]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_every_kind_passes_some_terrain() {
        for kind in KindChoice::MENU {
            assert_eq!(KindChoice::from_name(kind.name()), Some(kind));
            assert!(kind.profile().has_passable_terrain());
            assert!(!kind.profile().is_passable(Brush::Wall.value()));
        }
        for brush in Brush::MENU {
            assert_eq!(Brush::from_name(brush.name()), Some(brush));
            assert_eq!(brush.paints_over(brush.value()), GROUND);
            assert_eq!(brush.paints_over(GROUND), brush.value());
        }
        assert_eq!(KindChoice::from_name("dragon"), None);
    }

    #[test]
    fn each_kind_reads_the_painted_terrain_as_its_description_says() {
        let passes = |kind: KindChoice, brush: Brush| kind.profile().is_passable(brush.value());
        assert!(
            passes(KindChoice::Walker, Brush::Swamp) && !passes(KindChoice::Walker, Brush::Water)
        );
        assert!(passes(KindChoice::Flyer, Brush::Trees) && passes(KindChoice::Flyer, Brush::Water));
        assert!(passes(KindChoice::Boat, Brush::Water) && !passes(KindChoice::Boat, Brush::Swamp));
        let heavy = KindChoice::Heavy.profile();
        assert!(heavy.cost(SWAMP) > KindChoice::Walker.profile().cost(SWAMP));
    }

    #[test]
    fn terrains_are_named_in_sentences() {
        assert_eq!(terrain_words(0), "a wall");
        assert_eq!(terrain_words(GROUND), "ground");
        assert_eq!(terrain_words(WATER), "water");
        assert_eq!(terrain_words(3), "rough ground (cost x3)");
        assert_eq!(passable_terrains(&KindChoice::Boat.profile()), ["water"]);
        assert_eq!(
            passable_terrains(&KindChoice::Walker.profile()),
            ["ground", "swamp"]
        );
        assert_eq!(joined(&["water"], "or"), "water");
        assert_eq!(joined(&["ground", "swamp"], "or"), "ground or swamp");
        assert_eq!(
            joined(&["ground", "swamp", "trees"], "and"),
            "ground, swamp and trees"
        );
    }

    #[test]
    fn each_terrain_has_its_own_colour() {
        let colours: Vec<[u8; 4]> = [0, GROUND, SWAMP, WATER, TREES, OUT_OF_MAP]
            .into_iter()
            .map(terrain_color)
            .collect();
        for (index, colour) in colours.iter().enumerate() {
            assert!(!colours[index + 1..].contains(colour));
        }
    }
}
