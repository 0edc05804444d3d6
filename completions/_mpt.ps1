
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'mpt' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'mpt'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'mpt' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one MemPalace tool through the transport the pi bridge would use')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value came from (never a secret)')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Where MemPalace keeps this palace''s files, and what they hold')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'The durable queue of writes for the shared primary: inspect it, flush it, unblock it')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into DIR, or print mpt(1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;call' {
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else MemPalace''s own rules)')
            [CompletionResult]::new('--child', '--child', [CompletionResultType]::ParameterName, 'The mempalace-mcp binary to start for a local palace')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the server''s tools instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;config' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;paths' {
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The palace (else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List ops in queue order (default: the open ones, head first)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one op: payload, attempts, last error, what operators did to it')
            [CompletionResult]::new('enqueue', 'enqueue', [CompletionResultType]::ParameterValue, 'Queue one write for the primary (for scripts and tests; the edge queues its own)')
            [CompletionResult]::new('flush', 'flush', [CompletionResultType]::ParameterValue, 'Send the queued ops to the primary, in order, each effect exactly once')
            [CompletionResult]::new('retry', 'retry', [CompletionResultType]::ParameterValue, 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Give up on one op; it is recorded, never silent')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Delete done and dropped ops older than the retention (open ops are never touched)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;outbox;list' {
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Which ops')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many (done, dropped and all: the most recent)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;show' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;enqueue' {
            [CompletionResult]::new('--dedupe-key', '--dedupe-key', [CompletionResultType]::ParameterName, 'At most one open op per key: a second enqueue with the same key returns the first')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;flush' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Settle at most N ops, then stop')
            [CompletionResult]::new('--deadline', '--deadline', [CompletionResultType]::ParameterName, 'Keep retrying an unreachable primary, with backoff, for this long (e.g. 90s, 5m); without it the flush stops at the first transient failure')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait for another flusher to finish instead of exiting 6 at once')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;retry' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--failed', '--failed', [CompletionResultType]::ParameterName, 'Every failed op')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;drop' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why, for the record')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm: the op will never reach the primary')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;purge' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Settled longer ago than this (e.g. 7d, 12h, 0s)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;outbox;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List ops in queue order (default: the open ones, head first)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one op: payload, attempts, last error, what operators did to it')
            [CompletionResult]::new('enqueue', 'enqueue', [CompletionResultType]::ParameterValue, 'Queue one write for the primary (for scripts and tests; the edge queues its own)')
            [CompletionResult]::new('flush', 'flush', [CompletionResultType]::ParameterValue, 'Send the queued ops to the primary, in order, each effect exactly once')
            [CompletionResult]::new('retry', 'retry', [CompletionResultType]::ParameterValue, 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Give up on one op; it is recorded, never silent')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Delete done and dropped ops older than the retention (open ops are never touched)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;outbox;help;list' {
            break
        }
        'mpt;outbox;help;show' {
            break
        }
        'mpt;outbox;help;enqueue' {
            break
        }
        'mpt;outbox;help;flush' {
            break
        }
        'mpt;outbox;help;retry' {
            break
        }
        'mpt;outbox;help;drop' {
            break
        }
        'mpt;outbox;help;purge' {
            break
        }
        'mpt;outbox;help;help' {
            break
        }
        'mpt;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;man' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mpt;help' {
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one MemPalace tool through the transport the pi bridge would use')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value came from (never a secret)')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Where MemPalace keeps this palace''s files, and what they hold')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'The durable queue of writes for the shared primary: inspect it, flush it, unblock it')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into DIR, or print mpt(1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;help;call' {
            break
        }
        'mpt;help;config' {
            break
        }
        'mpt;help;paths' {
            break
        }
        'mpt;help;outbox' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List ops in queue order (default: the open ones, head first)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one op: payload, attempts, last error, what operators did to it')
            [CompletionResult]::new('enqueue', 'enqueue', [CompletionResultType]::ParameterValue, 'Queue one write for the primary (for scripts and tests; the edge queues its own)')
            [CompletionResult]::new('flush', 'flush', [CompletionResultType]::ParameterValue, 'Send the queued ops to the primary, in order, each effect exactly once')
            [CompletionResult]::new('retry', 'retry', [CompletionResultType]::ParameterValue, 'Put a failed op (or every failed op) back in the queue with a fresh attempt budget')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Give up on one op; it is recorded, never silent')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Delete done and dropped ops older than the retention (open ops are never touched)')
            break
        }
        'mpt;help;outbox;list' {
            break
        }
        'mpt;help;outbox;show' {
            break
        }
        'mpt;help;outbox;enqueue' {
            break
        }
        'mpt;help;outbox;flush' {
            break
        }
        'mpt;help;outbox;retry' {
            break
        }
        'mpt;help;outbox;drop' {
            break
        }
        'mpt;help;outbox;purge' {
            break
        }
        'mpt;help;completions' {
            break
        }
        'mpt;help;man' {
            break
        }
        'mpt;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
