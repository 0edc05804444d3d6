//! A real `mpt gateway serve` on loopback in front of a real primary: its state folder, its
//! policy, device tokens issued by the real `mpt gateway token`, and raw HTTP through hyper.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::{Primary, TestEnv, stderr, stdout, wait_for};

/// The upstream bearer the gateway tests give their primary.
pub const UPSTREAM_TOKEN: &str = "upstream-tok-7d2c-never-a-device-token";

/// A primary with [`UPSTREAM_TOKEN`], and the gateway's state folder holding `policy`.
pub fn primary_and_dir(env: &TestEnv, policy: &Value) -> (Primary, PathBuf) {
    let p = Primary::start(
        env,
        &env.palace("primary"),
        super::primary::PrimaryOpts {
            token: Some(UPSTREAM_TOKEN),
            ..Default::default()
        },
    );
    let dir = env.path("gateway");
    write_policy(&dir, policy);
    (p, dir)
}

/// `{"schema": …, "devices": devices}` plus `extra` top-level fields.
pub fn policy(devices: Value) -> Value {
    json!({"schema": mpt_base::schema::GATEWAY_POLICY, "devices": devices})
}

/// Writes `policy.json` whole (an atomic rename: a running gateway never reads half of it).
pub fn write_policy(dir: &Path, policy: &Value) {
    write_text(
        &dir.join("policy.json"),
        &serde_json::to_string_pretty(policy).unwrap(),
    );
}

pub fn write_text(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp-test");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// `mpt [args]` with the gateway's state folder.
pub fn mpt(env: &TestEnv, dir: &Path, args: &[&str]) -> std::process::Output {
    env.mpt(args, &[("MPT_GATEWAY_DIR", dir.to_str().unwrap())])
}

/// A token for `device` from `mpt gateway token issue` (stdout: the token alone).
pub fn issue(env: &TestEnv, dir: &Path, device: &str, extra: &[&str]) -> String {
    let mut args = vec!["gateway", "token", "issue", device];
    args.extend_from_slice(extra);
    let o = mpt(env, dir, &args);
    assert!(o.status.success(), "issue {device}: {}", stderr(&o));
    let token = stdout(&o).trim().to_string();
    assert!(token.starts_with("mptg_"), "{token}");
    token
}

/// A primary, a policy naming `devices`, a token for each, and a gateway in front of the primary
/// (fields drop in order: the gateway, the primary, then the folder).
pub struct Setup {
    pub gw: Gateway,
    pub p: Primary,
    pub dir: PathBuf,
    tokens: Vec<(String, String)>,
    pub env: TestEnv,
}

impl Setup {
    pub fn new(devices: Value) -> Setup {
        Setup::with_policy(policy(devices))
    }

    /// [`Setup::new`] with a whole policy (top-level fields besides `devices`).
    pub fn with_policy(policy: Value) -> Setup {
        Setup::build(policy, false)
    }

    /// [`Setup::new`] with the gateway on TLS (a throwaway CA's leaf for 127.0.0.1): the CA's
    /// PEM is `certs/ca.pem` under the test's folder ([`Setup::ca`]).
    pub fn tls(devices: Value) -> Setup {
        Setup::build(policy(devices), true)
    }

    /// The CA a TLS setup's gateway certificate is signed by.
    pub fn ca(&self) -> PathBuf {
        self.env.path("certs").join("ca.pem")
    }

    fn build(policy: Value, tls: bool) -> Setup {
        let env = TestEnv::new();
        let names: Vec<String> = policy["devices"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let (p, dir) = primary_and_dir(&env, &policy);
        let tokens = names
            .into_iter()
            .map(|d| {
                let t = issue(&env, &dir, &d, &[]);
                (d, t)
            })
            .collect();
        let certs = env.path("certs");
        let args: Vec<String> = if tls {
            std::fs::create_dir_all(&certs).unwrap();
            super::certs::make_certs(&certs);
            // The chain a server sends: its leaf, then the CA that signed it.
            let chain = [
                std::fs::read_to_string(certs.join("leaf.pem")).unwrap(),
                std::fs::read_to_string(certs.join("ca.pem")).unwrap(),
            ]
            .concat();
            std::fs::write(certs.join("chain.pem"), chain).unwrap();
            let path = |f: &str| certs.join(f).to_str().unwrap().to_string();
            vec![
                "--tls-cert".into(),
                path("chain.pem"),
                "--tls-key".into(),
                path("leaf.key"),
            ]
        } else {
            Vec::new()
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let gw = Gateway::start(&env, &dir, &p.base_url(), &args, &[]);
        Setup {
            gw,
            p,
            dir,
            tokens,
            env,
        }
    }

    /// A device named `device` of this policy: its own HOME and palace, its own token, reaching
    /// the gateway (not the primary) through a switchable link.
    pub fn device(&self, device: &str) -> super::fleet::Device {
        let link = super::link::Link::bind();
        link.set_upstream(self.gw.port);
        let env = TestEnv::new();
        let palace = env.palace("local");
        super::fleet::Device {
            name: device.to_string(),
            env,
            link,
            palace,
            token: self.token(device),
        }
    }

    /// `mpt [args]` on the primary host (the gateway's state folder).
    pub fn host_mpt(&self, args: &[&str]) -> std::process::Output {
        mpt(&self.env, &self.dir, args)
    }

    /// The token issued to `device`.
    pub fn token(&self, device: &str) -> String {
        self.tokens
            .iter()
            .find(|(d, _)| d == device)
            .unwrap()
            .1
            .clone()
    }
}

pub struct Gateway {
    child: Child,
    pub port: u16,
    pub url: String,
    pub log: PathBuf,
    /// The line it printed when it listened (`mpt.gateway.serve/v1`).
    pub started: Value,
}

impl Gateway {
    /// `mpt -v --json gateway serve --listen 127.0.0.1:0 --upstream <primary>` plus `args`, with
    /// the primary's token in its environment; ready once it printed where it listens.
    pub fn start(
        env: &TestEnv,
        dir: &Path,
        upstream: &str,
        args: &[&str],
        extra_env: &[(&str, &str)],
    ) -> Gateway {
        Gateway::start_limited(env, dir, upstream, args, extra_env, None)
    }

    /// [`Gateway::start`] with every file it writes limited to `fsize` bytes (RLIMIT_FSIZE, as
    /// `full_disk.rs` does): past it a write fails as on a full disk.
    pub fn start_limited(
        env: &TestEnv,
        dir: &Path,
        upstream: &str,
        args: &[&str],
        extra_env: &[(&str, &str)],
        fsize: Option<u64>,
    ) -> Gateway {
        let log = env.path(&format!("gateway-{}.log", rand_suffix()));
        let mut cmd = env.mpt_command(&[
            "-v",
            "--json",
            "gateway",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            upstream,
        ]);
        cmd.args(args)
            .env("MPT_GATEWAY_DIR", dir)
            .env("MEMPALACE_MCP_HTTP_TOKEN", UPSTREAM_TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()));
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        if let Some(limit) = fsize {
            use std::os::unix::process::CommandExt;
            unsafe {
                cmd.pre_exec(move || {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let lim = libc::rlimit {
                        rlim_cur: limit,
                        rlim_max: libc::RLIM_INFINITY,
                    };
                    if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        let out = child.stdout.take().unwrap();
        let _ = std::io::BufReader::new(out).read_line(&mut line);
        let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("the gateway did not start: {line:?}\n{}", read_log()));
        assert_eq!(v["schema"], mpt_base::schema::GATEWAY_SERVE);
        let url = v["listening"].as_str().unwrap().to_string();
        let port = url.rsplit(':').next().unwrap().parse().unwrap();
        Gateway {
            child,
            port,
            url,
            log,
            started: v,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn mcp(&self) -> String {
        format!("{}/mcp", self.url)
    }

    /// What it wrote on stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, waited for (it writes its last-used times on the way out).
    pub fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        if !wait_for(10.0, || self.child.try_wait().ok().flatten().is_some()) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop();
    }
}

fn rand_suffix() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// One HTTP/1.1 exchange with exactly these headers (none added but Content-Length for a body):
/// duplicated and non-ASCII values go out as given.
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{} is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A connection of its own to `port` (hyper's client, nothing added to what a test sends).
pub async fn connect(port: u16) -> hyper::client::conn::http1::SendRequest<Full<Bytes>> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let (send, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    send
}

pub fn http(port: u16, method: &str, path: &str, headers: &[(&str, &[u8])], body: &[u8]) -> Reply {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut send = connect(port).await;
        let mut req = hyper::Request::new(Full::new(Bytes::copy_from_slice(body)));
        *req.method_mut() = method.parse().unwrap();
        *req.uri_mut() = path.parse().unwrap();
        for (k, v) in headers {
            req.headers_mut().append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_bytes(v).unwrap(),
            );
        }
        let resp = tokio::time::timeout(Duration::from_secs(120), send.send_request(req))
            .await
            .expect("an answer within two minutes")
            .expect("an HTTP answer, not a dropped connection");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        Reply {
            status,
            headers,
            body,
        }
    })
}

/// `POST /mcp` with a bearer and a raw body.
pub fn post(port: u16, token: &str, body: &str) -> Reply {
    let auth = format!("Bearer {token}");
    http(
        port,
        "POST",
        "/mcp",
        &[
            ("host", b"127.0.0.1"),
            ("authorization", auth.as_bytes()),
            ("content-type", b"application/json"),
        ],
        body.as_bytes(),
    )
}

/// A `tools/call` of `tool` with `args`, as the device `token`.
pub fn call(port: u16, token: &str, tool: &str, args: Value) -> Reply {
    post(
        port,
        token,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}).to_string(),
    )
}

/// The tool payload of a good reply (the last text block, parsed).
pub fn payload(r: &Reply) -> Value {
    let v = r.json();
    assert!(v.get("error").is_none(), "{v}");
    let text = v["result"]["content"].as_array().unwrap().last().unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    serde_json::from_str(&text).unwrap()
}

/// `GET path` as the device `token`.
pub fn get(port: u16, token: &str, path: &str) -> Reply {
    let auth = format!("Bearer {token}");
    http(
        port,
        "GET",
        path,
        &[("host", b"127.0.0.1"), ("authorization", auth.as_bytes())],
        b"",
    )
}
