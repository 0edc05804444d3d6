//! Remote feeding's other road: the staged folder uploaded file by file to the gateway's
//! `PUT /inbox/<harness>/<path>` with the device's own token, for a device with no ssh to the
//! primary host. An identical file is a no-op there, so a retried ship files nothing twice.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mpt_base::config::Secret;
use mpt_base::error::{ErrorKind, MptError};

/// The gateway a device reaches the primary through, and the harness whose folder it fills.
#[derive(Debug, Clone)]
pub struct GatewayInbox {
    /// The gateway's scheme, host and port.
    pub origin: reqwest::Url,
    pub token: Secret,
    pub ca_file: Option<PathBuf>,
    /// `pi`, `opencode`: the folder under the device's prefix.
    pub harness: String,
}

/// One file's bound when the run has no deadline.
const PER_FILE: Duration = Duration::from_secs(60);

/// A finished upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uploaded {
    /// The harness's folder on the primary host (what the scoped mine names).
    pub destination: String,
    pub files: usize,
    /// Files the gateway wrote (the rest were there already, identical).
    pub written: usize,
    pub elapsed: Duration,
}

/// What the gateway answers an upload.
#[derive(serde::Deserialize)]
struct Stored {
    path: PathBuf,
    written: bool,
}

/// The device's inbox through the gateway, when the primary is reached through one (its token is
/// a gateway's): the road a device that joined with `mpt join` takes when no ssh target is set.
pub fn gateway_road(config: &mpt_base::config::Config, harness: &str) -> Option<GatewayInbox> {
    let remote = config.remote.as_ref()?;
    let (token, _) = remote.token.as_ref()?;
    if !token
        .expose()
        .starts_with(mpt_base::secrets::GATEWAY_TOKEN_PREFIX)
    {
        return None;
    }
    let mut origin = reqwest::Url::parse(&remote.url).ok()?;
    origin.set_path("/");
    origin.set_query(None);
    Some(GatewayInbox {
        origin,
        token: token.clone(),
        ca_file: remote.ca_file.clone(),
        harness: harness.to_string(),
    })
}

impl GatewayInbox {
    pub fn describe(&self) -> String {
        format!("{}inbox/{}", self.origin, self.harness)
    }
}

/// Every staged file (dot files, the in-flight temps, left out), relative to `stage`.
fn staged(stage: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(rel) = dirs.pop() {
        for e in std::fs::read_dir(stage.join(&rel))? {
            let e = e?;
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let t = e.file_type()?;
            let path = rel.join(e.file_name());
            if t.is_dir() {
                dirs.push(path);
            } else if t.is_file() {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Uploads the staged folder before `deadline`; the first failure stops it (the next trigger
/// uploads again, and what arrived is a no-op then).
pub fn upload(
    stage: &Path,
    inbox: &GatewayInbox,
    deadline: Option<Instant>,
) -> Result<Uploaded, MptError> {
    let started = Instant::now();
    let files =
        staged(stage).map_err(|e| MptError::io(format!("reading {}", stage.display()), &e))?;
    // A thread of its own: this runs inside and outside a runtime alike.
    let work = || -> Result<Uploaded, MptError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| MptError::io("starting the async runtime", &e))?;
        rt.block_on(send_all(stage, &files, inbox, deadline, started))
    };
    std::thread::scope(|s| s.spawn(work).join())
        .unwrap_or_else(|_| Err(MptError::new(ErrorKind::Io, "the upload's thread failed")))
}

async fn send_all(
    stage: &Path,
    files: &[PathBuf],
    inbox: &GatewayInbox,
    deadline: Option<Instant>,
    started: Instant,
) -> Result<Uploaded, MptError> {
    let client = mpt_mcp::agent::builder(inbox.ca_file.as_deref())?
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| MptError::usage(format!("cannot set up the HTTP client: {e}")))?;
    let mut out = Uploaded {
        destination: String::new(),
        files: files.len(),
        written: 0,
        elapsed: Duration::ZERO,
    };
    for rel in files {
        let rel_text = format!("{}/{}", inbox.harness, rel.to_string_lossy());
        let url = inbox
            .origin
            .join(&format!("inbox/{rel_text}"))
            .map_err(|e| MptError::usage(format!("{rel_text}: {e}")))?;
        let body = std::fs::read(stage.join(rel))
            .map_err(|e| MptError::io(format!("reading {}", stage.join(rel).display()), &e))?;
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            return Err(MptError::new(
                ErrorKind::Unavailable,
                format!("the upload to {} ran out of time", inbox.describe()),
            ));
        }
        // Within the run's deadline; without one, a minute a file: a gateway that hangs never
        // holds the feed (the ship is pending, the next trigger sends it again).
        let req = client
            .put(url)
            .bearer_auth(inbox.token.expose())
            .body(body)
            .timeout(left.unwrap_or(PER_FILE));
        let resp = req.send().await.map_err(|e| {
            MptError::new(
                ErrorKind::Unavailable,
                format!(
                    "cannot upload to {}: {}",
                    inbox.describe(),
                    mpt_base::secrets::scrubbed(e.to_string())
                ),
            )
        })?;
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        if !status.is_success() {
            let why = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_string))
                .unwrap_or_else(|| format!("HTTP {status}"));
            let kind = match status.as_u16() {
                401 => ErrorKind::Auth,
                400 | 403 | 409 | 413 | 507 => ErrorKind::Refused,
                _ => ErrorKind::Unavailable,
            };
            return Err(MptError::new(
                kind,
                format!("the gateway refused the upload of {rel_text}: {why}"),
            ));
        }
        let stored: Stored = serde_json::from_str(&text).map_err(|_| {
            MptError::new(
                ErrorKind::Protocol,
                format!("{} answered an upload with no path", inbox.describe()),
            )
        })?;
        if out.destination.is_empty() {
            // The harness's folder on the primary host: the stored path less the file's own.
            let mut folder = stored.path.clone();
            for _ in rel.components() {
                folder.pop();
            }
            out.destination = folder.display().to_string();
        }
        out.written += usize::from(stored.written);
    }
    out.elapsed = started.elapsed();
    Ok(out)
}
