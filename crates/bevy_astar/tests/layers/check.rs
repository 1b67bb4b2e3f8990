//! The layering rule and its check of a crate: every module placed in a layer, and every path
//! into the crate leading to the module's own tree, a layer below, or (where the layer allows
//! it) another module of its own layer.

use super::tree::{CrateTree, ModulePath, Resolved};
use core::fmt;
use std::io;
use std::path::Path;

/// One layer of a crate's table.
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    /// Its name, for the messages.
    pub name: &'static str,
    /// The module path prefixes it holds (`crowd` holds `crowd` and `crowd::space`, unless a
    /// longer prefix elsewhere claims them); `crate` is the crate root alone.
    pub modules: &'static [&'static str],
    /// Whether modules of different prefixes of this layer may import each other.
    pub siblings: bool,
}

/// Where a module sits: the index of its layer in the table (bottom first) and the prefix
/// that placed it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The layer's index, 0 at the bottom.
    pub layer: usize,
    /// The longest prefix of the table that matches the module.
    pub prefix: &'static str,
}

/// The layer of `module`, by the longest matching prefix of the table; none if no prefix
/// matches.
pub fn place(layers: &[Layer], module: &[String]) -> Option<Placement> {
    let joined = module.join("::");
    let mut best: Option<Placement> = None;
    for (layer, entry) in layers.iter().enumerate() {
        for &prefix in entry.modules {
            let matches = if prefix == "crate" {
                module.is_empty()
            } else {
                joined == prefix || joined.starts_with(&format!("{prefix}::"))
            };
            let longer = best.is_none_or(|best| prefix.len() > best.prefix.len());
            if matches && longer {
                best = Some(Placement { layer, prefix });
            }
        }
    }
    best
}

/// Why an import breaks the layering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breach {
    /// The target's layer is above the importer's.
    Upward {
        /// The target's layer.
        target: &'static str,
        /// The importer's layer.
        importer: &'static str,
    },
    /// Importer and target are different modules of a layer whose modules may not import
    /// each other.
    Sibling {
        /// The layer.
        layer: &'static str,
    },
}

/// Whether a module placed at `importer` may import from one placed at `target`: a module may
/// import from a layer below its own; from its own module tree (the same prefix, or, within
/// its layer, the same top-level module: `crowd::plugin` from `crowd::steering`); and from
/// other modules of its layer when the layer allows siblings.
pub fn judge(
    layers: &[Layer],
    importer: (&[String], Placement),
    target: (&[String], Placement),
) -> Option<Breach> {
    let ((importer_path, from), (target_path, to)) = (importer, target);
    if to.layer < from.layer {
        return None;
    }
    if to.layer > from.layer {
        return Some(Breach::Upward {
            target: layers[to.layer].name,
            importer: layers[from.layer].name,
        });
    }
    let same_tree = from.prefix == to.prefix
        || !importer_path.is_empty() && importer_path.first() == target_path.first();
    if same_tree || layers[from.layer].siblings {
        return None;
    }
    Some(Breach::Sibling {
        layer: layers[from.layer].name,
    })
}

/// One import that breaks the layering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The file, as given to [`check_crate`] (relative to its display root).
    pub file: String,
    /// The line of the path.
    pub line: usize,
    /// The importing module.
    pub module: String,
    /// What it imports: the defining module and the item's name, or the module.
    pub target: String,
    /// The path as written, when it differs from `target`.
    pub written: Option<String>,
    /// Why it breaks the layering.
    pub breach: Breach,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: module {} imports {} (",
            self.file, self.line, self.module, self.target
        )?;
        if let Some(written) = &self.written {
            write!(f, "written {written}; ")?;
        }
        match &self.breach {
            Breach::Upward { target, importer } => {
                write!(f, "layer {target} above layer {importer})")
            }
            Breach::Sibling { layer } => {
                write!(
                    f,
                    "another module of layer {layer}, whose modules import only below)"
                )
            }
        }
    }
}

/// What a check of one crate found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The imports that break the layering, by file and line.
    pub violations: Vec<Violation>,
    /// The modules no prefix of the table places, with their files.
    pub unplaced: Vec<String>,
}

impl Report {
    /// Whether the crate keeps its layering and every module is placed.
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty() && self.unplaced.is_empty()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for violation in &self.violations {
            writeln!(f, "{violation}")?;
        }
        for module in &self.unplaced {
            writeln!(f, "{module}: in no layer of the table; place it")?;
        }
        Ok(())
    }
}

/// Checks the crate whose sources are under `src` against `layers` (bottom first). Files are
/// named relative to `display_root`.
///
/// # Errors
/// A folder or file under `src` that cannot be read.
pub fn check_crate(src: &Path, display_root: &Path, layers: &[Layer]) -> io::Result<Report> {
    let tree = CrateTree::read(src)?;
    let mut report = Report::default();
    for (path, module) in &tree.modules {
        let file = module
            .file
            .strip_prefix(display_root)
            .unwrap_or(&module.file);
        let file = file.display().to_string();
        let Some(placement) = place(layers, path) else {
            report
                .unplaced
                .push(format!("{file}: module {}", display_module(path)));
            continue;
        };
        let uses = module.source.uses.iter().map(|u| (&u.path, u.line));
        let refs = module.source.refs.iter().map(|r| (&r.path, r.line));
        for (written, line) in uses.chain(refs.filter(|(p, _)| tree.starts_in_crate(path, p))) {
            let resolved = tree.resolve(path, written);
            let Some(target) = resolved.module() else {
                continue;
            };
            let Some(target_placement) = place(layers, target) else {
                continue;
            };
            let Some(breach) = judge(layers, (path, placement), (target, target_placement)) else {
                continue;
            };
            let target = display_target(&resolved);
            let written = written.join("::");
            let same = written.strip_prefix("crate::").unwrap_or(&written) == target;
            report.violations.push(Violation {
                file: file.clone(),
                line,
                module: display_module(path),
                written: (!same).then_some(written),
                target,
                breach,
            });
        }
    }
    report.violations.sort_by(|a, b| {
        let key = |v: &Violation| (v.file.clone(), v.line, v.target.clone(), v.written.clone());
        key(a).cmp(&key(b))
    });
    report.violations.dedup();
    Ok(report)
}

fn display_module(path: &ModulePath) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("::")
    }
}

fn display_target(resolved: &Resolved) -> String {
    match resolved {
        Resolved::Module(path) => display_module(path),
        Resolved::Item(path, name) if path.is_empty() => format!("crate::{name}"),
        Resolved::Item(path, name) => format!("{}::{name}", path.join("::")),
        Resolved::External => String::new(),
    }
}
