//! `mpt edge`: what a harness runs as its MCP server. By default a thin shim to the palace's one
//! owner process (started on demand); `--standalone` serves in-process; `status`, `stop`, `wire`.

mod status;
mod stop;
mod wire;

use crate::cli::{EdgeAction, EdgeArgs};
use crate::commands::Ctx;
use crate::edge::launch::Launch;
use crate::edge::owner::OwnerPaths;
use crate::error::{Exit, Result};
use crate::palace::PalacePaths;
use crate::state_dir::StateDir;

pub fn run(ctx: &Ctx, args: EdgeArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let palace = PalacePaths::chosen(&ctx.env, args.palace.path.as_deref(), Some(&config))?;
    let state = StateDir::for_palace(&palace.home, &palace.palace);
    let paths = OwnerPaths::in_dir(&state.path, &palace.palace);
    let harness = args
        .harness
        .clone()
        .unwrap_or_else(|| config.harness.clone());
    let rt = super::runtime()?;
    let launch = Launch {
        config: &config,
        env: &ctx.env,
        config_flag: ctx.config_flag.as_deref(),
        paths,
        state,
        palace: palace.palace,
        child: args.child,
    };
    match args.action {
        Some(EdgeAction::Status) => status::run(ctx, &rt, &launch),
        Some(EdgeAction::Stop) => stop::run(ctx, &rt, &launch),
        Some(EdgeAction::Wire {
            harness,
            config: file,
            dry_run,
        }) => wire::run(ctx, &config, harness, file, dry_run),
        None if args.owner => rt.block_on(launch.run_owner()).map(|()| Exit::Ok),
        None if args.standalone => rt
            .block_on(launch.run_standalone(&harness))
            .map(|()| Exit::Ok),
        None => rt.block_on(launch.run_shim(&harness)).map(|()| Exit::Ok),
    }
}
