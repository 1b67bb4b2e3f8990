//! Agent kinds: the terrain profiles requests may name, the size and profile a
//! [`PathRequest`](crate::PathRequest) names, and the derived grid each kind in use searches.
//!
//! A kind is a square size (1 to [`MAX_AGENT_SIZE`]) and a [`TerrainProfile`] registered in
//! [`TerrainProfiles`]. One-cell agents of the default profile search the
//! [`NavGrid`](crate::NavGrid) itself, as before kinds existed. Every other kind in use gets an
//! [`AgentGrid`](astar_grid::AgentGrid), built on the first request of that kind and kept up to
//! date with every published map change: a cell of it is walkable where the agent's whole
//! footprint fits, and costs the dearest profile cost under the footprint. Searches of that kind
//! (A\*, flow fields, goal batches, repair; jump point requests of other kinds run A\*) run on
//! it, and [`NavChanged`](crate::NavChanged) carries the change as each kind sees it, so the
//! cache, the running searches, the flow fields and the agents' paths are invalidated by the
//! change to their own kind's grid: a wall beside a 2x2 agent's path cuts it when it shrinks
//! the room the agent needs, though it is on none of the path's cells.
//!
//! An agent's path cells are its footprint's anchors (top-left cells); the world waypoints of a
//! [`Path`](crate::Path) are the footprint's centres, which a
//! [`PathFollower`](crate::PathFollower) moves the agent's `Transform` through.
//!
//! Each kind in use costs three bytes per cell: its clearance, its derived grid, and the
//! snapshot searches read.

use astar_grid::TerrainProfile;
use astar_grid::agent::AgentError;
use astar_grid::agent::MAX_AGENT_SIZE;
use bevy::prelude::*;
use core::sync::atomic::{AtomicU64, Ordering};

/// A terrain profile registered in [`TerrainProfiles`], named by a request's
/// [`PathRequest::profile`](crate::PathRequest::profile).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Reflect)]
#[reflect(Debug, Default, PartialEq, Hash)]
pub struct ProfileId(u16);

impl ProfileId {
    /// The default profile, [`TerrainProfile::identity`]: the grid's cost bytes as they are.
    pub const DEFAULT: Self = Self(0);

    /// The profile's place in [`TerrainProfiles`].
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The terrain profiles requests may name, in the order they were added; the first is
/// [`ProfileId::DEFAULT`], the identity profile, and cannot be replaced.
///
/// ```
/// use bevy_astar::astar_grid::TerrainProfile;
/// use bevy_astar::{ProfileId, TerrainProfiles};
///
/// let mut profiles = TerrainProfiles::default();
/// let flyer = profiles.add("flyer", TerrainProfile::flyer())?;
/// assert_eq!(profiles.id("flyer"), Some(flyer));
/// assert_eq!(profiles.id("default"), Some(ProfileId::DEFAULT));
/// assert!(profiles.add("flyer", TerrainProfile::walker()).is_err()); // names are unique
/// # Ok::<(), bevy_astar::ProfileError>(())
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct TerrainProfiles {
    profiles: Vec<(String, TerrainProfile)>,
    /// Drawn anew by every change, so that derived grids are rebuilt.
    revision: u64,
}

/// The source of [`TerrainProfiles`] revisions, shared by every value, so that two different
/// tables never share a revision (a table put in the place of another is noticed).
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

fn next_revision() -> u64 {
    NEXT_REVISION.fetch_add(1, Ordering::Relaxed)
}

impl Default for TerrainProfiles {
    fn default() -> Self {
        Self {
            profiles: vec![("default".to_owned(), TerrainProfile::identity())],
            revision: next_revision(),
        }
    }
}

/// Why a profile was not registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// A profile of that name exists.
    #[error("a terrain profile named {0:?} exists")]
    DuplicateName(String),
    /// The profile lets agents enter no terrain at all.
    #[error("terrain profile {0:?} has no passable terrain")]
    NoPassableTerrain(String),
    /// The default profile cannot be replaced, or the id names no profile.
    #[error("profile {0:?} cannot be replaced")]
    NotReplaceable(ProfileId),
    /// More profiles than ids.
    #[error("at most {} terrain profiles", u16::MAX)]
    TooMany,
}

impl TerrainProfiles {
    /// Registers `profile` under `name`; returns its id. Agents of every kind but the default
    /// see a change of the whole map at the next publication, so that requests that failed for
    /// want of the profile are searched again (register profiles at startup).
    ///
    /// # Errors
    /// [`ProfileError`] when the name is taken, the profile passes no terrain, or there are too
    /// many profiles.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        profile: TerrainProfile,
    ) -> Result<ProfileId, ProfileError> {
        let name = name.into();
        if self.id(&name).is_some() {
            return Err(ProfileError::DuplicateName(name));
        }
        if !profile.has_passable_terrain() {
            return Err(ProfileError::NoPassableTerrain(name));
        }
        let id = u16::try_from(self.profiles.len()).map_err(|_| ProfileError::TooMany)?;
        self.profiles.push((name, profile));
        // Requests that named the id before it existed are searched again.
        self.revision = next_revision();
        Ok(ProfileId(id))
    }

    /// Replaces the profile `id` stands for; every derived grid is rebuilt, and agents of every
    /// kind but the default see a change of the whole map.
    ///
    /// # Errors
    /// [`ProfileError`] for the default profile, an unknown id, or a profile that passes no
    /// terrain.
    pub fn replace(&mut self, id: ProfileId, profile: TerrainProfile) -> Result<(), ProfileError> {
        if id == ProfileId::DEFAULT {
            return Err(ProfileError::NotReplaceable(id));
        }
        let Some((name, slot)) = self.profiles.get_mut(id.index()) else {
            return Err(ProfileError::NotReplaceable(id));
        };
        if !profile.has_passable_terrain() {
            return Err(ProfileError::NoPassableTerrain(name.clone()));
        }
        *slot = profile;
        self.revision = next_revision();
        Ok(())
    }

    /// The id of the profile called `name`.
    #[must_use]
    pub fn id(&self, name: &str) -> Option<ProfileId> {
        let index = self.profiles.iter().position(|(known, _)| known == name)?;
        u16::try_from(index).ok().map(ProfileId)
    }

    /// The profile `id` stands for.
    #[must_use]
    pub fn get(&self, id: ProfileId) -> Option<&TerrainProfile> {
        self.profiles.get(id.index()).map(|(_, profile)| profile)
    }

    /// The name of profile `id`.
    #[must_use]
    pub fn name(&self, id: ProfileId) -> Option<&str> {
        self.profiles.get(id.index()).map(|(name, _)| name.as_str())
    }

    /// The registered profiles with their ids, in order.
    pub fn iter(&self) -> impl Iterator<Item = (ProfileId, &str, &TerrainProfile)> {
        self.profiles
            .iter()
            .zip(0u16..)
            .map(|((name, profile), id)| (ProfileId(id), name.as_str(), profile))
    }

    /// How many times a profile was added or replaced.
    pub(crate) const fn revision(&self) -> u64 {
        self.revision
    }
}

/// Why a request's agent kind cannot be searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KindError {
    /// The request names a profile that [`TerrainProfiles`] does not hold.
    #[error("no terrain profile {0:?} is registered")]
    UnknownProfile(ProfileId),
    /// The size is out of range or larger than the map, or the footprint does not fit at the
    /// start or the goal (the error names the cell and why).
    #[error(transparent)]
    Agent(#[from] AgentError),
}

/// The agent kind of a request, as the plugin keys its derived grids, cache entries, flow fields
/// and goal batches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct KindKey {
    pub profile: ProfileId,
    pub size: u8,
}

impl KindKey {
    /// One-cell agents of the default profile, which search the [`NavGrid`](crate::NavGrid).
    pub const DEFAULT: Self = Self {
        profile: ProfileId::DEFAULT,
        size: 1,
    };

    /// Whether agents of this kind search the navigation grid itself.
    pub const fn is_default(self) -> bool {
        self.profile.0 == Self::DEFAULT.profile.0 && self.size == Self::DEFAULT.size
    }

    /// The size, checked against the limits of the core.
    pub const fn checked_size(self) -> Result<u8, KindError> {
        if self.size == 0 || self.size > MAX_AGENT_SIZE {
            Err(KindError::Agent(AgentError::InvalidSize {
                size: self.size,
            }))
        } else {
            Ok(self.size)
        }
    }
}
