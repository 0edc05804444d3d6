
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand call 'Call one MemPalace tool through the transport the pi bridge would use'
            cand config 'Show the effective configuration and where each value came from (never a secret)'
            cand paths 'Where MemPalace keeps this palace''s files, and what they hold'
            cand outbox 'The durable queue of writes for the shared primary: inspect it, flush it, unblock it'
            cand completions 'Print a shell completion script'
            cand man 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;call'= {
            cand --timeout-ms 'Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)'
            cand --palace 'The local palace (else MemPalace''s own rules)'
            cand --child 'The mempalace-mcp binary to start for a local palace'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --list 'List the server''s tools instead'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --palace 'The palace (else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mpt;outbox'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;outbox;list'= {
            cand --state 'Which ops'
            cand --limit 'At most this many (done, dropped and all: the most recent)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --wait 'Wait for another flusher to finish instead of exiting 6 at once'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --failed 'Every failed op'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --yes 'Confirm: the op will never reach the primary'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
        &'mpt;outbox;help;help'= {
        }
        &'mpt;completions'= {
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
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
            cand call 'Call one MemPalace tool through the transport the pi bridge would use'
            cand config 'Show the effective configuration and where each value came from (never a secret)'
            cand paths 'Where MemPalace keeps this palace''s files, and what they hold'
            cand outbox 'The durable queue of writes for the shared primary: inspect it, flush it, unblock it'
            cand completions 'Print a shell completion script'
            cand man 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;help;call'= {
        }
        &'mpt;help;config'= {
        }
        &'mpt;help;paths'= {
        }
        &'mpt;help;outbox'= {
            cand list 'List ops in queue order (default: the open ones, head first)'
            cand show 'Show one op: payload, attempts, last error, what operators did to it'
            cand enqueue 'Queue one write for the primary (for scripts and tests; the edge queues its own)'
            cand flush 'Send the queued ops to the primary, in order, each effect exactly once'
            cand retry 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget'
            cand drop 'Give up on one op; it is recorded, never silent'
            cand purge 'Delete done and dropped ops older than the retention (open ops are never touched)'
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
        &'mpt;help;completions'= {
        }
        &'mpt;help;man'= {
        }
        &'mpt;help;help'= {
        }
    ]
    $completions[$command]
}
