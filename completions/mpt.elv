
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
        &'mpt;help;completions'= {
        }
        &'mpt;help;man'= {
        }
        &'mpt;help;help'= {
        }
    ]
    $completions[$command]
}
