//! The agent kind a command line can choose: `--size N` and `--profile NAME`, read into the
//! core's [`AgentKind`] with a clear error for a size or profile it does not know.

use astar_grid::agent::MAX_AGENT_SIZE;
use astar_grid::{AgentKind, Legend, TerrainProfile};
use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};

/// The terrain profile presets by their command-line names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileName {
    /// Ground units: swamp costs 1; trees, water and out-of-map cells are impassable.
    Walker,
    /// Flying units: trees, water and swamp cost 1; out-of-map cells are impassable.
    Flyer,
    /// Heavy ground units: the walker with swamp costing 5.
    Heavy,
    /// Boats: water costs 1, nothing else is passable.
    Boat,
}

impl ProfileName {
    /// The core's preset of this name.
    pub fn profile(self) -> TerrainProfile {
        match self {
            Self::Walker => TerrainProfile::walker(),
            Self::Flyer => TerrainProfile::flyer(),
            Self::Heavy => TerrainProfile::heavy(),
            Self::Boat => TerrainProfile::boat(),
        }
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Walker => "walker",
            Self::Flyer => "flyer",
            Self::Heavy => "heavy",
            Self::Boat => "boat",
        }
    }
}

/// Reads an agent size: a whole number from 1 to [`MAX_AGENT_SIZE`], refused with the core's
/// [`AgentError::InvalidSize`](astar_grid::agent::AgentError::InvalidSize) message otherwise.
pub fn parse_size(text: &str) -> Result<u8, String> {
    let trimmed = text.trim();
    let Ok(wide) = trimmed.parse::<u64>() else {
        return Err(format!(
            "`{text}` is not an agent size (a whole number from 1 to {MAX_AGENT_SIZE})"
        ));
    };
    let Ok(size) = u8::try_from(wide) else {
        return Err(format!("agent size {wide} is not in 1..={MAX_AGENT_SIZE}"));
    };
    // Any profile with passable terrain: only the size is checked here.
    AgentKind::new(TerrainProfile::identity(), size)
        .check()
        .map(|()| size)
        .map_err(|error| error.to_string())
}

/// [`parse_size`] as a clap value parser.
pub fn size_parser() -> impl TypedValueParser<Value = u8> {
    clap::builder::StringValueParser::new().try_map(|text| parse_size(&text))
}

/// The agent kind options of `scen`, `suite` and `compare`.
#[derive(Clone, Copy, Debug, Args)]
pub struct KindArgs {
    /// Agent size: the side of its square footprint, anchored at its top-left cell (1 to 8).
    /// Above 1 the queries run on the derived grid of that size and every length is checked
    /// against a Dijkstra on a brute-force erosion of the map.
    #[arg(long, value_name = "N", value_parser = size_parser(), default_value_t = 1)]
    pub size: u8,
    /// Terrain profile; the map is then read with S, W, T and @ as distinct terrains
    /// (default: the plain Moving AI reading, S walkable, T, W and @ blocked).
    #[arg(long, value_enum, value_name = "NAME")]
    pub profile: Option<ProfileName>,
}

impl Default for KindArgs {
    /// The plain reading: size 1, no profile.
    fn default() -> Self {
        Self {
            size: 1,
            profile: None,
        }
    }
}

impl KindArgs {
    /// The plain reading at size 1: today's searches on the map as read, no derived grid.
    pub fn is_plain(&self) -> bool {
        self.size == 1 && self.profile.is_none()
    }

    /// The profile the derived grid reads the map through: the preset asked for, else the
    /// identity (the plain reading's values are already costs).
    pub fn terrain_profile(&self) -> TerrainProfile {
        self.profile
            .map_or_else(TerrainProfile::identity, ProfileName::profile)
    }

    /// The legend the map is read with: distinct terrain values under a profile, the plain
    /// Moving AI reading without one.
    pub fn legend(&self) -> Legend {
        if self.profile.is_some() {
            Legend::moving_ai_kinds()
        } else {
            Legend::moving_ai()
        }
    }

    /// The core's agent kind.
    pub fn kind(&self) -> AgentKind {
        AgentKind::new(self.terrain_profile(), self.size)
    }

    /// `plain`, or the profile's name (`identity` without one) and the size, for reports.
    pub fn label(&self) -> String {
        if self.is_plain() {
            return "plain".to_owned();
        }
        let profile = self.profile.map_or("identity", ProfileName::name);
        format!("{profile} {}", self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Line {
        #[command(flatten)]
        kind: KindArgs,
    }

    fn parse(args: &[&str]) -> Result<KindArgs, String> {
        Line::try_parse_from(std::iter::once("pathbench").chain(args.iter().copied()))
            .map(|line| line.kind)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn the_default_is_the_plain_reading_at_size_one() {
        let kind = parse(&[]).expect("no options");
        assert!(kind.is_plain());
        assert_eq!(kind.label(), "plain");
        assert!(!kind.kind().needs_derived_grid());
        assert_eq!(kind.legend(), Legend::moving_ai());
    }

    #[test]
    fn sizes_and_profiles_are_read() {
        let kind = parse(&["--size", "3", "--profile", "heavy"]).expect("valid");
        assert_eq!((kind.size, kind.profile), (3, Some(ProfileName::Heavy)));
        assert_eq!(kind.kind(), AgentKind::new(TerrainProfile::heavy(), 3));
        assert_eq!(kind.legend(), Legend::moving_ai_kinds());
        assert_eq!(kind.label(), "heavy 3");
        let sized = parse(&["--size", "2"]).expect("valid");
        assert!(!sized.is_plain());
        assert_eq!(sized.terrain_profile(), TerrainProfile::identity());
        assert_eq!(sized.label(), "identity 2");
        let walker = parse(&["--profile", "walker"]).expect("valid");
        assert!(!walker.is_plain());
        assert!(walker.kind().needs_derived_grid());
        for (name, profile) in [
            ("walker", TerrainProfile::walker()),
            ("flyer", TerrainProfile::flyer()),
            ("heavy", TerrainProfile::heavy()),
            ("boat", TerrainProfile::boat()),
        ] {
            let kind = parse(&["--profile", name]).expect("a preset");
            assert_eq!(kind.terrain_profile(), profile, "{name}");
            assert_eq!(kind.profile.map(ProfileName::name), Some(name));
        }
        let largest = MAX_AGENT_SIZE.to_string();
        assert_eq!(parse(&["--size", &largest]).map(|kind| kind.size), Ok(8));
    }

    #[test]
    fn bad_sizes_are_refused_with_the_range() {
        for (size, said) in [
            ("0", "agent size 0 is not in 1..=8"),
            ("9", "agent size 9 is not in 1..=8"),
            ("300", "agent size 300 is not in 1..=8"),
            ("99999999999999999999999", "is not an agent size"),
            ("-1", "`-1` is not an agent size"),
            ("two", "`two` is not an agent size"),
            ("", "is not an agent size"),
        ] {
            let error = parse(&[&format!("--size={size}")]).expect_err(size);
            assert!(error.contains(said), "{size}: {error}");
        }
    }

    #[test]
    fn unknown_profiles_are_refused_with_the_presets() {
        let error = parse(&["--profile", "swimmer"]).expect_err("no such preset");
        assert!(error.contains("swimmer"), "{error}");
        assert!(
            error.contains("walker, flyer, heavy, boat"),
            "names the presets: {error}"
        );
    }
}
