//! The bench's drawers: `n` distinct hand-authored notes of a few hundred characters over four
//! wings, generated deterministically, so the palace cached for a given `n` stays valid.

use serde_json::{Value, json};

/// Bump when the drawers change: the cached palace is keyed by it and N.
pub const RECIPE: &str = "v1";

/// One hand-authored drawer, as `add_drawer` takes it.
pub struct Drawer {
    wing: &'static str,
    room: &'static str,
    content: String,
    added_by: &'static str,
}

impl Drawer {
    pub fn args(&self) -> Value {
        json!({"wing": self.wing, "room": self.room, "content": self.content, "added_by": self.added_by})
    }
}

const WINGS: [(&str, [&str; 3]); 4] = [
    ("mpt", ["decisions", "bugs", "reviews"]),
    ("infra", ["incidents", "runbooks", "hosts"]),
    ("research", ["papers", "experiments", "ideas"]),
    ("notes", ["meetings", "todo", "people"]),
];
const WRITERS: [&str; 4] = [
    "pi@laptop",
    "opencode@devbox",
    "pi@pi-devbox",
    "opencode@laptop",
];
const SUBJECTS: [&str; 10] = [
    "the outbox flusher",
    "the edge owner",
    "the nightly mine",
    "the primary's WAL",
    "the rsync transfer",
    "the KG importer",
    "search merging",
    "the token rotation",
    "the sshd on the palace host",
    "the opencode wiring",
];
const OBSERVED: [&str; 8] = [
    "stalled for about {x} seconds after the laptop resumed from sleep",
    "reported {x} ops left after a clean drain, which turned out to be leased by a dead pid",
    "took {x} ms per call once the palace passed ten thousand drawers",
    "retried {x} times against a primary that answered 502 behind the proxy",
    "wrote {x} duplicate diary entries when two sessions raced on one palace",
    "needed {x} MB of memory while the embedder warmed up",
    "dropped the session id after {x} minutes idle and re-initialised cleanly",
    "kept {x} closed facts that the primary still held open",
];
const DECIDED: [&str; 8] = [
    "We keep one writer per palace and route every local caller through it.",
    "Decision: batch enqueues in transactions of two hundred so a kill loses at most one batch.",
    "Agreed to leave mined drawers local; each device mines its own transcripts.",
    "The fix is to check the primary before resending anything an earlier send may have applied.",
    "Next step: add a doctor check so the silent failure shows up on a new machine.",
    "We pinned MemPalace 3.11 in the testbed and read its source rather than guess.",
    "Rolled back the config change; the old path stays until every device is upgraded.",
    "Wrote a runbook entry and linked it from the incident channel.",
];
const DETAILS: [&str; 8] = [
    "Seen on host {h} with load average {l}.",
    "The log line was `flush: {x} settled, 0 failed` on {h}.",
    "Measured again on {h}: the second run was within {l} percent of the first.",
    "Owner: {w}. Follow-up in the {r} room next week.",
    "Reproduced with a fresh HOME on {h}; the palace held {x} drawers at the time.",
    "The primary at {h} was on the same version; the embedder identity matched.",
    "Nothing else changed on {h} that day, per the deploy log.",
    "Ticket raised by {w}; {x} related notes already in the palace.",
];
const HOSTS: [&str; 6] = [
    "laptop",
    "pi-devbox",
    "palace-host",
    "ci-runner",
    "nas",
    "devbox",
];

/// `n` distinct drawers of a few hundred characters over four wings, the same for a given `n`.
pub fn drawers(n: usize) -> Vec<Drawer> {
    let mut rng = SplitMix(0x6261_636b_6669_6c6c);
    (0..n)
        .map(|i| {
            let (wing, rooms) = WINGS[i % WINGS.len()];
            let room = rooms[rng.below(rooms.len())];
            let writer = WRITERS[rng.below(WRITERS.len())];
            let fill = |s: &str, rng: &mut SplitMix| {
                s.replace("{x}", &(2 + rng.below(400)).to_string())
                    .replace("{l}", &format!("{}.{}", rng.below(8), rng.below(10)))
                    .replace("{h}", HOSTS[rng.below(HOSTS.len())])
                    .replace("{w}", writer)
                    .replace("{r}", room)
            };
            let mut content = format!(
                "{} {}. ",
                capitalise(SUBJECTS[rng.below(SUBJECTS.len())]),
                fill(OBSERVED[rng.below(OBSERVED.len())], &mut rng)
            );
            content.push_str(DECIDED[rng.below(DECIDED.len())]);
            for _ in 0..1 + rng.below(3) {
                content.push(' ');
                content.push_str(&fill(DETAILS[rng.below(DETAILS.len())], &mut rng));
            }
            content.push_str(&format!(" (note {i} of the {wing} log)"));
            assert!(content.len() < 800, "one chunk: {content}");
            Drawer {
                wing,
                room,
                content,
                added_by: writer,
            }
        })
        .collect()
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A small deterministic generator (SplitMix64): the drawers, and so the cache, are stable.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}
