
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
            cand doctor 'Tell the truth about this machine: each silent failure, why it matters, and its fix'
            cand runbook 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup'
            cand call 'Call one MemPalace tool through the transport the pi bridge would use'
            cand config 'Show the effective configuration and where each value came from (never a secret)'
            cand paths 'Where MemPalace keeps this palace''s files, and what they hold'
            cand mailbox 'What this device owes: asks addressed to it that no later terminal reply of its own answers'
            cand completions 'Print a shell completion script'
            cand man 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;doctor'= {
            cand --check 'Run one check: extension, config, transport, half-flip, false-positive, kg-path, embedder, writers'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --offline 'Skip every network and child probe (files and processes only)'
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
        &'mpt;runbook'= {
            cand --scan 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)'
            cand --serve-cmd 'The primary''s serve command line for Phase 1, judged instead of what is found'
            cand --palace 'The palace (else the config''s, else MemPalace''s own rules)'
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
            cand apply 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;runbook;apply'= {
            cand --scan 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)'
            cand --serve-cmd 'The primary''s serve command line for Phase 1, judged instead of what is found'
            cand --palace 'The palace (else the config''s, else MemPalace''s own rules)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --yes 'Make the change (without it: the dry run, nothing changed)'
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
        &'mpt;mailbox'= {
            cand --as 'Act as this identity (default: <harness>@$MEMPALACE_PI_DEVICE)'
            cand --color 'When to colour human output (NO_COLOR is honoured)'
            cand --config 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)'
            cand --count 'Print only the number of owed asks (for prompts and status bars)'
            cand --json 'Print exactly one JSON document (with a `schema` field) on stdout, errors included'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Say more on stderr (-vv: each request)'
            cand --verbose 'Say more on stderr (-vv: each request)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand watch 'Poll, and announce only what became owed since the last poll'
            cand ack 'Answer an ask with a terminal status, as this identity'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;mailbox;watch'= {
            cand --interval-ms 'Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)'
            cand --max-polls 'Stop after this many polls'
            cand --as 'Act as this identity (default: <harness>@$MEMPALACE_PI_DEVICE)'
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
        &'mpt;mailbox;ack'= {
            cand --status 'The terminal status that closes it'
            cand --body 'A reply body'
            cand --as 'Act as this identity (default: <harness>@$MEMPALACE_PI_DEVICE)'
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
        &'mpt;mailbox;help'= {
            cand watch 'Poll, and announce only what became owed since the last poll'
            cand ack 'Answer an ask with a terminal status, as this identity'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;mailbox;help;watch'= {
        }
        &'mpt;mailbox;help;ack'= {
        }
        &'mpt;mailbox;help;help'= {
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
            cand doctor 'Tell the truth about this machine: each silent failure, why it matters, and its fix'
            cand runbook 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup'
            cand call 'Call one MemPalace tool through the transport the pi bridge would use'
            cand config 'Show the effective configuration and where each value came from (never a secret)'
            cand paths 'Where MemPalace keeps this palace''s files, and what they hold'
            cand mailbox 'What this device owes: asks addressed to it that no later terminal reply of its own answers'
            cand completions 'Print a shell completion script'
            cand man 'Write man pages (one per subcommand) into DIR, or print mpt(1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mpt;help;doctor'= {
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
            cand watch 'Poll, and announce only what became owed since the last poll'
            cand ack 'Answer an ask with a terminal status, as this identity'
        }
        &'mpt;help;mailbox;watch'= {
        }
        &'mpt;help;mailbox;ack'= {
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
