//! The processes on this machine that matter to MemPalace, read from `/proc`: harnesses (pi,
//! opencode), `mempalace-mcp` children and `mempalace serve` hubs, with their argv and environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::PalacePaths;
use super::paths::realpath;
use mpt_base::config::Env;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Pi,
    Opencode,
    /// Claude Code (`claude`, its native `claude.exe`).
    Claude,
    /// Codex (npm's `node …/codex` and the native `codex` it starts).
    Codex,
    /// A stdio MemPalace server (`mempalace-mcp`, or `-m mempalace.mcp_server` without http).
    Child,
    /// `mempalace serve` (after its execve: `-m mempalace.mcp_server --transport http`).
    Hub,
    /// `mpt edge`.
    Edge,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    pub uid: u32,
    pub argv: Vec<String>,
    pub role: Option<Role>,
}

impl Proc {
    /// The process's environment (`None` when it is not ours to read).
    pub fn environ(&self) -> Option<BTreeMap<String, String>> {
        let raw = std::fs::read(format!("/proc/{}/environ", self.pid)).ok()?;
        Some(
            raw.split(|b| *b == 0)
                .filter_map(|kv| {
                    let s = String::from_utf8_lossy(kv);
                    let (k, v) = s.split_once('=')?;
                    Some((k.to_string(), v.to_string()))
                })
                .collect(),
        )
    }

    /// The value after `--palace` (or `--palace=`), as given.
    pub fn palace_arg(&self) -> Option<PathBuf> {
        crate::harness::kind::palace_arg(&self.argv).map(PathBuf::from)
    }

    pub fn command_line(&self) -> String {
        self.argv.join(" ")
    }

    /// The palace a MemPalace process serves: its `--palace`, else its own environment's rules.
    pub fn palace(&self) -> Option<PathBuf> {
        if let Some(pp) = self.palace_arg() {
            return Some(pp);
        }
        let env = Env::from_pairs(self.environ()?);
        PalacePaths::resolve(&env, None).ok().map(|x| x.palace)
    }

    /// The files it has open (`/proc/<pid>/fd`), when they are ours to read.
    pub fn open_files(&self) -> Vec<PathBuf> {
        let Ok(rd) = std::fs::read_dir(format!("/proc/{}/fd", self.pid)) else {
            return Vec::new();
        };
        rd.flatten()
            .filter_map(|e| std::fs::read_link(e.path()).ok())
            .filter(|p| p.is_absolute())
            .collect()
    }
}

impl Proc {
    /// The inodes of the sockets it has open (`socket:[N]` in `/proc/<pid>/fd`).
    pub fn open_sockets(&self) -> Vec<u64> {
        let Ok(rd) = std::fs::read_dir(format!("/proc/{}/fd", self.pid)) else {
            return Vec::new();
        };
        rd.flatten()
            .filter_map(|e| std::fs::read_link(e.path()).ok())
            .filter_map(|l| {
                l.to_str()?
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .parse()
                    .ok()
            })
            .collect()
    }
}

/// The MemPalace servers (children and hubs) in `all` that have `palace` open.
pub fn serving<'a>(all: &'a [Proc], palace: &Path) -> Vec<&'a Proc> {
    let ours = realpath(palace);
    all.iter()
        .filter(|p| matches!(p.role, Some(Role::Child | Role::Hub)))
        .filter(|p| p.palace().is_some_and(|pp| realpath(&pp) == ours))
        .collect()
}

fn base(s: &str) -> &str {
    Path::new(s)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(s)
}

/// What a command line is. The first two words are checked (`node …/pi`, `python …/mempalace-mcp`).
pub fn role_of(argv: &[String]) -> Option<Role> {
    let head: Vec<&str> = argv.iter().take(2).map(|a| base(a)).collect();
    let has = |w: &str| argv.iter().any(|a| a == w);
    if head.contains(&"mpt") && has("edge") {
        return Some(Role::Edge);
    }
    let module_server = argv
        .windows(2)
        .any(|w| w[0] == "-m" && w[1] == "mempalace.mcp_server");
    if module_server {
        let http = argv
            .windows(2)
            .any(|w| w[0] == "--transport" && w[1] == "http");
        return Some(if http { Role::Hub } else { Role::Child });
    }
    if head.contains(&"mempalace-mcp") {
        let http = argv
            .windows(2)
            .any(|w| w[0] == "--transport" && w[1] == "http");
        return Some(if http { Role::Hub } else { Role::Child });
    }
    if head.contains(&"mempalace") && has("serve") {
        return Some(Role::Hub);
    }
    if head.contains(&"pi") || argv.iter().take(2).any(|a| a.contains("pi-coding-agent")) {
        return Some(Role::Pi);
    }
    if head.contains(&"opencode") {
        return Some(Role::Opencode);
    }
    if head.iter().any(|h| *h == "claude" || *h == "claude.exe") {
        return Some(Role::Claude);
    }
    if head.contains(&"codex") {
        return Some(Role::Codex);
    }
    None
}

/// The bearer token of a running `mempalace serve` of `palace`, from its own environment
/// (`MEMPALACE_MCP_HTTP_TOKEN`, how the quick start and compose hand it over; readable for a
/// process of this user only): a local child of that palace forwards its calls to that serve (its
/// hub) and needs it, which MemPalace finds only when serve wrote its token file itself.
pub fn hub_token(palace: &Path) -> Option<String> {
    let all = list();
    serving(&all, palace)
        .into_iter()
        .filter(|p| p.role == Some(Role::Hub))
        .find_map(|p| {
            let t = p.environ()?.remove("MEMPALACE_MCP_HTTP_TOKEN")?;
            let t = t.trim().to_string();
            (!t.is_empty()).then_some(t)
        })
}

/// Every readable process with its role.
pub fn list() -> Vec<Proc> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(read)
        .collect()
}

fn read(pid: u32) -> Option<Proc> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let argv: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u32>().ok())
    };
    let role = role_of(&argv);
    Some(Proc {
        pid,
        ppid: field("PPid:")?,
        uid: field("Uid:")?,
        argv,
        role,
    })
}

/// This user's processes: same uid and, when readable, the same HOME (containers run all as root).
pub fn mine(all: &[Proc], home: &Path) -> Vec<Proc> {
    let uid = mpt_base::sys::uid();
    all.iter()
        .filter(|p| p.uid == uid && p.pid != std::process::id())
        .filter(|p| {
            p.environ()
                .and_then(|e| e.get("HOME").cloned())
                .is_some_and(|h| Path::new(&h) == home)
        })
        .cloned()
        .collect()
}

/// The ancestors of `pid` (parent first) found in `all`.
pub fn ancestors(all: &[Proc], pid: u32) -> Vec<&Proc> {
    let by_pid: BTreeMap<u32, &Proc> = all.iter().map(|p| (p.pid, p)).collect();
    let mut out = Vec::new();
    let mut cur = by_pid.get(&pid).map(|p| p.ppid);
    while let Some(pp) = cur {
        match by_pid.get(&pp) {
            Some(p) if out.len() < 64 => {
                out.push(*p);
                cur = Some(p.ppid);
            }
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn roles_from_command_lines() {
        assert_eq!(
            role_of(&v("/venv/bin/python /venv/bin/mempalace-mcp --palace /p")),
            Some(Role::Child)
        );
        assert_eq!(
            role_of(&v(
                "python3 -m mempalace.mcp_server --transport http --host 127.0.0.1"
            )),
            Some(Role::Hub)
        );
        assert_eq!(
            role_of(&v("/venv/bin/python /venv/bin/mempalace serve --palace /p")),
            Some(Role::Hub)
        );
        assert_eq!(role_of(&v("node /usr/local/bin/pi")), Some(Role::Pi));
        assert_eq!(role_of(&v("/usr/bin/opencode")), Some(Role::Opencode));
        assert_eq!(
            role_of(&v("/n/.bin/claude -p hi")),
            Some(Role::Claude),
            "as the npm package's native binary shows in /proc"
        );
        assert_eq!(
            role_of(&v("/usr/local/bin/mpt edge --harness claude")),
            Some(Role::Edge)
        );
        assert_eq!(role_of(&v("node /n/.bin/codex exec hi")), Some(Role::Codex));
        assert_eq!(
            role_of(&v("/n/vendor/x86_64-unknown-linux-musl/bin/codex exec hi")),
            Some(Role::Codex)
        );
        assert_eq!(role_of(&v("/usr/local/bin/mpt edge")), Some(Role::Edge));
        assert_eq!(role_of(&v("/bin/bash -c pip")), None);
    }
}
