//! The `pathbench agents` report: a table with one column per library, the per-set split of
//! this project's plugin, the targets, and one JSON line.

use super::record::{Placement, RunRecord, SpanSeries, Spread};
use super::{AgentsArgs, Scenario};
use serde_json::{Value, json};
use std::time::Duration;

/// Target: the plugin's main-thread time per frame at the 99th percentile, in milliseconds.
const TARGET_P99_MS: f64 = 1.0;
/// Target: frames from a placement until every agent it cut has a new path.
const TARGET_REPATH_FRAMES: u64 = 4;

/// The figures of one run, as printed and as written to the JSON line.
struct Figures {
    plugin: Spread,
    game: Spread,
    repath_frames: Spread,
    repathed_placements: usize,
    cutting_placements: usize,
    cut_mean: f64,
    searched_mean: f64,
    searched_per_cut: f64,
    checked_mean: Option<f64>,
    crushed: usize,
    searches_per_second: f64,
    cache_hit_rate: Option<f64>,
    edit: Spread,
    reaction: Spread,
    waiting: Spread,
    seconds: f64,
}

/// Agents checked for changes per placement (mean), where the library counts them.
fn checked_mean(placements: &[Placement]) -> Option<f64> {
    let checked: Option<Vec<u64>> = placements.iter().map(|p| p.checked).collect();
    checked
        .filter(|checked| !checked.is_empty())
        .map(|checked| checked.iter().sum::<u64>() as f64 / checked.len() as f64)
}

/// CPU time of the whole process per measured frame, in milliseconds, where known.
fn cpu_per_frame(record: &RunRecord) -> Option<f64> {
    let frames = record.plugin.frames.len().max(1) as f64;
    record
        .cpu_time
        .map(|time| time.as_secs_f64() * 1e3 / frames)
}

impl Figures {
    fn of(record: &RunRecord, seconds: f64) -> Self {
        let placements = &record.placements;
        let cutting: Vec<&Placement> = placements.iter().filter(|p| p.cut > 0).collect();
        let repath_frames: Vec<f64> = cutting
            .iter()
            .filter_map(|p| p.frames_to_repath)
            .map(|frames| frames as f64)
            .collect();
        let cut: usize = placements.iter().map(|p| p.cut).sum();
        let searched: usize = placements.iter().map(|p| p.searched).sum();
        let count = placements.len().max(1) as f64;
        let durations = |time: fn(&Placement) -> Duration| {
            Spread::of_durations(&placements.iter().map(time).collect::<Vec<_>>())
        };
        Self {
            plugin: Spread::of_durations(&record.plugin.frames),
            game: Spread::of_durations(&record.game.frames),
            repathed_placements: repath_frames.len(),
            repath_frames: Spread::of(repath_frames),
            cutting_placements: cutting.len(),
            cut_mean: cut as f64 / count,
            searched_mean: searched as f64 / count,
            searched_per_cut: searched as f64 / cut.max(1) as f64,
            checked_mean: checked_mean(placements),
            crushed: placements.iter().map(|p| p.crushed).sum(),
            searches_per_second: record.searches as f64 / seconds,
            cache_hit_rate: record
                .cache
                .map(|(hits, lookups)| hits as f64 / lookups.max(1) as f64),
            waiting: Spread::of(record.waiting.iter().map(|&count| count as f64)),
            edit: durations(|p| p.edit_time),
            reaction: durations(|p| p.reaction_time),
            seconds,
        }
    }

    /// Whether the plugin targets are met: (p99, re-path frames).
    fn targets(&self, record: &RunRecord) -> (bool, bool) {
        let repath = record.unfinished_placements == 0
            && self.repathed_placements == self.cutting_placements
            && self.repath_frames.max <= TARGET_REPATH_FRAMES as f64;
        (self.plugin.p99 < TARGET_P99_MS, repath)
    }

    fn json(&self, record: &RunRecord) -> Value {
        let (p99_met, repath_met) = self.targets(record);
        let spread = |spread: Spread| json!({ "median": spread.median, "p99": spread.p99, "max": spread.max });
        let cut: usize = record
            .placements
            .iter()
            .map(|placement| placement.cut)
            .sum();
        let sets: serde_json::Map<String, Value> = record
            .plugin_sets
            .iter()
            .map(|series| {
                let mut figures = spread(Spread::of_durations(&series.frames));
                if cut > 0 {
                    figures["us_per_path_cut"] = json!(set_us_per_cut(series, cut));
                }
                (series.name.to_owned(), figures)
            })
            .collect();
        json!({
            "search": record.search,
            "plugin_ms_per_frame": spread(self.plugin),
            "plugin_sets_ms_per_frame": sets,
            "game_code": record.game.name,
            "game_code_ms_per_frame": (!record.game.frames.is_empty()).then(|| spread(self.game)),
            "repath_frames": {
                "median": self.repath_frames.median,
                "max": self.repath_frames.max,
                "placements_cutting": self.cutting_placements,
                "placements_repathed": self.repathed_placements,
                "placements_unfinished": record.unfinished_placements,
            },
            "agents_waiting_for_a_path": spread(self.waiting),
            "paths_cut_per_placement": self.cut_mean,
            "agents_searched_per_placement": self.searched_mean,
            "searched_per_cut": self.searched_per_cut,
            "agents_checked_for_changes_per_placement": self.checked_mean,
            "sharing": record.sharing.map(|sharing| json!({
                "shared_goal_min_agents": sharing.min_agents,
                "goal_trees_at_end": sharing.trees,
                "routes_shared_while_measured": sharing.routes,
                "bytes_per_cell_per_tree": sharing.milli_bytes_per_cell as f64 / 1000.0,
                "sector_routes_renewed": sharing.sector_routes.0,
                "sector_routes_patched_first": sharing.sector_routes.1,
            })),
            "agents_crushed": self.crushed,
            "searches": record.searches,
            "repairs": record.repairs,
            "searches_per_second": self.searches_per_second,
            "cache_hit_rate": self.cache_hit_rate,
            "background_search_ms": record.background_search_time.map(|time| time.as_secs_f64() * 1e3),
            "map_edit_ms": spread(self.edit),
            "placement_reaction_ms": spread(self.reaction),
            "arrivals": record.arrivals,
            "failures": record.failures,
            "warmup_frames": record.warmup_frames,
            "wall_seconds": record.wall_time.as_secs_f64(),
            "cpu_ms_per_frame": cpu_per_frame(record),
            "arrivals_per_second": record.arrivals as f64 / self.seconds,
            "crowd": record.crowd.map(|crowd| json!({
                "penetration_mean": crowd.penetration_mean,
                "penetration_p99": crowd.penetration_p99,
                "stuck_over_5_s": crowd.stuck,
                "samples": crowd.samples,
            })),
            "target_p99_under_1ms": p99_met,
            "target_repath_within_4_frames": repath_met,
        })
    }
}

/// One table row: a label and one cell per library.
fn row(label: &str, cells: impl IntoIterator<Item = String>) {
    let cells: Vec<String> = cells
        .into_iter()
        .map(|cell| format!("{cell:>16}"))
        .collect();
    println!("  {label:<46}{}", cells.join(""));
}

/// A frame count, or "-" when no placement's cut agents were all re-pathed.
fn frames(figures: &Figures, value: f64) -> String {
    if figures.repathed_placements == 0 {
        "-".to_owned()
    } else {
        format!("{value}")
    }
}

/// A game-code time, or "none" when the library needs no game code.
fn game_code(run: &RunRecord, value: f64) -> String {
    if run.game.frames.is_empty() {
        "none".to_owned()
    } else {
        milliseconds(value)
    }
}

fn milliseconds(value: f64) -> String {
    format!("{value:.3}")
}

/// The `--frame-times` table: a header, then one line per run and measured frame with its
/// library, the frame (from 1), whether a tower was placed on it (1 or 0), the plugin's time
/// and each system set's, in milliseconds.
pub fn frame_times(scenario: &Scenario, runs: &[RunRecord]) -> String {
    let mut table = String::new();
    for run in runs {
        if table.is_empty() {
            table += "library frame tower plugin_ms";
            for series in &run.plugin_sets {
                table += &format!(" {}_ms", series.name);
            }
            table.push('\n');
        }
        for (index, plugin) in run.plugin.frames.iter().enumerate() {
            let frame = index as u64 + 1;
            let tower = u8::from(scenario.placement_at(frame).is_some());
            let ms = |time: Duration| time.as_secs_f64() * 1e3;
            table += &format!("{} {frame} {tower} {:.4}", run.library, ms(*plugin));
            for series in &run.plugin_sets {
                let time = series.frames.get(index).copied().unwrap_or_default();
                table += &format!(" {:.4}", ms(time));
            }
            table.push('\n');
        }
    }
    table
}

/// Prints the table, the per-set split, the targets and the JSON line.
pub fn print(args: &AgentsArgs, scenario: &Scenario, runs: &[RunRecord]) {
    let seconds = scenario.frames as f64 / f64::from(super::FRAME_RATE);
    let figures: Vec<Figures> = runs.iter().map(|run| Figures::of(run, seconds)).collect();
    println!(
        "pathbench agents: {} agents, {size}x{size} map (seed {}), {} goal{}, {} frames at 60 Hz ({seconds} s simulated, {}), \
         {} towers (one every 0.5 s; {} on both libraries' spawn routes), agents at {} cells/s",
        scenario.first_cells.len(),
        args.seed,
        scenario.goals.len(),
        if scenario.goals.len() == 1 { "" } else { "s" },
        scenario.frames,
        if scenario.paced {
            "paced to wall-clock time"
        } else {
            "unpaced"
        },
        scenario.towers.len(),
        scenario.shared_towers,
        scenario.speed,
        size = args.size,
    );
    for run in runs {
        println!("  {:<16}{}", run.library, run.search);
    }
    print_sharing(runs);
    row("", runs.iter().map(|run| run.library.to_owned()));
    let each = |label: &str, value: &dyn Fn(&Figures, &RunRecord) -> String| {
        row(
            label,
            figures
                .iter()
                .zip(runs)
                .map(|(figures, run)| value(figures, run)),
        );
    };
    each("plugin systems, main thread, ms/frame: median", &|f, _| {
        milliseconds(f.plugin.median)
    });
    each("  p99", &|f, _| milliseconds(f.plugin.p99));
    each("  max", &|f, _| milliseconds(f.plugin.max));
    each("frames until cut agents re-pathed: median", &|f, _| {
        frames(f, f.repath_frames.median)
    });
    each("  max", &|f, _| frames(f, f.repath_frames.max));
    each("  placements cutting paths (all re-pathed)", &|f, _| {
        format!("{} ({})", f.cutting_placements, f.repathed_placements)
    });
    each("paths cut per placement (mean)", &|f, _| {
        format!("{:.1}", f.cut_mean)
    });
    each("agents searched per placement (mean)", &|f, _| {
        format!("{:.1}", f.searched_mean)
    });
    each("  searched per path cut", &|f, _| {
        format!("{:.2}", f.searched_per_cut)
    });
    each("agents checked for the change per placement", &|f, _| {
        f.checked_mean
            .map_or_else(|| "-".to_owned(), |mean| format!("{mean:.1}"))
    });
    each("agents waiting for a new path: median", &|f, _| {
        format!("{}", f.waiting.median)
    });
    each("  max", &|f, _| format!("{}", f.waiting.max));
    each("searches per simulated second", &|f, _| {
        format!("{:.0}", f.searches_per_second)
    });
    each("  of which local repairs of cut paths", &|_, run| {
        run.repairs
            .map_or_else(|| "none".to_owned(), |repairs| format!("{repairs}"))
    });
    each("cache hit rate", &|f, _| {
        f.cache_hit_rate.map_or_else(
            || "no cache".to_owned(),
            |rate| format!("{:.1}%", rate * 100.0),
        )
    });
    each("mean search on a background thread, ms", &|_, run| {
        run.background_search_time.map_or_else(
            || {
                if run.searches == 0 {
                    "no searches".to_owned()
                } else {
                    "in systems".to_owned()
                }
            },
            |time| milliseconds(time.as_secs_f64() * 1e3),
        )
    });
    each("game code per frame, ms: median", &|f, run| {
        game_code(run, f.game.median)
    });
    each("  p99", &|f, run| game_code(run, f.game.p99));
    each("map edit per placement, ms: median", &|f, _| {
        milliseconds(f.edit.median)
    });
    each("  max", &|f, _| milliseconds(f.edit.max));
    each("game reaction per placement, ms: median", &|f, _| {
        milliseconds(f.reaction.median)
    });
    each("  max", &|f, _| milliseconds(f.reaction.max));
    each("arrivals / failed searches / crushed", &|f, run| {
        format!("{} / {} / {}", run.arrivals, run.failures, f.crushed)
    });
    each("arrivals per simulated second", &|f, run| {
        format!("{:.1}", run.arrivals as f64 / f.seconds)
    });
    each("CPU of every thread, ms/frame (mean)", &|_, run| {
        cpu_per_frame(run).map_or_else(|| "unknown".to_owned(), milliseconds)
    });
    if runs.iter().any(|run| run.crowd.is_some()) {
        // Avoidance's CPU: over the first run's, whose agents walk through each other.
        let plain = runs.first().and_then(cpu_per_frame);
        let agents = scenario.first_cells.len().max(1) as f64;
        each("avoidance CPU, µs per agent per frame", &|_, run| match (
            run.crowd,
            cpu_per_frame(run),
            plain,
        ) {
            (Some(_), Some(cpu), Some(plain)) => format!("{:.2}", (cpu - plain) * 1e3 / agents),
            _ => "-".to_owned(),
        });
        each("penetration, fraction of radius: mean", &|_, run| {
            run.crowd
                .map_or_else(|| "-".to_owned(), |c| format!("{:.3}", c.penetration_mean))
        });
        each("  p99", &|_, run| {
            run.crowd
                .map_or_else(|| "-".to_owned(), |c| format!("{:.3}", c.penetration_p99))
        });
        each("agents stuck for more than 5 s", &|_, run| {
            run.crowd
                .map_or_else(|| "-".to_owned(), |c| format!("{}", c.stuck))
        });
    }
    each("warm-up frames", &|_, run| format!("{}", run.warmup_frames));
    each("wall-clock of measured frames, s", &|_, run| {
        format!("{:.1}", run.wall_time.as_secs_f64())
    });
    for (run, figures) in runs.iter().zip(&figures) {
        print_sets(run);
        let (p99_met, repath_met) = figures.targets(run);
        println!(
            "  {}: p99 {:.3} ms/frame (target < {TARGET_P99_MS} ms: {}); cut agents re-pathed \
             within {} frames at most, {} placements unfinished at the end (target \
             {TARGET_REPATH_FRAMES} frames: {})",
            run.library,
            figures.plugin.p99,
            verdict(p99_met),
            frames(figures, figures.repath_frames.max),
            run.unfinished_placements,
            verdict(repath_met),
        );
    }
    let libraries: serde_json::Map<String, Value> = runs
        .iter()
        .zip(&figures)
        .map(|(run, figures)| (run.library.to_owned(), figures.json(run)))
        .collect();
    println!(
        "{}",
        json!({
            "command": "agents",
            "agents": scenario.first_cells.len(),
            "size": args.size,
            "seed": args.seed,
            "goals": scenario.goals.len(),
            "shared": format!("{:?}", args.shared).to_lowercase(),
            "shared_min": args.shared_min,
            "seconds": args.seconds,
            "frames": scenario.frames,
            "towers": scenario.towers.len(),
            "towers_on_both_routes": scenario.shared_towers,
            "tower_side": scenario.tower_side,
            "speed": scenario.speed,
            "paced": scenario.paced,
            "repair_cut_paths": args.repair_cut_paths,
            "goal_batch_min": args.goal_batch_min,
            "max_paths_applied_per_frame": args.max_paths_applied_per_frame,
            "libraries": libraries,
        })
    );
}

/// Prints how each run that shares goal trees shared them.
fn print_sharing(runs: &[RunRecord]) {
    for run in runs {
        let Some(sharing) = run.sharing else {
            continue;
        };
        println!(
            "  {}: shared_goal_min_agents {}{}; {} goal trees held at the end; {} routes given \
             on shared trees while measured; {:.2} bytes a map cell per field or tree held; \
             sector routes renewed {} times ({} patched first)",
            run.library,
            sharing.min_agents,
            if sharing.min_agents == 0 {
                " (off)"
            } else {
                ""
            },
            sharing.trees,
            sharing.routes,
            sharing.milli_bytes_per_cell as f64 / 1000.0,
            sharing.sector_routes.0,
            sharing.sector_routes.1,
        );
    }
}

/// Prints the per-set split of a run's plugin time, where it has one.
fn print_sets(run: &RunRecord) {
    if run.plugin_sets.is_empty() {
        return;
    }
    let parts: Vec<String> = run
        .plugin_sets
        .iter()
        .map(|series: &SpanSeries| {
            let spread = Spread::of_durations(&series.frames);
            format!(
                "{} {:.3}/{:.3}/{:.3}",
                series.name, spread.median, spread.p99, spread.max
            )
        })
        .collect();
    println!(
        "  {} by system set, ms/frame median/p99/max: {}",
        run.library,
        parts.join(", ")
    );
    let cut: usize = run.placements.iter().map(|placement| placement.cut).sum();
    if cut > 0 {
        let per_cut: Vec<String> = run
            .plugin_sets
            .iter()
            .map(|series| format!("{} {:.2}", series.name, set_us_per_cut(series, cut)))
            .collect();
        println!(
            "  {} by system set, whole run's time per path cut, us: {}",
            run.library,
            per_cut.join(", ")
        );
    }
}

/// A set's time over the whole run, divided by the paths the towers cut: what one cut agent
/// costs the set, with the set's work on frames without a tower counted in.
fn set_us_per_cut(series: &SpanSeries, cut: usize) -> f64 {
    let total: Duration = series.frames.iter().sum();
    total.as_secs_f64() * 1e6 / cut as f64
}

const fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "missed" }
}
