//! `pathbench`: runs Moving AI benchmark scenarios through the project's searches and checks
//! every path length against the optimum.

mod agent_queries;
#[cfg(feature = "compare-main-thread")]
mod agents;
mod algorithm;
mod city;
#[cfg(feature = "compare-main-thread")]
mod compare;
mod erosion;
mod flow;
mod generated;
mod hex;
mod hier;
mod hier_exact;
mod hier_field;
mod kind;
mod links;
mod memory;
#[cfg(feature = "compare-main-thread")]
mod orders;
mod random;
mod reference;
mod scen;
mod scen_report;
mod scen_run;
mod side_by_side;
mod suite;
mod tolerance;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Benchmark runner for grid pathfinding on Moving AI maps.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs every query of one scenario file on its map and checks the lengths.
    Scen(scen::ScenArgs),
    /// Runs every `NAME.map` with its `NAME.map.scen` found under a directory.
    Suite(suite::SuiteArgs),
    /// Runs A* and jump point search on seeded random maps of chosen sizes and obstacle density.
    Generated(generated::GeneratedArgs),
    /// Writes a seeded city-like map (blocks, streets, squares) and a scenario of its queries.
    City(city::CityArgs),
    /// The sector hierarchy side by side with jump point search on one map and scenario: whole
    /// paths, first cells, quality, legality, build, memory and edits.
    Hier(hier::HierArgs),
    /// A* on a seeded hexagonal map, beside square maps of the same tiles and the `pathfinding`
    /// crate's A* on the same hexagonal graph (with `--features peers`).
    Hex(hex::HexArgs),
    /// Runs each map's queries with and without seeded links (teleporters, one-way drops), by A*
    /// and jump point search, and checks that both agree over the links.
    Links(links::LinksArgs),
    /// Runs the same queries through this project and other pathfinding libraries, side by side.
    #[cfg(feature = "compare-main-thread")]
    Compare(compare::CompareArgs),
    /// Runs the plugin with many agents and tower placements, beside bevy_northstar's plugin.
    #[cfg(feature = "compare-main-thread")]
    Agents(agents::AgentsArgs),
    /// Gives single agents orders on a huge map, with and without the plugin's
    /// `first_cells_fast`, side by side: frames to the first step and to the whole path.
    #[cfg(feature = "compare-main-thread")]
    Orders(orders::OrdersArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Scen(args) => scen::run(&args),
        Command::Suite(args) => suite::run(&args),
        Command::Generated(args) => generated::run(&args),
        Command::City(args) => city::run(&args),
        Command::Hier(args) => hier::run(&args),
        Command::Links(args) => links::run(&args),
        Command::Hex(args) => hex::run(&args),
        #[cfg(feature = "compare-main-thread")]
        Command::Compare(args) => compare::run(&args),
        #[cfg(feature = "compare-main-thread")]
        Command::Agents(args) => agents::run(&args),
        #[cfg(feature = "compare-main-thread")]
        Command::Orders(args) => orders::run(&args),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
