//! The primary's serve configuration, wherever it is written: `--serve-cmd`, a compose service,
//! a systemd unit, a script, or a running hub; parsed into bind, port, token, TLS and publishing.

use std::collections::BTreeMap;

use super::Inputs;
use super::compose::compose;
use super::env_file::file_env;
use super::scan::{Kind, ScanSet};
use super::serve_line::{ServeConfig, parse};
use mpt_palace::hygiene::words;
use mpt_palace::procs::{self, Role};
use mpt_palace::{PalacePaths, files};

/// Every serve configuration to judge: `--serve-cmd` alone when given, else all that are found.
pub fn find(inputs: &Inputs, scan: &ScanSet) -> Vec<ServeConfig> {
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    for k in [
        "MEMPALACE_MCP_HTTP_TOKEN",
        "MEMPALACE_MCP_TLS_CERT",
        "MEMPALACE_MCP_TLS_KEY",
    ] {
        if let Some(v) = inputs.env.get(k) {
            vars.insert(k.into(), v.into());
        }
    }
    if let Some(cmd) = &inputs.serve_cmd {
        return parse(&words(cmd), &vars, "--serve-cmd")
            .into_iter()
            .collect();
    }
    let mut out = Vec::new();
    for f in scan.files.iter() {
        match f.kind {
            Kind::Compose => out.extend(compose(&f.path, &f.text)),
            Kind::Systemd | Kind::Script | Kind::Crontab | Kind::Other => {
                let mut env = file_env(&f.path, &f.text);
                env.extend(vars.clone());
                for (n, line) in f.lines() {
                    let l = line.trim_start().trim_start_matches("ExecStart=");
                    let l = l.trim_start_matches(['-', '@', '+', '!']);
                    if line.trim_start().starts_with('#') {
                        continue;
                    }
                    let src = format!("{}:{n}", f.path.display());
                    out.extend(parse(&words(l), &env, &src));
                }
            }
            _ => {}
        }
    }
    {
        for p in inputs.procs().1 {
            if p.role != Some(Role::Hub) {
                continue;
            }
            let env = p.environ();
            let vars: BTreeMap<String, String> =
                env.clone().unwrap_or_default().into_iter().collect();
            if let Some(mut c) = parse(&p.argv, &vars, &format!("pid {}", p.pid)) {
                c.pid = Some(p.pid);
                if c.port == 0 {
                    c.port = registered_port(inputs, p).unwrap_or(0);
                }
                c.token_unknown = env.is_none() && c.token.is_none();
                out.push(c);
            }
        }
    }
    out
}

/// The port a running hub really bound (`--port 0`): from its registry record.
fn registered_port(inputs: &Inputs, p: &procs::Proc) -> Option<u16> {
    let paths = PalacePaths::resolve(&inputs.env, Some(&p.palace()?)).ok()?;
    let info = files::server_info(&paths.serverinfo).ok()??;
    (info.pid == p.pid).then_some(info.port)
}
