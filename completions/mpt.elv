
use builtin;
use str;

set edit:completion:arg-completer[mpt] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'mpt'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'mpt'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand doctor 'Tell the truth about this machine: each silent failure, why it matters, and its fix'
            cand edge 'The local-first MCP proxy a harness runs instead of mempalace-mcp'
            cand runbook 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup'
            cand call 'Call one MemPalace tool through the transport the pi bridge would use'
            cand config 'Show the effective configuration and where each value came from (never a secret)'
            cand paths 'Where MemPalace keeps this palace''s files, and what they hold'
            cand mailbox 'What this device owes: asks addressed to it that no later terminal reply of its own answers'
            cand feed 'The harnesses'' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine'
            cand outbox 'The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops'
            cand gateway 'The primary host''s front door: one token per device, roles, rate limits, a hash-chained audit'
            cand join 'Join this device to the fleet with the code `mpt gateway invite` made on the primary host'
            cand token 'This device''s token for a harness that runs mpt to get it (`token header`)'
            cand completions 'Print a shell completion script'
            cand man 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;doctor'= {
            cand --check 'Run this check (repeat for several: `--check transport --check outbox`)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --offline 'Skip every network and child probe (files and processes only)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;edge'= {
            cand --child 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --harness 'The harness this edge serves, for provenance (`<harness>@<device>`; else the config''s, else mcp)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --standalone 'Serve in this process instead of through the palace''s shared owner'
            cand --owner 'Run as the palace''s owner process (started by `mpt edge` itself)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand status 'Whether the owner runs, and whether the primary is reachable'
            cand stop 'Stop this palace''s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it'
            cand wire 'Set a harness''s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;edge;status'= {
            cand --child 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;edge;stop'= {
            cand --child 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;edge;wire'= {
            cand --config 'The harness''s config file (opencode: else ~/.config/opencode/opencode.json[c]; claude: its state file, else $CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json; codex: else $CODEX_HOME/config.toml or ~/.codex/config.toml)'
            cand --scope 'claude: the scope written: user (~/.claude.json, every project) or project (./.mcp.json)'
            cand --child 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --dry-run 'Show what would change, change nothing'
            cand --all-scopes 'claude: also switch the local-scope entries (`claude mcp add`''s default) and this folder''s .mcp.json entry, which take precedence over the user one'
            cand --hooks 'claude: install the SessionEnd and PreCompact hooks that run `mpt feed mine --harness claude` (in its settings.json, beside your own)'
            cand --remove-hooks 'claude: remove mpt''s feeding hooks (yours stay; MemPalace''s it replaced come back)'
            cand --replace-mempalace-hooks 'claude: with --hooks, take out MemPalace''s own `mempalace hook` entries (a conversation fed by both is filed twice); --remove-hooks puts them back'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;edge;help'= {
            cand status 'Whether the owner runs, and whether the primary is reachable'
            cand stop 'Stop this palace''s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it'
            cand wire 'Set a harness''s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;edge;help;status'= {
        }
        &'mpt;edge;help;stop'= {
        }
        &'mpt;edge;help;wire'= {
        }
        &'mpt;edge;help;help'= {
        }
        &'mpt;runbook'= {
            cand --scan 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)'
            cand --serve-cmd 'The primary''s serve command line for Phase 1, judged instead of what is found'
            cand --device 'A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes'
            cand --bind-ok 'Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand apply 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;runbook;apply'= {
            cand --scan 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)'
            cand --serve-cmd 'The primary''s serve command line for Phase 1, judged instead of what is found'
            cand --device 'A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes'
            cand --bind-ok 'Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --yes 'Make the change (without it: the dry run, nothing changed)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;runbook;help'= {
            cand apply 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;runbook;help;apply'= {
        }
        &'mpt;runbook;help;help'= {
        }
        &'mpt;call'= {
            cand --timeout-ms 'Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --child 'The mempalace-mcp binary to start for a local palace'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --list 'List the server''s tools instead'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;config'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;paths'= {
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;mailbox'= {
            cand --as 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --count 'Print only the number of owed asks (for prompts and status bars)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand watch 'Announce only what became owed: woken by the primary''s live stream, else by polling'
            cand ack 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)'
            cand notify 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;mailbox;watch'= {
            cand --interval-ms 'Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)'
            cand --max-polls 'Stop after this many derivations (polls and stream wake-ups)'
            cand --as 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --poll 'Poll only: never subscribe to the live stream'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;mailbox;ack'= {
            cand --status 'The terminal status that closes it'
            cand --body 'A reply body'
            cand --as 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;mailbox;notify'= {
            cand --as 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --test 'Send a test notification on stderr now'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;mailbox;help'= {
            cand watch 'Announce only what became owed: woken by the primary''s live stream, else by polling'
            cand ack 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)'
            cand notify 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;mailbox;help;watch'= {
        }
        &'mpt;mailbox;help;ack'= {
        }
        &'mpt;mailbox;help;notify'= {
        }
        &'mpt;mailbox;help;help'= {
        }
        &'mpt;feed'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand prepare 'Stage pi''s (and opencode''s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace'
            cand mine 'Prepare, then mine MINE_SOURCE through the palace''s writer (for extensions that cannot feed)'
            cand install-helper 'Link `mempalace-pi-session` to mpt, so the pi bridge''s feeder runs `mpt feed prepare`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;feed;prepare'= {
            cand --reason 'The trigger, recorded: shutdown, settled, new, resume, fork, compact, reload, manual, ... (shutdown, new, resume and fork end the session being left, so they skip the quiet period)'
            cand --harness 'Whose conversations: pi, opencode, claude (repeatable; default: every harness found here, only pi with --sessions or --out)'
            cand --wing 'The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode; MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)'
            cand --sessions 'pi''s sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)'
            cand --out 'The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode .../feed/opencode/staged); mpt''s state and lock files are kept outside it'
            cand --min-user-turns 'Gate: the fewest real user turns a session needs'
            cand --min-chars 'Gate: the fewest characters of dialogue (user and assistant text) a session needs'
            cand --quiet-period-ms 'Gate: a session written to more recently than this is still live and waits, unless the trigger ends it'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --include-subagents 'Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;feed;mine'= {
            cand --reason 'The trigger, recorded (see `mpt feed prepare --help`)'
            cand --wait 'Wait up to SECS for a feed already running on these sessions instead of exit 6 at once (for a hook that fires while the last one still mines; the state has it file what changed)'
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --harness 'Whose conversations: pi, opencode, claude (repeatable; default: every harness found here, only pi with --sessions or --out)'
            cand --wing 'The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode; MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)'
            cand --sessions 'pi''s sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)'
            cand --out 'The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode .../feed/opencode/staged); mpt''s state and lock files are kept outside it'
            cand --min-user-turns 'Gate: the fewest real user turns a session needs'
            cand --min-chars 'Gate: the fewest characters of dialogue (user and assistant text) a session needs'
            cand --quiet-period-ms 'Gate: a session written to more recently than this is still live and waits, unless the trigger ends it'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --include-subagents 'Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;feed;install-helper'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --force 'Replace another `mempalace-pi-session` there: a file is kept as a numbered backup (`.mpt-backup-<time>`, never over another), a link replaced; a directory is never moved'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;feed;help'= {
            cand prepare 'Stage pi''s (and opencode''s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace'
            cand mine 'Prepare, then mine MINE_SOURCE through the palace''s writer (for extensions that cannot feed)'
            cand install-helper 'Link `mempalace-pi-session` to mpt, so the pi bridge''s feeder runs `mpt feed prepare`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;feed;help;prepare'= {
        }
        &'mpt;feed;help;mine'= {
        }
        &'mpt;feed;help;install-helper'= {
        }
        &'mpt;feed;help;help'= {
        }
        &'mpt;outbox'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List ops in queue order (default: the open ones, head first)'
            cand show 'Show one op: payload, attempts, last error, what operators did to it'
            cand enqueue 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
            cand flush 'Send the queued ops to the primary, in order, each effect exactly once'
            cand retry 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
            cand drop 'Give up on one op; it is recorded, never silent'
            cand purge 'Delete done and dropped ops older than the retention (open ops are never touched)'
            cand backfill 'Queue this device''s existing memory for the primary, once (a dry run without --yes)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;outbox;list'= {
            cand --state 'Which ops'
            cand --limit 'At most this many (done, dropped and all: the most recent)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;show'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;enqueue'= {
            cand --dedupe-key 'At most one open op per key: a second enqueue with the same key returns the first'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;flush'= {
            cand --limit 'Settle at most N ops, then stop'
            cand --deadline 'Keep retrying an unreachable primary, with backoff, for this long (e.g. 90s, 5m); without it the flush stops at the first transient failure'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --wait 'Wait for another flusher to finish instead of exiting 6 at once'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;retry'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --failed 'Every failed op'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;drop'= {
            cand --reason 'Why, for the record'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --yes 'Confirm: the op will never reach the primary'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;purge'= {
            cand --older-than 'Settled longer ago than this (e.g. 7d, 12h, 0s)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;backfill'= {
            cand --palace 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)'
            cand --wing 'Only drawers and diary entries in wings matching this glob (repeatable); facts and coordination events have no wing and are left for a run without --wing'
            cand --since 'Only records filed on or after this date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SS)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --dry-run 'Print what would be queued, queue nothing (the default without --yes)'
            cand --yes 'Queue it'
            cand --include-dropped 'Also queue again the records whose backfill op an operator dropped (`mpt outbox drop`); without it they are listed as `dropped` and the backfill is not done'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox;help'= {
            cand list 'List ops in queue order (default: the open ones, head first)'
            cand show 'Show one op: payload, attempts, last error, what operators did to it'
            cand enqueue 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
            cand flush 'Send the queued ops to the primary, in order, each effect exactly once'
            cand retry 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
            cand drop 'Give up on one op; it is recorded, never silent'
            cand purge 'Delete done and dropped ops older than the retention (open ops are never touched)'
            cand backfill 'Queue this device''s existing memory for the primary, once (a dry run without --yes)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;outbox;help;list'= {
        }
        &'mpt;outbox;help;show'= {
        }
        &'mpt;outbox;help;enqueue'= {
        }
        &'mpt;outbox;help;flush'= {
        }
        &'mpt;outbox;help;retry'= {
        }
        &'mpt;outbox;help;drop'= {
        }
        &'mpt;outbox;help;purge'= {
        }
        &'mpt;outbox;help;backfill'= {
        }
        &'mpt;outbox;help;help'= {
        }
        &'mpt;gateway'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand serve 'Listen for devices and forward to mempalace serve what each device''s role allows'
            cand token 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)'
            cand invite 'Add a device to the policy and make its single-use join code, for `mpt join` on the device'
            cand audit 'Show the audit log (by device, denials, time); `verify` checks its hash chain'
            cand policy 'Check the policy file and its tests, or explain the rule that decides one call'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;serve'= {
            cand --listen 'Where devices connect: IP:PORT (port 0 picks a free one)'
            cand --upstream 'The mempalace serve in front of which it stands, e.g. http://127.0.0.1:8765'
            cand --tls-cert 'Serve TLS with this PEM certificate (chain)'
            cand --tls-key 'The certificate''s PEM private key'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --allow-insecure 'Allow a non-loopback listen without TLS, or a plain http:// upstream on another host (when a tunnel already encrypts the link)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;token'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand issue 'A new token for a device the policy names: shown once, alone on stdout or into --out'
            cand list 'Every token: id, device, state, created, last used, expiry (never a secret)'
            cand rotate 'A new token for a device; its old one keeps working for the overlap, then is expired'
            cand revoke 'Refuse a token (by id) or every token of a device, at once'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;token;issue'= {
            cand --expires 'Refused after this long (e.g. 90d); without it the token never expires (doctor warns)'
            cand --out 'Write the token alone into this new file (0600, its folders made 0700): what the device''s MPT_TOKEN_FILE points at'
            cand --env-file 'Set the MEMPALACE_REMOTE_TOKEN=<token> line in this env file (0600; its other lines kept)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --force 'With --out, replace a file that is already there'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;token;list'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;token;rotate'= {
            cand --overlap 'How long the old token keeps working'
            cand --expires 'The new token''s lifetime (else the old one''s, else none)'
            cand --out 'Write the token alone into this new file (0600, its folders made 0700): what the device''s MPT_TOKEN_FILE points at'
            cand --env-file 'Set the MEMPALACE_REMOTE_TOKEN=<token> line in this env file (0600; its other lines kept)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --force 'With --out, replace a file that is already there'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;token;revoke'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;token;help'= {
            cand issue 'A new token for a device the policy names: shown once, alone on stdout or into --out'
            cand list 'Every token: id, device, state, created, last used, expiry (never a secret)'
            cand rotate 'A new token for a device; its old one keeps working for the overlap, then is expired'
            cand revoke 'Refuse a token (by id) or every token of a device, at once'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;token;help;issue'= {
        }
        &'mpt;gateway;token;help;list'= {
        }
        &'mpt;gateway;token;help;rotate'= {
        }
        &'mpt;gateway;token;help;revoke'= {
        }
        &'mpt;gateway;token;help;help'= {
        }
        &'mpt;gateway;invite'= {
            cand --role 'Its role, when the policy does not name it yet'
            cand --wings 'Narrow its wings, when the policy does not name it yet: a member''s or an admin''s writes, an observer''s reads (default: a member writes wing_<device>*, its agents'' diaries and the harnesses'' conversation wings, and reads every wing)'
            cand --expires 'The lifetime of the token the code is exchanged for ("never": none, doctor warns)'
            cand --valid 'How long the code can be used'
            cand --url 'The gateway as devices reach it (else the address the running gateway listens on)'
            cand --out 'Write the code alone into this new file (0600) instead of the terminal (needed with --json)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --force 'With --out, replace a file that is already there'
            cand --revoke 'Revoke the device''s pending code instead (its tokens are `mpt gateway token revoke`''s)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;audit'= {
            cand --device 'Only this device''s records'
            cand --since 'Only records since T: an RFC 3339 time or a duration back from now (e.g. 1h)'
            cand --limit 'At most the N most recent records'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --denied 'Only refusals'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand verify 'Recompute the hash chain and check its head: exit 3 naming the first record that fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;audit;verify'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;audit;help'= {
            cand verify 'Recompute the hash chain and check its head: exit 3 naming the first record that fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;audit;help;verify'= {
        }
        &'mpt;gateway;audit;help;help'= {
        }
        &'mpt;gateway;policy'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test'
            cand explain 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;policy;check'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;policy;explain'= {
            cand --current-wing 'The wing update_drawer''s drawer is in now (what the gateway would look up)'
            cand --policy 'The policy file (default: policy.json in the gateway''s state folder)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;gateway;policy;help'= {
            cand check 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test'
            cand explain 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;policy;help;check'= {
        }
        &'mpt;gateway;policy;help;explain'= {
        }
        &'mpt;gateway;policy;help;help'= {
        }
        &'mpt;gateway;help'= {
            cand serve 'Listen for devices and forward to mempalace serve what each device''s role allows'
            cand token 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)'
            cand invite 'Add a device to the policy and make its single-use join code, for `mpt join` on the device'
            cand audit 'Show the audit log (by device, denials, time); `verify` checks its hash chain'
            cand policy 'Check the policy file and its tests, or explain the rule that decides one call'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;gateway;help;serve'= {
        }
        &'mpt;gateway;help;token'= {
            cand issue 'A new token for a device the policy names: shown once, alone on stdout or into --out'
            cand list 'Every token: id, device, state, created, last used, expiry (never a secret)'
            cand rotate 'A new token for a device; its old one keeps working for the overlap, then is expired'
            cand revoke 'Refuse a token (by id) or every token of a device, at once'
        }
        &'mpt;gateway;help;token;issue'= {
        }
        &'mpt;gateway;help;token;list'= {
        }
        &'mpt;gateway;help;token;rotate'= {
        }
        &'mpt;gateway;help;token;revoke'= {
        }
        &'mpt;gateway;help;invite'= {
        }
        &'mpt;gateway;help;audit'= {
            cand verify 'Recompute the hash chain and check its head: exit 3 naming the first record that fails'
        }
        &'mpt;gateway;help;audit;verify'= {
        }
        &'mpt;gateway;help;policy'= {
            cand check 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test'
            cand explain 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites'
        }
        &'mpt;gateway;help;policy;check'= {
        }
        &'mpt;gateway;help;policy;explain'= {
        }
        &'mpt;gateway;help;help'= {
        }
        &'mpt;join'= {
            cand --code-file 'Read the code from this file (mode 0600), e.g. the one `mpt gateway invite --out` wrote'
            cand --ca-sha256 'The SHA-256 of a certificate the gateway presents (the invite prints it): checked before anything is sent, then kept as the device''s CA for the gateway (`ca_file`)'
            cand --ca-file 'Trust this CA (PEM) for the gateway''s certificate, as the device''s `ca_file` from now on'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --yes 'Change settings the config file already holds with other values'
            cand --allow-insecure 'Allow plain http:// to a host that is not this one (a tunnel already encrypts the link)'
            cand --no-wire 'Leave the harnesses'' configs as they are'
            cand --no-timer 'Install no flush timer (a systemd user timer, else the cron line is printed)'
            cand --leave 'Undo a join: the harnesses unwired, the settings as they were, the timer, token and pinned certificate removed; then revoke the device''s token on the primary host'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;token'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand header 'Print {"Authorization": "Bearer <token>"} for a harness''s header helper (never to a terminal, never with --json)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;token;header'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;token;help'= {
            cand header 'Print {"Authorization": "Bearer <token>"} for a harness''s header helper (never to a terminal, never with --json)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;token;help;header'= {
        }
        &'mpt;token;help;help'= {
        }
        &'mpt;completions'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;man'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --mpt-config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;help'= {
            cand doctor 'Tell the truth about this machine: each silent failure, why it matters, and its fix'
            cand edge 'The local-first MCP proxy a harness runs instead of mempalace-mcp'
            cand runbook 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup'
            cand call 'Call one MemPalace tool through the transport the pi bridge would use'
            cand config 'Show the effective configuration and where each value came from (never a secret)'
            cand paths 'Where MemPalace keeps this palace''s files, and what they hold'
            cand mailbox 'What this device owes: asks addressed to it that no later terminal reply of its own answers'
            cand feed 'The harnesses'' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine'
            cand outbox 'The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops'
            cand gateway 'The primary host''s front door: one token per device, roles, rate limits, a hash-chained audit'
            cand join 'Join this device to the fleet with the code `mpt gateway invite` made on the primary host'
            cand token 'This device''s token for a harness that runs mpt to get it (`token header`)'
            cand completions 'Print a shell completion script'
            cand man 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;help;doctor'= {
        }
        &'mpt;help;edge'= {
            cand status 'Whether the owner runs, and whether the primary is reachable'
            cand stop 'Stop this palace''s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it'
            cand wire 'Set a harness''s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)'
        }
        &'mpt;help;edge;status'= {
        }
        &'mpt;help;edge;stop'= {
        }
        &'mpt;help;edge;wire'= {
        }
        &'mpt;help;runbook'= {
            cand apply 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
        }
        &'mpt;help;runbook;apply'= {
        }
        &'mpt;help;call'= {
        }
        &'mpt;help;config'= {
        }
        &'mpt;help;paths'= {
        }
        &'mpt;help;mailbox'= {
            cand watch 'Announce only what became owed: woken by the primary''s live stream, else by polling'
            cand ack 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)'
            cand notify 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere'
        }
        &'mpt;help;mailbox;watch'= {
        }
        &'mpt;help;mailbox;ack'= {
        }
        &'mpt;help;mailbox;notify'= {
        }
        &'mpt;help;feed'= {
            cand prepare 'Stage pi''s (and opencode''s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace'
            cand mine 'Prepare, then mine MINE_SOURCE through the palace''s writer (for extensions that cannot feed)'
            cand install-helper 'Link `mempalace-pi-session` to mpt, so the pi bridge''s feeder runs `mpt feed prepare`'
        }
        &'mpt;help;feed;prepare'= {
        }
        &'mpt;help;feed;mine'= {
        }
        &'mpt;help;feed;install-helper'= {
        }
        &'mpt;help;outbox'= {
            cand list 'List ops in queue order (default: the open ones, head first)'
            cand show 'Show one op: payload, attempts, last error, what operators did to it'
            cand enqueue 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
            cand flush 'Send the queued ops to the primary, in order, each effect exactly once'
            cand retry 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
            cand drop 'Give up on one op; it is recorded, never silent'
            cand purge 'Delete done and dropped ops older than the retention (open ops are never touched)'
            cand backfill 'Queue this device''s existing memory for the primary, once (a dry run without --yes)'
        }
        &'mpt;help;outbox;list'= {
        }
        &'mpt;help;outbox;show'= {
        }
        &'mpt;help;outbox;enqueue'= {
        }
        &'mpt;help;outbox;flush'= {
        }
        &'mpt;help;outbox;retry'= {
        }
        &'mpt;help;outbox;drop'= {
        }
        &'mpt;help;outbox;purge'= {
        }
        &'mpt;help;outbox;backfill'= {
        }
        &'mpt;help;gateway'= {
            cand serve 'Listen for devices and forward to mempalace serve what each device''s role allows'
            cand token 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)'
            cand invite 'Add a device to the policy and make its single-use join code, for `mpt join` on the device'
            cand audit 'Show the audit log (by device, denials, time); `verify` checks its hash chain'
            cand policy 'Check the policy file and its tests, or explain the rule that decides one call'
        }
        &'mpt;help;gateway;serve'= {
        }
        &'mpt;help;gateway;token'= {
            cand issue 'A new token for a device the policy names: shown once, alone on stdout or into --out'
            cand list 'Every token: id, device, state, created, last used, expiry (never a secret)'
            cand rotate 'A new token for a device; its old one keeps working for the overlap, then is expired'
            cand revoke 'Refuse a token (by id) or every token of a device, at once'
        }
        &'mpt;help;gateway;token;issue'= {
        }
        &'mpt;help;gateway;token;list'= {
        }
        &'mpt;help;gateway;token;rotate'= {
        }
        &'mpt;help;gateway;token;revoke'= {
        }
        &'mpt;help;gateway;invite'= {
        }
        &'mpt;help;gateway;audit'= {
            cand verify 'Recompute the hash chain and check its head: exit 3 naming the first record that fails'
        }
        &'mpt;help;gateway;audit;verify'= {
        }
        &'mpt;help;gateway;policy'= {
            cand check 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test'
            cand explain 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites'
        }
        &'mpt;help;gateway;policy;check'= {
        }
        &'mpt;help;gateway;policy;explain'= {
        }
        &'mpt;help;join'= {
        }
        &'mpt;help;token'= {
            cand header 'Print {"Authorization": "Bearer <token>"} for a harness''s header helper (never to a terminal, never with --json)'
        }
        &'mpt;help;token;header'= {
        }
        &'mpt;help;completions'= {
        }
        &'mpt;help;man'= {
        }
        &'mpt;help;help'= {
        }
    ]
    $completions[$command]
}
