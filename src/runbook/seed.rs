//! Phase 2 step `seed-primary`: this device's existing memory is on the primary, done when a
//! backfill dry run finds nothing left to send and no backfill op is open (`mpt outbox backfill`).

use super::{Inputs, State, Step, cannot_run};
use mpt_outbox::backfill::{self, Options};
use mpt_outbox::{OpenOptions, Outbox};

const ID: &str = "seed-primary";

pub fn check(inputs: &Inputs) -> Step {
    let config = match &inputs.config {
        Ok(c) => c,
        Err(e) => return cannot_run(ID, e),
    };
    if config.remote.is_none() {
        return Step::new(
            ID,
            State::NotApplicable,
            "no primary is configured (MEMPALACE_REMOTE_URL)",
        );
    }
    let palace = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return cannot_run(ID, &e),
    };
    if !palace.palace.exists() {
        return Step::new(
            ID,
            State::Done,
            "no local palace: nothing to seed the primary with",
        )
        .evidence(format!("palace {} does not exist", palace.palace.display()));
    }
    let outbox =
        match mpt_palace::edge_outbox(&inputs.env, config, Some(&palace.palace)).and_then(|p| {
            if p.exists() {
                Outbox::open_read_only(&p, OpenOptions::default())
            } else {
                Ok(None)
            }
        }) {
            Ok(o) => o,
            Err(e) => return cannot_run(ID, &e),
        };
    let read = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| mpt_base::error::MptError::io("starting the async runtime", &e))
        .and_then(|rt| {
            rt.block_on(backfill::read_and_plan(
                &inputs.env,
                config,
                &palace,
                outbox.as_ref(),
                &Options::for_config(config),
                false,
                &mut |_| {},
            ))
        });
    let read = match read {
        Ok(r) => r,
        Err(e) => return cannot_run(ID, &e),
    };
    let open = match outbox.as_ref().map(Outbox::backfill_open).transpose() {
        Ok(n) => n.unwrap_or(0),
        Err(e) => return cannot_run(ID, &e),
    };
    let left = read.plan.left();
    let dropped = read
        .plan
        .by_reason()
        .get(&backfill::Reason::Dropped)
        .copied()
        .unwrap_or(0);
    let mut step = if left == 0 && open == 0 {
        Step::new(ID, State::Done, "nothing left to send; no backfill op open")
    } else {
        Step::new(
            ID,
            State::ToDo,
            format!(
                "{left} record(s) of this device not on the primary yet, {open} backfill op(s) open"
            ),
        )
        .manual(
            "`mpt outbox backfill` shows them, `--yes` queues them, `mpt outbox flush` sends them",
        )
    };
    step = step.evidence(format!(
        "palace {} read through its {}",
        palace.palace.display(),
        read.through
    ));
    if dropped > 0 {
        step = step.evidence(format!(
            "{dropped} of them dropped by an operator (`mpt outbox drop`): `mpt outbox backfill --include-dropped --yes` queues them again"
        ));
    }
    if let Some(e) = &read.plan.primary_error {
        step = step.evidence(format!("the primary was not asked what it holds: {e}"));
    }
    step
}
