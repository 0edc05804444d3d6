//! docs/reference.md's "Where mpt keeps its files" against the resolvers: every file a resolver
//! names is in the table.

use std::path::Path;

use super::root;

/// The "Where mpt keeps its files" section of docs/reference.md names every file mpt writes, as
/// the resolvers name them: a new file, or a renamed one, must be written down there.
#[test]
fn every_file_mpt_writes_is_in_the_files_table() {
    let text = std::fs::read_to_string(root().join("docs/reference.md")).unwrap();
    let start = text
        .find("## Where mpt keeps its files")
        .expect("docs/reference.md has the files section");
    let section = &text[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let dir = Path::new("/state");
    let palace = Path::new("/palace");
    let key = mpt_base::paths::edge::palace_key(palace);
    let env = mpt_base::config::Env::from_pairs([("HOME", "/h")]);
    let owner = mpt_mcp::owner_socket::OwnerPaths::in_dir(&env, dir, palace);
    let pull = mpt_coord::puller::PullPaths::in_dir(dir, palace);
    let gateway = mpt_gateway::state::StateDir {
        root: dir.to_path_buf(),
    };
    let feed = mpt_feed::state::feed_home(&env).unwrap();
    let (state, lock) = mpt_feed::state::state_and_lock(&feed, &feed.join("staged"), true);
    let (other_state, other_lock) =
        mpt_feed::state::state_and_lock(&feed, Path::new("/elsewhere"), false);
    let mut files: Vec<String> = [
        &owner.socket,
        &owner.lock,
        &owner.log,
        &owner.linger,
        &pull.record,
        &pull.lock,
        &gateway.policy(),
        &gateway.tokens(),
        &gateway.tokens_lock(),
        &gateway.invites(),
        &gateway.invites_lock(),
        &gateway.serve_record(),
        &gateway.last_used(),
        &gateway.audit(),
        &gateway.audit_head(),
        &gateway.serve_lock(),
        &state,
        &lock,
    ]
    .iter()
    .map(|p| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.replace(&key, "<key>")
    })
    .collect();
    // What `mpt join` keeps on a device, named as the table names them.
    for p in [
        mpt_base::paths::device::token_file(&env, "<device>").unwrap(),
        mpt_base::paths::device::pinned_ca(&env, "<host>").unwrap(),
        mpt_base::paths::device::join_record(&env).unwrap(),
    ] {
        let name = p.file_name().unwrap().to_string_lossy();
        files.push(
            name.replace("_device_", "<device>")
                .replace("_host_", "<host>"),
        );
    }
    for p in [other_state, other_lock] {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let (stem, ext) = name.split_once('-').unwrap();
        let ext = ext.split_once('.').unwrap().1;
        files.push(format!("{stem}-<hash>.{ext}"));
    }
    files.extend(
        [
            "outbox.sqlite3",
            mpt_base::config::FILE_NAME,
            "audit-<seq>.jsonl",
            mpt_base::paths::edge::IN_PALACE,
            mpt_feed::dropin::HELPER_NAME,
            "~/.mempalace/edge",
            "$XDG_RUNTIME_DIR/mpt",
            "$XDG_STATE_HOME/mpt/feed",
            "$XDG_STATE_HOME/mpt/gateway",
            "MPT_GATEWAY_DIR",
            "MPT_OUTBOX",
        ]
        .map(String::from),
    );
    let missing: Vec<_> = files.iter().filter(|f| !section.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "docs/reference.md \"Where mpt keeps its files\" does not name: {missing:?}"
    );
}
