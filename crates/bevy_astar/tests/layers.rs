//! The layering of both crates, kept by reading their sources: each crate has a table of
//! layers, bottom first, and a module may import only from its own module tree (the same prefix
//! of the table, or within its layer the same top-level module), from a layer below its own,
//! and from the other modules of its own layer where that layer allows it. Every
//! path into the crate counts (`use` items, grouped and renamed ones included, and paths in
//! code such as `crate::queue::set_status(..)`), resolved through `use` chains and re-exports to
//! the module that defines what it names; comments and string literals do not count, nor do
//! modules declared `#[cfg(test)]`. Every module must be placed in a layer, so that a new one
//! gets a place. A failure names each file, line and path.

#[path = "layers/mod.rs"]
pub mod checker;

use checker::check::{Breach, Layer, Placement, Report, check_crate, judge, place};
use std::path::{Path, PathBuf};

/// The plugin's layers, bottom first: what every stage shares below the stages, the stages
/// (which import only from below), and the plugins that assemble them on top. A parent module
/// low in the table that re-exports from a child placed higher (`crowd` from `crowd::plugin`)
/// imports upward too.
const BEVY_ASTAR: &[Layer] = &[
    Layer {
        name: "foundation",
        modules: &[
            "settings",
            "stats",
            "budget",
            "background",
            "kinds",
            "schedule",
        ],
        siblings: true,
    },
    Layer {
        name: "map",
        modules: &["map"],
        siblings: true,
    },
    Layer {
        name: "agent",
        modules: &[
            "path",
            "request",
            "trace",
            "outcome",
            "follow",
            "crowd",
            "goal_tree",
        ],
        siblings: true,
    },
    Layer {
        name: "shared",
        modules: &["cache", "in_flight", "queue"],
        siblings: true,
    },
    Layer {
        name: "engines",
        modules: &["engine"],
        siblings: true,
    },
    Layer {
        name: "stages",
        modules: &[
            "invalidate",
            "connectivity",
            "dispatch",
            "apply",
            "follow::plugin",
            "crowd::plugin",
            "crowd::progress",
            "crowd::space",
            "crowd::density",
            "crowd::tree_routes",
        ],
        siblings: false,
    },
    Layer {
        name: "plugins",
        modules: &[
            "plugin",
            "plugins",
            "diagnostics",
            "debug",
            "egui_panel",
            "tilemap",
            "crate",
            "prelude",
        ],
        siblings: true,
    },
];

/// The core's layers, bottom first: the grid and the rules of moving on it; the tools that read
/// a grid without searching it; the crowd, whose agents steer by those tools' lines of sight;
/// agent kinds' derived grids; the file formats; the searches;
/// the algorithms built on them; the engine that switches between them; the crate root.
///
/// A* (`search`), jump point search (`jps`) and the closest-cell flood (`closest`) are one
/// layer whose modules use each other: the `Searcher` owns the scratch memory of all three
/// (`JumpScratch`, `FloodScratch`), jump point search runs on A*'s open list, and the flood
/// answers both with their `Path`.
const ASTAR_GRID: &[Layer] = &[
    Layer {
        name: "grid",
        modules: &[
            "cell",
            "cost",
            "endpoints",
            "grid",
            "movement",
            "heuristic",
            "hex",
            "links",
        ],
        siblings: true,
    },
    Layer {
        name: "grid tools",
        modules: &["smoothing", "connectivity"],
        siblings: false,
    },
    Layer {
        name: "crowd",
        modules: &["crowd"],
        siblings: false,
    },
    Layer {
        name: "agent kinds",
        modules: &["agent"],
        siblings: false,
    },
    Layer {
        name: "formats",
        modules: &["formats"],
        siblings: false,
    },
    Layer {
        name: "search",
        modules: &["search", "jps", "closest"],
        siblings: true,
    },
    Layer {
        name: "algorithms",
        modules: &["algorithm", "flow_field", "hierarchy", "repair"],
        siblings: false,
    },
    Layer {
        name: "engine",
        modules: &["engine"],
        siblings: false,
    },
    Layer {
        name: "root",
        modules: &["crate"],
        siblings: false,
    },
];

#[test]
fn bevy_astar_keeps_its_layers() {
    assert_layered(&manifest_dir().join("src"), BEVY_ASTAR);
}

#[test]
fn astar_grid_keeps_its_layers() {
    assert_layered(&manifest_dir().join("../astar_grid/src"), ASTAR_GRID);
}

#[test]
fn no_prefix_is_listed_twice() {
    for table in [BEVY_ASTAR, ASTAR_GRID] {
        let mut prefixes: Vec<&str> = table
            .iter()
            .flat_map(|layer| layer.modules)
            .copied()
            .collect();
        let listed = prefixes.len();
        prefixes.sort_unstable();
        prefixes.dedup();
        assert_eq!(
            prefixes.len(),
            listed,
            "a prefix is listed twice: {table:?}"
        );
    }
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Checks the crate under `src` and fails with every violation, files named from the workspace.
fn assert_layered(src: &Path, layers: &[Layer]) {
    let workspace = manifest_dir().join("../..");
    let (src, workspace) = (canonical(src), canonical(&workspace));
    let report = check_crate(&src, &workspace, layers).expect("the sources are readable");
    assert!(
        report.is_clean(),
        "{} imports break the layering and {} modules are in no layer:\n{report}",
        report.violations.len(),
        report.unplaced.len()
    );
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A source tree written into a folder of its own under the temporary directory, removed when
/// dropped.
struct ScratchCrate {
    root: PathBuf,
}

impl ScratchCrate {
    /// Writes `files` (paths under `src`, contents) into a new folder named after `name`.
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let root = std::env::temp_dir().join(format!("layers-{}-{name}", std::process::id()));
        if root.exists() {
            std::fs::remove_dir_all(&root).expect("an old scratch folder can be removed");
        }
        for (path, text) in files {
            let file = root.join("src").join(path);
            let folder = file.parent().expect("a file is in a folder");
            std::fs::create_dir_all(folder).expect("the scratch folder can be made");
            std::fs::write(&file, text).expect("the scratch file can be written");
        }
        Self { root }
    }

    fn check(&self, layers: &[Layer]) -> Report {
        check_crate(&self.root.join("src"), &self.root, layers).expect("the scratch is readable")
    }
}

impl Drop for ScratchCrate {
    fn drop(&mut self) {
        // A folder left behind in the temporary directory harms nothing.
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The layers of the scratch crates: `low::stage` sits in `mid` (the longest prefix wins), the
/// modules of `mid` may not import each other, those of `low` may.
const TOY: &[Layer] = &[
    Layer {
        name: "low",
        modules: &["low", "shared"],
        siblings: true,
    },
    Layer {
        name: "mid",
        modules: &["mid", "other_mid", "low::stage"],
        siblings: false,
    },
    Layer {
        name: "high",
        modules: &["crate", "high"],
        siblings: true,
    },
];

const TOY_LIB: &str = "//! Root.\nmod low;\nmod mid;\nmod high;\n";

/// The violations' file, line and imported definition.
fn found(report: &Report) -> Vec<(&str, usize, &str)> {
    report
        .violations
        .iter()
        .map(|v| (v.file.as_str(), v.line, v.target.as_str()))
        .collect()
}

#[test]
fn a_backward_import_fails() {
    let scratch = ScratchCrate::new(
        "backward",
        &[
            ("lib.rs", TOY_LIB),
            (
                "low.rs",
                "//! Low.\nuse crate::mid::Stage;\npub struct Base;\n",
            ),
            (
                "mid.rs",
                "//! Mid.\nuse crate::low::Base;\npub struct Stage;\n",
            ),
            ("high.rs", "//! High.\nuse crate::mid::Stage;\n"),
        ],
    );
    let report = scratch.check(TOY);
    assert_eq!(
        found(&report),
        [("src/low.rs", 2, "mid::Stage")],
        "{report}"
    );
    assert_eq!(
        report.to_string(),
        "src/low.rs:2: module low imports mid::Stage (layer mid above layer low)\n"
    );
}

#[test]
fn a_grouped_import_is_parsed() {
    let mid = "//! Mid.
use crate::{
    low::Base,
    high::{
        Top,
        deep::{Deeper, self as deep_module},
    },
};
";
    let scratch = ScratchCrate::new(
        "grouped",
        &[
            ("lib.rs", TOY_LIB),
            ("low.rs", "//! Low.\npub struct Base;\n"),
            ("mid.rs", mid),
            ("high/mod.rs", "//! High.\npub mod deep;\npub struct Top;\n"),
            ("high/deep.rs", "//! Deep.\npub struct Deeper;\n"),
        ],
    );
    let report = scratch.check(TOY);
    let expected = [
        ("src/mid.rs", 5, "high::Top"),
        ("src/mid.rs", 6, "high::deep"),
        ("src/mid.rs", 6, "high::deep::Deeper"),
    ];
    assert_eq!(found(&report), expected, "{report}");
}

#[test]
fn a_re_export_is_resolved_to_its_definition() {
    let lib = "//! Root.
mod low;
mod mid;
mod high;
pub use high::Top as Renamed;
pub(crate) use low::{Base};
";
    let high = "//! High.
mod inner;
pub(crate) use self::inner::Top;
pub use crate::low::Base as LowBase;
";
    let scratch = ScratchCrate::new(
        "reexport",
        &[
            ("lib.rs", lib),
            (
                "low.rs",
                "//! Low.\nuse crate::Renamed;\npub struct Base;\n",
            ),
            (
                "mid.rs",
                "//! Mid.\nuse crate::Base;\nuse crate::high::LowBase;\n",
            ),
            ("high/mod.rs", high),
            ("high/inner.rs", "//! Inner.\npub struct Top;\n"),
        ],
    );
    let report = scratch.check(TOY);
    assert_eq!(
        found(&report),
        [("src/low.rs", 2, "high::inner::Top")],
        "{report}"
    );
    assert_eq!(
        report.violations[0].written.as_deref(),
        Some("crate::Renamed"),
        "{report}"
    );
}

#[test]
fn comments_and_strings_are_ignored_and_paths_in_code_count() {
    let low = r####"//! Low, which names crate::high::Top only in comments and strings.
// use crate::high::Top;
/* use crate::high::Top; /* nested */ crate::high::Top */
/// [`crate::high::Top`]
pub fn text() -> (&'static str, &'static str, &'static [u8], char) {
    ("crate::high::Top \" crate::high::Top", r#"crate::high::Top "quoted""#, b"crate::high::Top", '"')
}
pub fn call() -> u8 {
    crate::high::top()
}
#[doc(alias = "crate::high::Top")]
#[derive(crate::high::Derive)]
pub struct Derived;
"####;
    let scratch = ScratchCrate::new(
        "comments",
        &[
            ("lib.rs", TOY_LIB),
            ("low.rs", low),
            ("mid.rs", "//! Mid.\n"),
            (
                "high.rs",
                "//! High.\npub struct Top;\npub fn top() -> u8 { 1 }\n",
            ),
        ],
    );
    let report = scratch.check(TOY);
    let expected = [
        ("src/low.rs", 9, "high::top"),
        ("src/low.rs", 12, "high::Derive"),
    ];
    assert_eq!(found(&report), expected, "{report}");
}

#[test]
fn an_unplaced_module_fails() {
    let scratch = ScratchCrate::new(
        "unplaced",
        &[
            ("lib.rs", "//! Root.\nmod low;\nmod stray;\n"),
            ("low.rs", "//! Low.\n"),
            ("stray.rs", "//! Stray.\npub mod inline {}\n"),
        ],
    );
    let report = scratch.check(TOY);
    assert!(report.violations.is_empty(), "{report}");
    assert_eq!(
        report.unplaced,
        [
            "src/stray.rs: module stray",
            "src/stray.rs: module stray::inline"
        ]
    );
    assert!(!report.is_clean());
}

#[test]
fn modules_declared_cfg_test_are_not_checked() {
    let low = "//! Low.
#[cfg(test)]
mod tests {
    use crate::high::Top;
}
#[cfg(test)]
mod more_tests;
#[cfg(test)]
use crate::high::Top;
";
    let scratch = ScratchCrate::new(
        "cfg_test",
        &[
            ("lib.rs", TOY_LIB),
            ("low/mod.rs", low),
            ("low/more_tests.rs", "//! More.\nuse crate::high::Top;\n"),
            ("mid.rs", "//! Mid.\n"),
            ("high.rs", "//! High.\npub struct Top;\n"),
        ],
    );
    let report = scratch.check(TOY);
    assert_eq!(
        found(&report),
        [("src/low/mod.rs", 9, "high::Top")],
        "{report}"
    );
    assert!(report.unplaced.is_empty(), "{report}");
}

#[test]
fn the_longest_prefix_places_a_module_and_siblings_follow_the_flag() {
    let scratch = ScratchCrate::new(
        "prefixes",
        &[
            (
                "lib.rs",
                "//! Root.\nmod low;\nmod shared;\nmod mid;\nmod other_mid;\n",
            ),
            (
                "low/mod.rs",
                "//! Low.\nmod stage;\nuse stage::Stage;\npub struct Base;\n",
            ),
            (
                "low/stage.rs",
                "//! Stage.\nuse super::Base;\nuse super::super::mid::Mid;\npub struct Stage;\n",
            ),
            ("shared.rs", "//! Shared.\nuse crate::low::Base;\n"),
            (
                "mid.rs",
                "//! Mid.\nuse crate::other_mid::Other;\nuse super::low::Base;\npub struct Mid;\n",
            ),
            ("other_mid.rs", "//! Other.\npub struct Other;\n"),
        ],
    );
    let report = scratch.check(TOY);
    let expected = [
        ("src/low/mod.rs", 3, "low::stage::Stage"),
        ("src/low/stage.rs", 3, "mid::Mid"),
        ("src/mid.rs", 2, "other_mid::Other"),
    ];
    assert_eq!(found(&report), expected, "{report}");
    assert_eq!(
        report.violations[1].breach,
        Breach::Sibling { layer: "mid" },
        "{report}"
    );
}

#[test]
fn a_module_imports_its_own_tree_below_and_across_where_allowed() {
    let path = |text: &str| -> Vec<String> { text.split("::").map(str::to_owned).collect() };
    let at = |text: &str| {
        let module = path(text);
        (module.clone(), place(TOY, &module).expect("placed"))
    };
    let verdict = |importer: &str, target: &str| {
        let ((from, from_place), (to, to_place)): ((Vec<String>, Placement), _) =
            (at(importer), at(target));
        judge(TOY, (&from, from_place), (&to, to_place))
    };
    assert_eq!(verdict("mid", "low"), None);
    assert_eq!(
        verdict("low::stage", "low"),
        None,
        "its parent, a layer below"
    );
    assert_eq!(verdict("mid::a", "mid::b"), None, "its own prefix's tree");
    assert_eq!(verdict("low", "shared"), None, "a layer with siblings");
    assert_eq!(
        verdict("other_mid", "mid"),
        Some(Breach::Sibling { layer: "mid" })
    );
    assert_eq!(
        verdict("low", "low::stage"),
        Some(Breach::Upward {
            target: "mid",
            importer: "low"
        })
    );
}
