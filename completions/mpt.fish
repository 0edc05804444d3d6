# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_mpt_global_optspecs
    string join \n json q/quiet v/verbose color= config= h/help V/version
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
complete -c mpt -n "__fish_mpt_needs_command" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_needs_command" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_needs_command" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_needs_command" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_needs_command" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "call" -d 'Call one MemPalace tool through the transport the pi bridge would use'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "config" -d 'Show the effective configuration and where each value came from (never a secret)'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "paths" -d 'Where MemPalace keeps this palace\'s files, and what they hold'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "outbox" -d 'The durable queue of writes for the shared primary: inspect it, flush it, unblock it'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "man" -d 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
complete -c mpt -n "__fish_mpt_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand call" -l timeout-ms -d 'Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)' -r
complete -c mpt -n "__fish_mpt_using_subcommand call" -l palace -d 'The local palace (else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand call" -l child -d 'The mempalace-mcp binary to start for a local palace' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand call" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand call" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand call" -l list -d 'List the server\'s tools instead'
complete -c mpt -n "__fish_mpt_using_subcommand call" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand call" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand config" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand config" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand config" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand config" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l palace -d 'The palace (else MemPalace\'s own rules)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand paths" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand paths" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "list" -d 'List ops in queue order (default: the open ones, head first)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "show" -d 'Show one op: payload, attempts, last error, what operators did to it'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "enqueue" -d 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "flush" -d 'Send the queued ops to the primary, in order, each effect exactly once'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "retry" -d 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "drop" -d 'Give up on one op; it is recorded, never silent'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "purge" -d 'Delete done and dropped ops older than the retention (open ops are never touched)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and not __fish_seen_subcommand_from list show enqueue flush retry drop purge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
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
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l dedupe-key -d 'At most one open op per key: a second enqueue with the same key returns the first' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from enqueue" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l limit -d 'Settle at most N ops, then stop' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l deadline -d 'Keep retrying an unreachable primary, with backoff, for this long (e.g. 90s, 5m); without it the flush stops at the first transient failure' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l wait -d 'Wait for another flusher to finish instead of exiting 6 at once'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from flush" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l failed -d 'Every failed op'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from retry" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l reason -d 'Why, for the record' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l yes -d 'Confirm: the op will never reach the primary'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from drop" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l older-than -d 'Settled longer ago than this (e.g. 7d, 12h, 0s)' -r
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from purge" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "list" -d 'List ops in queue order (default: the open ones, head first)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one op: payload, attempts, last error, what operators did to it'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "enqueue" -d 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "flush" -d 'Send the queued ops to the primary, in order, each effect exactly once'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "retry" -d 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "drop" -d 'Give up on one op; it is recorded, never silent'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "purge" -d 'Delete done and dropped ops older than the retention (open ops are never touched)'
complete -c mpt -n "__fish_mpt_using_subcommand outbox; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand completions" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand completions" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand completions" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand man" -l color -d 'When to colour human output (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mpt -n "__fish_mpt_using_subcommand man" -l config -d 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)' -r -F
complete -c mpt -n "__fish_mpt_using_subcommand man" -l json -d 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s q -l quiet -d 'Print only errors'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s v -l verbose -d 'Say more on stderr (-vv: each request)'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s h -l help -d 'Print help'
complete -c mpt -n "__fish_mpt_using_subcommand man" -s V -l version -d 'Print version'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "call" -d 'Call one MemPalace tool through the transport the pi bridge would use'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "config" -d 'Show the effective configuration and where each value came from (never a secret)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "paths" -d 'Where MemPalace keeps this palace\'s files, and what they hold'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "outbox" -d 'The durable queue of writes for the shared primary: inspect it, flush it, unblock it'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "man" -d 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and not __fish_seen_subcommand_from call config paths outbox completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "list" -d 'List ops in queue order (default: the open ones, head first)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "show" -d 'Show one op: payload, attempts, last error, what operators did to it'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "enqueue" -d 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "flush" -d 'Send the queued ops to the primary, in order, each effect exactly once'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "retry" -d 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "drop" -d 'Give up on one op; it is recorded, never silent'
complete -c mpt -n "__fish_mpt_using_subcommand help; and __fish_seen_subcommand_from outbox" -f -a "purge" -d 'Delete done and dropped ops older than the retention (open ops are never touched)'
