
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
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Tell the truth about this machine: each silent failure, why it matters, and its fix')
            [CompletionResult]::new('runbook', 'runbook', [CompletionResultType]::ParameterValue, 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one MemPalace tool through the transport the pi bridge would use')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value came from (never a secret)')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Where MemPalace keeps this palace''s files, and what they hold')
            [CompletionResult]::new('mailbox', 'mailbox', [CompletionResultType]::ParameterValue, 'What this device owes: asks addressed to it that no later terminal reply of its own answers')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into DIR, or print mpt(1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;doctor' {
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Run one check: extension, config, transport, half-flip, false-positive, kg-path, embedder, writers')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Skip every network and child probe (files and processes only)')
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
        'mpt;runbook' {
            [CompletionResult]::new('--scan', '--scan', [CompletionResultType]::ParameterName, 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)')
            [CompletionResult]::new('--serve-cmd', '--serve-cmd', [CompletionResultType]::ParameterName, 'The primary''s serve command line for Phase 1, judged instead of what is found')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The palace (else the config''s, else MemPalace''s own rules)')
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
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;runbook;apply' {
            [CompletionResult]::new('--scan', '--scan', [CompletionResultType]::ParameterName, 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)')
            [CompletionResult]::new('--serve-cmd', '--serve-cmd', [CompletionResultType]::ParameterName, 'The primary''s serve command line for Phase 1, judged instead of what is found')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The palace (else the config''s, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Make the change (without it: the dry run, nothing changed)')
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
        'mpt;runbook;help' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;runbook;help;apply' {
            break
        }
        'mpt;runbook;help;help' {
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
        'mpt;mailbox' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this identity (default: <harness>@$MEMPALACE_PI_DEVICE)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print only the number of owed asks (for prompts and status bars)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Poll, and announce only what became owed since the last poll')
            [CompletionResult]::new('ack', 'ack', [CompletionResultType]::ParameterValue, 'Answer an ask with a terminal status, as this identity')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;mailbox;watch' {
            [CompletionResult]::new('--interval-ms', '--interval-ms', [CompletionResultType]::ParameterName, 'Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)')
            [CompletionResult]::new('--max-polls', '--max-polls', [CompletionResultType]::ParameterName, 'Stop after this many polls')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this identity (default: <harness>@$MEMPALACE_PI_DEVICE)')
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
        'mpt;mailbox;ack' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'The terminal status that closes it')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'A reply body')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this identity (default: <harness>@$MEMPALACE_PI_DEVICE)')
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
        'mpt;mailbox;help' {
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Poll, and announce only what became owed since the last poll')
            [CompletionResult]::new('ack', 'ack', [CompletionResultType]::ParameterValue, 'Answer an ask with a terminal status, as this identity')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;mailbox;help;watch' {
            break
        }
        'mpt;mailbox;help;ack' {
            break
        }
        'mpt;mailbox;help;help' {
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
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Tell the truth about this machine: each silent failure, why it matters, and its fix')
            [CompletionResult]::new('runbook', 'runbook', [CompletionResultType]::ParameterValue, 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one MemPalace tool through the transport the pi bridge would use')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value came from (never a secret)')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Where MemPalace keeps this palace''s files, and what they hold')
            [CompletionResult]::new('mailbox', 'mailbox', [CompletionResultType]::ParameterValue, 'What this device owes: asks addressed to it that no later terminal reply of its own answers')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into DIR, or print mpt(1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;help;doctor' {
            break
        }
        'mpt;help;runbook' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line')
            break
        }
        'mpt;help;runbook;apply' {
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
        'mpt;help;mailbox' {
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Poll, and announce only what became owed since the last poll')
            [CompletionResult]::new('ack', 'ack', [CompletionResultType]::ParameterValue, 'Answer an ask with a terminal status, as this identity')
            break
        }
        'mpt;help;mailbox;watch' {
            break
        }
        'mpt;help;mailbox;ack' {
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
