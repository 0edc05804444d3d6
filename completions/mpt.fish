# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_mpt_global_optspecs
    string join \n json q/quiet v/verbose color= mpt-config= h/help V/version
end

function __fish_mpt_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_mpt_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_mpt_using_subcommand
    set -l cmd (__fish_mpt_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c mpt -n "__fish_mpt_needs_command" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_needs_command" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_needs_command" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_needs_command" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_needs_command" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_needs_command" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "doctor" -d 'Tell the truth about this machine: each silent failure, why it matters, and its fix'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "edge" -d 'The local-first MCP proxy a harness runs instead of mempalace-mcp'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "runbook" -d 'RFC 001\'s phases as a checklist: where this machine stands, each safe step applied with a backup'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "call" -d 'Call one MemPalace tool through the transport the pi bridge would use'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "config" -d 'Show the effective configuration and where each value came from (never a secret)'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "paths" -d 'Where MemPalace keeps this palace\'s files, and what they hold'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "mailbox" -d 'What this device owes: asks addressed to it that no later terminal reply of its own answers'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "feed" -d 'The harnesses\' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "outbox" -d 'The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "gateway" -d 'The primary host\'s front door: one token per device, roles, rate limits, a hash-chained audit'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "join" -d 'Join this device to the fleet with the code `mpt gateway invite` made on the primary host'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "token" -d 'This device\'s token for a harness that runs mpt to get it (`token header`)'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "man" -d 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -l check -d 'Run this check (repeat for several: `--check transport --check outbox`)' -r -f -a "extension\t'pi\'s deployed MemPalace extension'
config\t'settings that silently disable a feature'
transport\t'the transport the bridge picks'
half-flip\t'running harnesses on this shell\'s transport'
false-positive\t'a frozen local archive on a remote machine'
kg-path\t'one knowledge graph where every writer finds it'
embedder\t'embedder identity, local and primary'
writers\t'one writer per palace'
outbox\t'writes that will not reach the primary'
pull\t'the pull of the primary\'s coordination log'
mailbox\t'asks pushed live or polled'
gateway\t'device tokens of this host\'s mpt gateway'"
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -l offline -d 'Skip every network and child probe (files and processes only)'
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l child -d 'The mempalace-mcp binary for the local child (else the config\'s `child`, else PATH)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l harness -d 'The harness this edge serves, for provenance (`<harness>@<device>`; else the config\'s, else mcp)' -r
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l standalone -d 'Serve in this process instead of through the palace\'s shared owner'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l owner -d 'Run as the palace\'s owner process (started by `mpt edge` itself)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -f -a "status" -d 'Whether the owner runs, and whether the primary is reachable'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -f -a "stop" -d 'Stop this palace\'s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -f -a "wire" -d 'Set a harness\'s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and not __fish_seen_subcommand_from status stop wire help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -l child -d 'The mempalace-mcp binary for the local child (else the config\'s `child`, else PATH)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -l child -d 'The mempalace-mcp binary for the local child (else the config\'s `child`, else PATH)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l config -d 'The harness\'s config file (opencode: else ~/.config/opencode/opencode.json[c]; claude: its state file, else $CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json; codex: else $CODEX_HOME/config.toml or ~/.codex/config.toml)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l scope -d 'claude: the scope written: user (~/.claude.json, every project) or project (./.mcp.json)' -r -f -a "user\t''
project\t''"
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l child -d 'The mempalace-mcp binary for the local child (else the config\'s `child`, else PATH)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l dry-run -d 'Show what would change, change nothing'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l all-scopes -d 'claude: also switch the local-scope entries (`claude mcp add`\'s default) and this folder\'s .mcp.json entry, which take precedence over the user one'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l hooks -d 'claude: install the SessionEnd and PreCompact hooks that run `mpt feed mine --harness claude` (in its settings.json, beside your own)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l remove-hooks -d 'claude: remove mpt\'s feeding hooks (yours stay; MemPalace\'s it replaced come back)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l replace-mempalace-hooks -d 'claude: with --hooks, take out MemPalace\'s own `mempalace hook` entries (a conversation fed by both is filed twice); --remove-hooks puts them back'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from wire" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from help" -f -a "status" -d 'Whether the owner runs, and whether the primary is reachable'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop this palace\'s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from help" -f -a "wire" -d 'Set a harness\'s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)'
complete -c mpt -n "__fish_mpt_using_subcommand edge; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l scan -d 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l serve-cmd -d 'The primary\'s serve command line for Phase 1, judged instead of what is found' -r
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l device -d 'A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes' -r
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l bind-ok -d 'Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)' -r -f -a "loopback\t'127.0.0.1 / ::1: other devices need `mpt gateway` or a tunnel in front'
lan\t'Every interface (0.0.0.0) or a LAN address: TLS and a token on it'"
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -a "apply" -d 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and not __fish_seen_subcommand_from apply help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l scan -d 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l serve-cmd -d 'The primary\'s serve command line for Phase 1, judged instead of what is found' -r
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l device -d 'A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes' -r
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l bind-ok -d 'Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)' -r -f -a "loopback\t'127.0.0.1 / ::1: other devices need `mpt gateway` or a tunnel in front'
lan\t'Every interface (0.0.0.0) or a LAN address: TLS and a token on it'"
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l yes -d 'Make the change (without it: the dry run, nothing changed)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
complete -c mpt -n "__fish_mpt_using_subcommand runbook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand call" -l timeout-ms -d 'Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)' -r
complete -c mpt -n "__fish_mpt_using_subcommand call" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand call" -l child -d 'The mempalace-mcp binary to start for a local palace' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand call" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand call" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand call" -l list -d 'List the server\'s tools instead'
complete -c mpt -n "__fish_mpt_using_subcommand call" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand config" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand config" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand config" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -l as -d 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -l count -d 'Print only the number of owed asks (for prompts and status bars)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -f -a "watch" -d 'Announce only what became owed: woken by the primary\'s live stream, else by polling'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -f -a "ack" -d 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -f -a "notify" -d 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and not __fish_seen_subcommand_from watch ack notify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l interval-ms -d 'Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l max-polls -d 'Stop after this many derivations (polls and stream wake-ups)' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l as -d 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l poll -d 'Poll only: never subscribe to the live stream'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from watch" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -l status -d 'The terminal status that closes it' -r -f -a "applied\t''
failed\t''
blocked\t''
superseded\t''"
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -l body -d 'A reply body' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -l as -d 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from ack" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -l as -d 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)' -r
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -l test -d 'Send a test notification on stderr now'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from notify" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from help" -f -a "watch" -d 'Announce only what became owed: woken by the primary\'s live stream, else by polling'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from help" -f -a "ack" -d 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from help" -f -a "notify" -d 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere'
complete -c mpt -n "__fish_mpt_using_subcommand mailbox; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -f -a "prepare" -d 'Stage pi\'s (and opencode\'s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -f -a "mine" -d 'Prepare, then mine MINE_SOURCE through the palace\'s writer (for extensions that cannot feed)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -f -a "install-helper" -d 'Link `mempalace-pi-session` to mpt, so the pi bridge\'s feeder runs `mpt feed prepare`'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and not __fish_seen_subcommand_from prepare mine install-helper help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l reason -d 'The trigger, recorded: shutdown, settled, new, resume, fork, compact, reload, manual, ... (shutdown, new, resume and fork end the session being left, so they skip the quiet period)' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l harness -d 'Whose conversations: pi, opencode, claude (repeatable; default: every harness found here, only pi with --sessions or --out)' -r -f -a "pi\t'pi\'s session files (`~/.pi/agent/sessions/**/*.jsonl`)'
opencode\t'opencode\'s SQLite database (`~/.local/share/opencode/opencode.db`)'
claude\t'Claude Code\'s session transcripts (`~/.claude/projects/<slug>/<id>.jsonl`)'
codex\t'Codex\'s session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)'"
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l wing -d 'The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode; MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l sessions -d 'pi\'s sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l out -d 'The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode .../feed/opencode/staged); mpt\'s state and lock files are kept outside it' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l min-user-turns -d 'Gate: the fewest real user turns a session needs' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l min-chars -d 'Gate: the fewest characters of dialogue (user and assistant text) a session needs' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l quiet-period-ms -d 'Gate: a session written to more recently than this is still live and waits, unless the trigger ends it' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l include-subagents -d 'Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from prepare" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l reason -d 'The trigger, recorded (see `mpt feed prepare --help`)' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l wait -d 'Wait up to SECS for a feed already running on these sessions instead of exit 6 at once (for a hook that fires while the last one still mines; the state has it file what changed)' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l harness -d 'Whose conversations: pi, opencode, claude (repeatable; default: every harness found here, only pi with --sessions or --out)' -r -f -a "pi\t'pi\'s session files (`~/.pi/agent/sessions/**/*.jsonl`)'
opencode\t'opencode\'s SQLite database (`~/.local/share/opencode/opencode.db`)'
claude\t'Claude Code\'s session transcripts (`~/.claude/projects/<slug>/<id>.jsonl`)'
codex\t'Codex\'s session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)'"
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l wing -d 'The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode; MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l sessions -d 'pi\'s sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l out -d 'The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode .../feed/opencode/staged); mpt\'s state and lock files are kept outside it' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l min-user-turns -d 'Gate: the fewest real user turns a session needs' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l min-chars -d 'Gate: the fewest characters of dialogue (user and assistant text) a session needs' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l quiet-period-ms -d 'Gate: a session written to more recently than this is still live and waits, unless the trigger ends it' -r
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l include-subagents -d 'Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from mine" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -l force -d 'Replace another `mempalace-pi-session` there: a file is kept as a numbered backup (`.mpt-backup-<time>`, never over another), a link replaced; a directory is never moved'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from install-helper" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from help" -f -a "prepare" -d 'Stage pi\'s (and opencode\'s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from help" -f -a "mine" -d 'Prepare, then mine MINE_SOURCE through the palace\'s writer (for extensions that cannot feed)'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from help" -f -a "install-helper" -d 'Link `mempalace-pi-session` to mpt, so the pi bridge\'s feeder runs `mpt feed prepare`'
complete -c mpt -n "__fish_mpt_using_subcommand feed; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "list" -d 'List ops in queue order (default: the open ones, head first)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "show" -d 'Show one op: payload, attempts, last error, what operators did to it'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "enqueue" -d 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "flush" -d 'Send the queued ops to the primary, in order, each effect exactly once'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "retry" -d 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "drop" -d 'Give up on one op; it is recorded, never silent'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "purge" -d 'Delete done and dropped ops older than the retention (open ops are never touched)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "backfill" -d 'Queue this device\'s existing memory for the primary, once (a dry run without --yes)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge backfill help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l state -d 'Which ops' -r -f -a "open\t'queued, leased and failed'
queued\t''
leased\t''
done\t''
failed\t''
dropped\t''
all\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l limit -d 'At most this many (done, dropped and all: the most recent)' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l dedupe-key -d 'At most one open op per key: a second enqueue with the same key returns the first' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l limit -d 'Settle at most N ops, then stop' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l deadline -d 'Keep retrying an unreachable primary, with backoff, for this long (e.g. 90s, 5m); without it the flush stops at the first transient failure' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l wait -d 'Wait for another flusher to finish instead of exiting 6 at once'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l failed -d 'Every failed op'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l reason -d 'Why, for the record' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l yes -d 'Confirm: the op will never reach the primary'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l older-than -d 'Settled longer ago than this (e.g. 7d, 12h, 0s)' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l palace -d 'The local palace (else the mpt config\'s `palace`, else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l wing -d 'Only drawers and diary entries in wings matching this glob (repeatable); facts and coordination events have no wing and are left for a run without --wing' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l since -d 'Only records filed on or after this date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SS)' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l dry-run -d 'Print what would be queued, queue nothing (the default without --yes)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l yes -d 'Queue it'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l include-dropped -d 'Also queue again the records whose backfill op an operator dropped (`mpt outbox drop`); without it they are listed as `dropped` and the backfill is not done'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from backfill" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "list" -d 'List ops in queue order (default: the open ones, head first)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one op: payload, attempts, last error, what operators did to it'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "enqueue" -d 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "flush" -d 'Send the queued ops to the primary, in order, each effect exactly once'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "retry" -d 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "drop" -d 'Give up on one op; it is recorded, never silent'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "purge" -d 'Delete done and dropped ops older than the retention (open ops are never touched)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "backfill" -d 'Queue this device\'s existing memory for the primary, once (a dry run without --yes)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -f -a "serve" -d 'Listen for devices and forward to mempalace serve what each device\'s role allows'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -f -a "token" -d 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -f -a "invite" -d 'Add a device to the policy and make its single-use join code, for `mpt join` on the device'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -f -a "audit" -d 'Show the audit log (by device, denials, time); `verify` checks its hash chain'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -f -a "policy" -d 'Check the policy file and its tests, or explain the rule that decides one call'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and not __fish_seen_subcommand_from serve token invite audit policy help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l listen -d 'Where devices connect: IP:PORT (port 0 picks a free one)' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l upstream -d 'The mempalace serve in front of which it stands, e.g. http://127.0.0.1:8765' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l tls-cert -d 'Serve TLS with this PEM certificate (chain)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l tls-key -d 'The certificate\'s PEM private key' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l allow-insecure -d 'Allow a non-loopback listen without TLS, or a plain http:// upstream on another host (when a tunnel already encrypts the link)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from serve" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -f -a "issue" -d 'A new token for a device the policy names: shown once, alone on stdout or into --out'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -f -a "list" -d 'Every token: id, device, state, created, last used, expiry (never a secret)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -f -a "rotate" -d 'A new token for a device; its old one keeps working for the overlap, then is expired'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -f -a "revoke" -d 'Refuse a token (by id) or every token of a device, at once'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from token" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l role -d 'Its role, when the policy does not name it yet' -r -f -a "member\t''
observer\t''
admin\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l wings -d 'Narrow its wings, when the policy does not name it yet: a member\'s or an admin\'s writes, an observer\'s reads (default: a member writes wing_<device>*, its agents\' diaries and the harnesses\' conversation wings, and reads every wing)' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l expires -d 'The lifetime of the token the code is exchanged for ("never": none, doctor warns)' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l valid -d 'How long the code can be used' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l url -d 'The gateway as devices reach it (else the address the running gateway listens on)' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l out -d 'Write the code alone into this new file (0600) instead of the terminal (needed with --json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l force -d 'With --out, replace a file that is already there'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l revoke -d 'Revoke the device\'s pending code instead (its tokens are `mpt gateway token revoke`\'s)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from invite" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l device -d 'Only this device\'s records' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l since -d 'Only records since T: an RFC 3339 time or a duration back from now (e.g. 1h)' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l limit -d 'At most the N most recent records' -r
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l denied -d 'Only refusals'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -f -a "verify" -d 'Recompute the hash chain and check its head: exit 3 naming the first record that fails'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from audit" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -f -a "check" -d 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -f -a "explain" -d 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from policy" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Listen for devices and forward to mempalace serve what each device\'s role allows'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from help" -f -a "token" -d 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from help" -f -a "invite" -d 'Add a device to the policy and make its single-use join code, for `mpt join` on the device'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from help" -f -a "audit" -d 'Show the audit log (by device, denials, time); `verify` checks its hash chain'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from help" -f -a "policy" -d 'Check the policy file and its tests, or explain the rule that decides one call'
complete -c mpt -n "__fish_mpt_using_subcommand gateway; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand join" -l code-file -d 'Read the code from this file (mode 0600), e.g. the one `mpt gateway invite --out` wrote' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand join" -l ca-sha256 -d 'The SHA-256 of a certificate the gateway presents (the invite prints it): checked before anything is sent, then kept as the device\'s CA for the gateway (`ca_file`)' -r
complete -c mpt -n "__fish_mpt_using_subcommand join" -l ca-file -d 'Trust this CA (PEM) for the gateway\'s certificate, as the device\'s `ca_file` from now on' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand join" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand join" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand join" -l yes -d 'Change settings the config file already holds with other values'
complete -c mpt -n "__fish_mpt_using_subcommand join" -l allow-insecure -d 'Allow plain http:// to a host that is not this one (a tunnel already encrypts the link)'
complete -c mpt -n "__fish_mpt_using_subcommand join" -l no-wire -d 'Leave the harnesses\' configs as they are'
complete -c mpt -n "__fish_mpt_using_subcommand join" -l no-timer -d 'Install no flush timer (a systemd user timer, else the cron line is printed)'
complete -c mpt -n "__fish_mpt_using_subcommand join" -l leave -d 'Undo a join: the harnesses unwired, the settings as they were, the timer, token and pinned certificate removed; then revoke the device\'s token on the primary host'
complete -c mpt -n "__fish_mpt_using_subcommand join" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand join" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand join" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand join" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand join" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -f -a "header" -d 'Print {"Authorization": "Bearer <token>"} for a harness\'s header helper (never to a terminal, never with --json)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and not __fish_seen_subcommand_from header help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from header" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "header" -d 'Print {"Authorization": "Bearer <token>"} for a harness\'s header helper (never to a terminal, never with --json)'
complete -c mpt -n "__fish_mpt_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand completions" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand completions" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand man" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand man" -l mpt-config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand man" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "doctor" -d 'Tell the truth about this machine: each silent failure, why it matters, and its fix'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "edge" -d 'The local-first MCP proxy a harness runs instead of mempalace-mcp'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "runbook" -d 'RFC 001\'s phases as a checklist: where this machine stands, each safe step applied with a backup'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "call" -d 'Call one MemPalace tool through the transport the pi bridge would use'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "config" -d 'Show the effective configuration and where each value came from (never a secret)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "paths" -d 'Where MemPalace keeps this palace\'s files, and what they hold'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "mailbox" -d 'What this device owes: asks addressed to it that no later terminal reply of its own answers'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "feed" -d 'The harnesses\' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "outbox" -d 'The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "gateway" -d 'The primary host\'s front door: one token per device, roles, rate limits, a hash-chained audit'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "join" -d 'Join this device to the fleet with the code `mpt gateway invite` made on the primary host'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "token" -d 'This device\'s token for a harness that runs mpt to get it (`token header`)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "man" -d 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from edge" -f -a "status" -d 'Whether the owner runs, and whether the primary is reachable'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from edge" -f -a "stop" -d 'Stop this palace\'s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from edge" -f -a "wire" -d 'Set a harness\'s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from runbook" -f -a "apply" -d 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from mailbox" -f -a "watch" -d 'Announce only what became owed: woken by the primary\'s live stream, else by polling'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from mailbox" -f -a "ack" -d 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from mailbox" -f -a "notify" -d 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from feed" -f -a "prepare" -d 'Stage pi\'s (and opencode\'s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from feed" -f -a "mine" -d 'Prepare, then mine MINE_SOURCE through the palace\'s writer (for extensions that cannot feed)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from feed" -f -a "install-helper" -d 'Link `mempalace-pi-session` to mpt, so the pi bridge\'s feeder runs `mpt feed prepare`'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "list" -d 'List ops in queue order (default: the open ones, head first)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "show" -d 'Show one op: payload, attempts, last error, what operators did to it'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "enqueue" -d 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "flush" -d 'Send the queued ops to the primary, in order, each effect exactly once'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "retry" -d 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "drop" -d 'Give up on one op; it is recorded, never silent'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "purge" -d 'Delete done and dropped ops older than the retention (open ops are never touched)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "backfill" -d 'Queue this device\'s existing memory for the primary, once (a dry run without --yes)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from gateway" -f -a "serve" -d 'Listen for devices and forward to mempalace serve what each device\'s role allows'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from gateway" -f -a "token" -d 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from gateway" -f -a "invite" -d 'Add a device to the policy and make its single-use join code, for `mpt join` on the device'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from gateway" -f -a "audit" -d 'Show the audit log (by device, denials, time); `verify` checks its hash chain'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from gateway" -f -a "policy" -d 'Check the policy file and its tests, or explain the rule that decides one call'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "header" -d 'Print {"Authorization": "Bearer <token>"} for a harness\'s header helper (never to a terminal, never with --json)'
