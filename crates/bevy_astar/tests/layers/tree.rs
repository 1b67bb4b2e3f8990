//! A crate's modules read from its `src` folder, and the resolution of the paths its code names
//! to the module that defines what they name, through `use` chains and re-exports.

use super::lexer::tokenize;
use super::parse::{ModuleSource, UseItem, parse_file};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// A module's path in its crate: `["map", "nav_grid"]`, empty for the crate root.
pub type ModulePath = Vec<String>;

/// Where a path leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A module of the crate (`use crate::engine;`, or a glob's module).
    Module(ModulePath),
    /// An item, in the module that defines it (or where the walk stopped: an item name that is
    /// neither a child module nor imported is taken as defined there).
    Item(ModulePath, String),
    /// Another crate (`bevy`, `std`, `astar_grid`, ...).
    External,
}

impl Resolved {
    /// The module of the crate the path leads into, if it leads into the crate.
    pub fn module(&self) -> Option<&ModulePath> {
        match self {
            Self::Module(path) | Self::Item(path, _) => Some(path),
            Self::External => None,
        }
    }
}

/// One module of the crate: its source and the file it is in.
#[derive(Clone, Debug)]
pub struct Module {
    /// What its source holds.
    pub source: ModuleSource,
    /// Its file (an inline module's is the file it is written in).
    pub file: PathBuf,
}

/// The modules of one crate, those under `#[cfg(test)]` module declarations left out.
#[derive(Clone, Debug, Default)]
pub struct CrateTree {
    /// The modules by path.
    pub modules: BTreeMap<ModulePath, Module>,
}

impl CrateTree {
    /// Reads every `.rs` file under `src` (a crate's `src` folder with its `lib.rs`).
    ///
    /// # Errors
    /// A folder or file that cannot be read.
    pub fn read(src: &Path) -> io::Result<Self> {
        let mut files = Vec::new();
        rust_files(src, &mut files)?;
        let mut modules = BTreeMap::new();
        for file in files {
            let Some(path) = module_path(src, &file) else {
                continue;
            };
            let text = std::fs::read_to_string(&file)?;
            for source in parse_file(&tokenize(&text), &path) {
                let module = Module {
                    source,
                    file: file.clone(),
                };
                modules.insert(module.source.path.clone(), module);
            }
        }
        let test_only: BTreeSet<ModulePath> = modules
            .values()
            .flat_map(|module| {
                let source = &module.source;
                source
                    .children
                    .iter()
                    .filter(|child| child.cfg_test)
                    .map(|child| {
                        let mut path = source.path.clone();
                        path.push(child.name.clone());
                        path
                    })
            })
            .collect();
        modules.retain(|path, _| !test_only.iter().any(|test| path.starts_with(test)));
        Ok(Self { modules })
    }

    /// Where `path`, written in module `from`, leads.
    pub fn resolve(&self, from: &[String], path: &[String]) -> Resolved {
        self.resolve_path(from, path, &mut BTreeSet::new())
    }

    /// Whether `path`, written in code of module `from`, starts in the crate: with `crate`,
    /// `self`, `super`, or a name of `from` that is a module of the crate.
    pub fn starts_in_crate(&self, from: &[String], path: &[String]) -> bool {
        match path.first().map(String::as_str) {
            Some("crate" | "self" | "super") => true,
            Some(head) => matches!(
                self.resolve_name(from, head, &mut BTreeSet::new()),
                Some(Resolved::Module(_))
            ),
            None => false,
        }
    }

    fn resolve_path(
        &self,
        from: &[String],
        path: &[String],
        seen: &mut BTreeSet<(ModulePath, String)>,
    ) -> Resolved {
        let (mut module, rest) = match path.first().map(String::as_str) {
            None | Some("::") => return Resolved::External,
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.to_vec(), &path[1..]),
            Some("super") => {
                let supers = path
                    .iter()
                    .take_while(|segment| *segment == "super")
                    .count();
                let depth = from.len().saturating_sub(supers);
                (from[..depth].to_vec(), &path[supers..])
            }
            Some(head) => match self.resolve_name(from, head, seen) {
                Some(Resolved::Module(module)) => (module, &path[1..]),
                Some(other) => return other,
                None => return Resolved::External,
            },
        };
        for segment in rest {
            match self.resolve_name(&module, segment, seen) {
                Some(Resolved::Module(child)) => module = child,
                Some(other) => return other,
                None => return Resolved::Item(module, segment.clone()),
            }
        }
        Resolved::Module(module)
    }

    /// What `name` means in `module`: a child module, an import (followed to its end), an item
    /// defined there, or a name that one of its globs of the crate brings; none if it is none
    /// of those (or the name was already being looked up: an import cycle).
    fn resolve_name(
        &self,
        module: &[String],
        name: &str,
        seen: &mut BTreeSet<(ModulePath, String)>,
    ) -> Option<Resolved> {
        if !seen.insert((module.to_vec(), name.to_owned())) {
            return None;
        }
        let mut child = module.to_vec();
        child.push(name.to_owned());
        if self.modules.contains_key(&child) {
            return Some(Resolved::Module(child));
        }
        let source = &self.modules.get(module)?.source;
        if let Some(import) = source
            .uses
            .iter()
            .find(|u| u.binding.as_deref() == Some(name))
        {
            return Some(self.resolve_path(module, &import.path, seen));
        }
        if source.items.contains(name) {
            return Some(Resolved::Item(module.to_vec(), name.to_owned()));
        }
        let globs: Vec<&UseItem> = source.uses.iter().filter(|u| u.glob).collect();
        globs
            .into_iter()
            .find_map(|glob| match self.resolve_path(module, &glob.path, seen) {
                Resolved::Module(target) => self.resolve_name(&target, name, seen),
                _ => None,
            })
    }
}

/// The `.rs` files under `folder`, depth first.
fn rust_files(folder: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<io::Result<_>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            rust_files(&entry, files)?;
        } else if entry.extension().is_some_and(|ext| ext == "rs") {
            files.push(entry);
        }
    }
    Ok(())
}

/// The module a file under `src` holds: `map/nav_grid.rs` is `map::nav_grid`, `map/mod.rs` is
/// `map`, `lib.rs` the root. None for a file outside `src` or named other than UTF-8.
pub fn module_path(src: &Path, file: &Path) -> Option<ModulePath> {
    let relative = file.strip_prefix(src).ok()?.with_extension("");
    let mut path: ModulePath = relative
        .components()
        .map(|part| part.as_os_str().to_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    if path == ["lib"] || path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    Some(path)
}
