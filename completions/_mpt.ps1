
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Tell the truth about this machine: each silent failure, why it matters, and its fix')
            [CompletionResult]::new('edge', 'edge', [CompletionResultType]::ParameterValue, 'The local-first MCP proxy a harness runs instead of mempalace-mcp')
            [CompletionResult]::new('runbook', 'runbook', [CompletionResultType]::ParameterValue, 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one MemPalace tool through the transport the pi bridge would use')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value came from (never a secret)')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Where MemPalace keeps this palace''s files, and what they hold')
            [CompletionResult]::new('mailbox', 'mailbox', [CompletionResultType]::ParameterValue, 'What this device owes: asks addressed to it that no later terminal reply of its own answers')
            [CompletionResult]::new('feed', 'feed', [CompletionResultType]::ParameterValue, 'The harnesses'' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops')
            [CompletionResult]::new('gateway', 'gateway', [CompletionResultType]::ParameterValue, 'The primary host''s front door: one token per device, roles, rate limits, a hash-chained audit')
            [CompletionResult]::new('join', 'join', [CompletionResultType]::ParameterValue, 'Join this device to the fleet with the code `mpt gateway invite` made on the primary host')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'This device''s token for a harness that runs mpt to get it (`token header`)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into DIR, or print mpt(1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;doctor' {
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Run this check (repeat for several: `--check transport --check outbox`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Skip every network and child probe (files and processes only)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;edge' {
            [CompletionResult]::new('--child', '--child', [CompletionResultType]::ParameterName, 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--harness', '--harness', [CompletionResultType]::ParameterName, 'The harness this edge serves, for provenance (`<harness>@<device>`; else the config''s, else mcp)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--standalone', '--standalone', [CompletionResultType]::ParameterName, 'Serve in this process instead of through the palace''s shared owner')
            [CompletionResult]::new('--owner', '--owner', [CompletionResultType]::ParameterName, 'Run as the palace''s owner process (started by `mpt edge` itself)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Whether the owner runs, and whether the primary is reachable')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop this palace''s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it')
            [CompletionResult]::new('wire', 'wire', [CompletionResultType]::ParameterValue, 'Set a harness''s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;edge;status' {
            [CompletionResult]::new('--child', '--child', [CompletionResultType]::ParameterName, 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;edge;stop' {
            [CompletionResult]::new('--child', '--child', [CompletionResultType]::ParameterName, 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;edge;wire' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The harness''s config file (opencode: else ~/.config/opencode/opencode.json[c]; claude: its state file, else $CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json; codex: else $CODEX_HOME/config.toml or ~/.codex/config.toml)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'claude: the scope written: user (~/.claude.json, every project) or project (./.mcp.json)')
            [CompletionResult]::new('--child', '--child', [CompletionResultType]::ParameterName, 'The mempalace-mcp binary for the local child (else the config''s `child`, else PATH)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change, change nothing')
            [CompletionResult]::new('--all-scopes', '--all-scopes', [CompletionResultType]::ParameterName, 'claude: also switch the local-scope entries (`claude mcp add`''s default) and this folder''s .mcp.json entry, which take precedence over the user one')
            [CompletionResult]::new('--hooks', '--hooks', [CompletionResultType]::ParameterName, 'claude: install the SessionEnd and PreCompact hooks that run `mpt feed mine --harness claude` (in its settings.json, beside your own)')
            [CompletionResult]::new('--remove-hooks', '--remove-hooks', [CompletionResultType]::ParameterName, 'claude: remove mpt''s feeding hooks (yours stay; MemPalace''s it replaced come back)')
            [CompletionResult]::new('--replace-mempalace-hooks', '--replace-mempalace-hooks', [CompletionResultType]::ParameterName, 'claude: with --hooks, take out MemPalace''s own `mempalace hook` entries (a conversation fed by both is filed twice); --remove-hooks puts them back')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;edge;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Whether the owner runs, and whether the primary is reachable')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop this palace''s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it')
            [CompletionResult]::new('wire', 'wire', [CompletionResultType]::ParameterValue, 'Set a harness''s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;edge;help;status' {
            break
        }
        'mpt;edge;help;stop' {
            break
        }
        'mpt;edge;help;wire' {
            break
        }
        'mpt;edge;help;help' {
            break
        }
        'mpt;runbook' {
            [CompletionResult]::new('--scan', '--scan', [CompletionResultType]::ParameterName, 'Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)')
            [CompletionResult]::new('--serve-cmd', '--serve-cmd', [CompletionResultType]::ParameterName, 'The primary''s serve command line for Phase 1, judged instead of what is found')
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes')
            [CompletionResult]::new('--bind-ok', '--bind-ok', [CompletionResultType]::ParameterName, 'Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes')
            [CompletionResult]::new('--bind-ok', '--bind-ok', [CompletionResultType]::ParameterName, 'Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Make the change (without it: the dry run, nothing changed)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--child', '--child', [CompletionResultType]::ParameterName, 'The mempalace-mcp binary to start for a local palace')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the server''s tools instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print only the number of owed asks (for prompts and status bars)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Announce only what became owed: woken by the primary''s live stream, else by polling')
            [CompletionResult]::new('ack', 'ack', [CompletionResultType]::ParameterValue, 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;mailbox;watch' {
            [CompletionResult]::new('--interval-ms', '--interval-ms', [CompletionResultType]::ParameterName, 'Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)')
            [CompletionResult]::new('--max-polls', '--max-polls', [CompletionResultType]::ParameterName, 'Stop after this many derivations (polls and stream wake-ups)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'Poll only: never subscribe to the live stream')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;mailbox;notify' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--test', '--test', [CompletionResultType]::ParameterName, 'Send a test notification on stderr now')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Announce only what became owed: woken by the primary''s live stream, else by polling')
            [CompletionResult]::new('ack', 'ack', [CompletionResultType]::ParameterValue, 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;mailbox;help;watch' {
            break
        }
        'mpt;mailbox;help;ack' {
            break
        }
        'mpt;mailbox;help;notify' {
            break
        }
        'mpt;mailbox;help;help' {
            break
        }
        'mpt;feed' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Stage pi''s (and opencode''s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace')
            [CompletionResult]::new('mine', 'mine', [CompletionResultType]::ParameterValue, 'Prepare, then mine MINE_SOURCE through the palace''s writer (for extensions that cannot feed)')
            [CompletionResult]::new('install-helper', 'install-helper', [CompletionResultType]::ParameterValue, 'Link `mempalace-pi-session` to mpt, so the pi bridge''s feeder runs `mpt feed prepare`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;feed;prepare' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'The trigger, recorded: shutdown, settled, new, resume, fork, compact, reload, manual, ... (shutdown, new, resume and fork end the session being left, so they skip the quiet period)')
            [CompletionResult]::new('--harness', '--harness', [CompletionResultType]::ParameterName, 'Whose conversations: pi, opencode, claude (repeatable; default: every harness found here, only pi with --sessions or --out)')
            [CompletionResult]::new('--wing', '--wing', [CompletionResultType]::ParameterName, 'The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode; MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)')
            [CompletionResult]::new('--sessions', '--sessions', [CompletionResultType]::ParameterName, 'pi''s sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode .../feed/opencode/staged); mpt''s state and lock files are kept outside it')
            [CompletionResult]::new('--min-user-turns', '--min-user-turns', [CompletionResultType]::ParameterName, 'Gate: the fewest real user turns a session needs')
            [CompletionResult]::new('--min-chars', '--min-chars', [CompletionResultType]::ParameterName, 'Gate: the fewest characters of dialogue (user and assistant text) a session needs')
            [CompletionResult]::new('--quiet-period-ms', '--quiet-period-ms', [CompletionResultType]::ParameterName, 'Gate: a session written to more recently than this is still live and waits, unless the trigger ends it')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--include-subagents', '--include-subagents', [CompletionResultType]::ParameterName, 'Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;feed;mine' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'The trigger, recorded (see `mpt feed prepare --help`)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS for a feed already running on these sessions instead of exit 6 at once (for a hook that fires while the last one still mines; the state has it file what changed)')
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--harness', '--harness', [CompletionResultType]::ParameterName, 'Whose conversations: pi, opencode, claude (repeatable; default: every harness found here, only pi with --sessions or --out)')
            [CompletionResult]::new('--wing', '--wing', [CompletionResultType]::ParameterName, 'The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode; MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)')
            [CompletionResult]::new('--sessions', '--sessions', [CompletionResultType]::ParameterName, 'pi''s sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode .../feed/opencode/staged); mpt''s state and lock files are kept outside it')
            [CompletionResult]::new('--min-user-turns', '--min-user-turns', [CompletionResultType]::ParameterName, 'Gate: the fewest real user turns a session needs')
            [CompletionResult]::new('--min-chars', '--min-chars', [CompletionResultType]::ParameterName, 'Gate: the fewest characters of dialogue (user and assistant text) a session needs')
            [CompletionResult]::new('--quiet-period-ms', '--quiet-period-ms', [CompletionResultType]::ParameterName, 'Gate: a session written to more recently than this is still live and waits, unless the trigger ends it')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--include-subagents', '--include-subagents', [CompletionResultType]::ParameterName, 'Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;feed;install-helper' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace another `mempalace-pi-session` there: a file is kept as a numbered backup (`.mpt-backup-<time>`, never over another), a link replaced; a directory is never moved')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;feed;help' {
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Stage pi''s (and opencode''s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace')
            [CompletionResult]::new('mine', 'mine', [CompletionResultType]::ParameterValue, 'Prepare, then mine MINE_SOURCE through the palace''s writer (for extensions that cannot feed)')
            [CompletionResult]::new('install-helper', 'install-helper', [CompletionResultType]::ParameterValue, 'Link `mempalace-pi-session` to mpt, so the pi bridge''s feeder runs `mpt feed prepare`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;feed;help;prepare' {
            break
        }
        'mpt;feed;help;mine' {
            break
        }
        'mpt;feed;help;install-helper' {
            break
        }
        'mpt;feed;help;help' {
            break
        }
        'mpt;outbox' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Queue this device''s existing memory for the primary, once (a dry run without --yes)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;outbox;list' {
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Which ops')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many (done, dropped and all: the most recent)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait for another flusher to finish instead of exiting 6 at once')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--failed', '--failed', [CompletionResultType]::ParameterName, 'Every failed op')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm: the op will never reach the primary')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;outbox;backfill' {
            [CompletionResult]::new('--palace', '--palace', [CompletionResultType]::ParameterName, 'The local palace (else the mpt config''s `palace`, else MemPalace''s own rules)')
            [CompletionResult]::new('--wing', '--wing', [CompletionResultType]::ParameterName, 'Only drawers and diary entries in wings matching this glob (repeatable); facts and coordination events have no wing and are left for a run without --wing')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only records filed on or after this date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SS)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be queued, queue nothing (the default without --yes)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Queue it')
            [CompletionResult]::new('--include-dropped', '--include-dropped', [CompletionResultType]::ParameterName, 'Also queue again the records whose backfill op an operator dropped (`mpt outbox drop`); without it they are listed as `dropped` and the backfill is not done')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Queue this device''s existing memory for the primary, once (a dry run without --yes)')
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
        'mpt;outbox;help;backfill' {
            break
        }
        'mpt;outbox;help;help' {
            break
        }
        'mpt;gateway' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Listen for devices and forward to mempalace serve what each device''s role allows')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)')
            [CompletionResult]::new('invite', 'invite', [CompletionResultType]::ParameterValue, 'Add a device to the policy and make its single-use join code, for `mpt join` on the device')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show the audit log (by device, denials, time); `verify` checks its hash chain')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Check the policy file and its tests, or explain the rule that decides one call')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Where devices connect: IP:PORT (port 0 picks a free one)')
            [CompletionResult]::new('--upstream', '--upstream', [CompletionResultType]::ParameterName, 'The mempalace serve in front of which it stands, e.g. http://127.0.0.1:8765')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Serve TLS with this PEM certificate (chain)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The certificate''s PEM private key')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--allow-insecure', '--allow-insecure', [CompletionResultType]::ParameterName, 'Allow a non-loopback listen without TLS, or a plain http:// upstream on another host (when a tunnel already encrypts the link)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;token' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('issue', 'issue', [CompletionResultType]::ParameterValue, 'A new token for a device the policy names: shown once, alone on stdout or into --out')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every token: id, device, state, created, last used, expiry (never a secret)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'A new token for a device; its old one keeps working for the overlap, then is expired')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token (by id) or every token of a device, at once')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;token;issue' {
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'Refused after this long (e.g. 90d); without it the token never expires (doctor warns)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write the token alone into this new file (0600, its folders made 0700): what the device''s MPT_TOKEN_FILE points at')
            [CompletionResult]::new('--env-file', '--env-file', [CompletionResultType]::ParameterName, 'Set the MEMPALACE_REMOTE_TOKEN=<token> line in this env file (0600; its other lines kept)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'With --out, replace a file that is already there')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;token;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;token;rotate' {
            [CompletionResult]::new('--overlap', '--overlap', [CompletionResultType]::ParameterName, 'How long the old token keeps working')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'The new token''s lifetime (else the old one''s, else none)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write the token alone into this new file (0600, its folders made 0700): what the device''s MPT_TOKEN_FILE points at')
            [CompletionResult]::new('--env-file', '--env-file', [CompletionResultType]::ParameterName, 'Set the MEMPALACE_REMOTE_TOKEN=<token> line in this env file (0600; its other lines kept)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'With --out, replace a file that is already there')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;token;revoke' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;token;help' {
            [CompletionResult]::new('issue', 'issue', [CompletionResultType]::ParameterValue, 'A new token for a device the policy names: shown once, alone on stdout or into --out')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every token: id, device, state, created, last used, expiry (never a secret)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'A new token for a device; its old one keeps working for the overlap, then is expired')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token (by id) or every token of a device, at once')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;token;help;issue' {
            break
        }
        'mpt;gateway;token;help;list' {
            break
        }
        'mpt;gateway;token;help;rotate' {
            break
        }
        'mpt;gateway;token;help;revoke' {
            break
        }
        'mpt;gateway;token;help;help' {
            break
        }
        'mpt;gateway;invite' {
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Its role, when the policy does not name it yet')
            [CompletionResult]::new('--wings', '--wings', [CompletionResultType]::ParameterName, 'Narrow its wings, when the policy does not name it yet: a member''s or an admin''s writes, an observer''s reads (default: a member writes wing_<device>*, its agents'' diaries and the harnesses'' conversation wings, and reads every wing)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'The lifetime of the token the code is exchanged for ("never": none, doctor warns)')
            [CompletionResult]::new('--valid', '--valid', [CompletionResultType]::ParameterName, 'How long the code can be used')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The gateway as devices reach it (else the address the running gateway listens on)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write the code alone into this new file (0600) instead of the terminal (needed with --json)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'With --out, replace a file that is already there')
            [CompletionResult]::new('--revoke', '--revoke', [CompletionResultType]::ParameterName, 'Revoke the device''s pending code instead (its tokens are `mpt gateway token revoke`''s)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;audit' {
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'Only this device''s records')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only records since T: an RFC 3339 time or a duration back from now (e.g. 1h)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most the N most recent records')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--denied', '--denied', [CompletionResultType]::ParameterName, 'Only refusals')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Recompute the hash chain and check its head: exit 3 naming the first record that fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;audit;verify' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;audit;help' {
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Recompute the hash chain and check its head: exit 3 naming the first record that fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;audit;help;verify' {
            break
        }
        'mpt;gateway;audit;help;help' {
            break
        }
        'mpt;gateway;policy' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;policy;check' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;policy;explain' {
            [CompletionResult]::new('--current-wing', '--current-wing', [CompletionResultType]::ParameterName, 'The wing update_drawer''s drawer is in now (what the gateway would look up)')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'The policy file (default: policy.json in the gateway''s state folder)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;gateway;policy;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;policy;help;check' {
            break
        }
        'mpt;gateway;policy;help;explain' {
            break
        }
        'mpt;gateway;policy;help;help' {
            break
        }
        'mpt;gateway;help' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Listen for devices and forward to mempalace serve what each device''s role allows')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)')
            [CompletionResult]::new('invite', 'invite', [CompletionResultType]::ParameterValue, 'Add a device to the policy and make its single-use join code, for `mpt join` on the device')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show the audit log (by device, denials, time); `verify` checks its hash chain')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Check the policy file and its tests, or explain the rule that decides one call')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;gateway;help;serve' {
            break
        }
        'mpt;gateway;help;token' {
            [CompletionResult]::new('issue', 'issue', [CompletionResultType]::ParameterValue, 'A new token for a device the policy names: shown once, alone on stdout or into --out')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every token: id, device, state, created, last used, expiry (never a secret)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'A new token for a device; its old one keeps working for the overlap, then is expired')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token (by id) or every token of a device, at once')
            break
        }
        'mpt;gateway;help;token;issue' {
            break
        }
        'mpt;gateway;help;token;list' {
            break
        }
        'mpt;gateway;help;token;rotate' {
            break
        }
        'mpt;gateway;help;token;revoke' {
            break
        }
        'mpt;gateway;help;invite' {
            break
        }
        'mpt;gateway;help;audit' {
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Recompute the hash chain and check its head: exit 3 naming the first record that fails')
            break
        }
        'mpt;gateway;help;audit;verify' {
            break
        }
        'mpt;gateway;help;policy' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites')
            break
        }
        'mpt;gateway;help;policy;check' {
            break
        }
        'mpt;gateway;help;policy;explain' {
            break
        }
        'mpt;gateway;help;help' {
            break
        }
        'mpt;join' {
            [CompletionResult]::new('--code-file', '--code-file', [CompletionResultType]::ParameterName, 'Read the code from this file (mode 0600), e.g. the one `mpt gateway invite --out` wrote')
            [CompletionResult]::new('--ca-sha256', '--ca-sha256', [CompletionResultType]::ParameterName, 'The SHA-256 of a certificate the gateway presents (the invite prints it): checked before anything is sent, then kept as the device''s CA for the gateway (`ca_file`)')
            [CompletionResult]::new('--ca-file', '--ca-file', [CompletionResultType]::ParameterName, 'Trust this CA (PEM) for the gateway''s certificate, as the device''s `ca_file` from now on')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Change settings the config file already holds with other values')
            [CompletionResult]::new('--allow-insecure', '--allow-insecure', [CompletionResultType]::ParameterName, 'Allow plain http:// to a host that is not this one (a tunnel already encrypts the link)')
            [CompletionResult]::new('--no-wire', '--no-wire', [CompletionResultType]::ParameterName, 'Leave the harnesses'' configs as they are')
            [CompletionResult]::new('--no-timer', '--no-timer', [CompletionResultType]::ParameterName, 'Install no flush timer (a systemd user timer, else the cron line is printed)')
            [CompletionResult]::new('--leave', '--leave', [CompletionResultType]::ParameterName, 'Undo a join: the harnesses unwired, the settings as they were, the timer, token and pinned certificate removed; then revoke the device''s token on the primary host')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;token' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr (-vv: each request)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('header', 'header', [CompletionResultType]::ParameterValue, 'Print {"Authorization": "Bearer <token>"} for a harness''s header helper (never to a terminal, never with --json)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;token;header' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
        'mpt;token;help' {
            [CompletionResult]::new('header', 'header', [CompletionResultType]::ParameterValue, 'Print {"Authorization": "Bearer <token>"} for a harness''s header helper (never to a terminal, never with --json)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;token;help;header' {
            break
        }
        'mpt;token;help;help' {
            break
        }
        'mpt;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour human output (NO_COLOR is honoured)')
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('--mpt-config', '--mpt-config', [CompletionResultType]::ParameterName, 'The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document (with a `schema` field) on stdout, errors included; `mailbox watch` streams one per line (JSON Lines)')
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
            [CompletionResult]::new('edge', 'edge', [CompletionResultType]::ParameterValue, 'The local-first MCP proxy a harness runs instead of mempalace-mcp')
            [CompletionResult]::new('runbook', 'runbook', [CompletionResultType]::ParameterValue, 'RFC 001''s phases as a checklist: where this machine stands, each safe step applied with a backup')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one MemPalace tool through the transport the pi bridge would use')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value came from (never a secret)')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Where MemPalace keeps this palace''s files, and what they hold')
            [CompletionResult]::new('mailbox', 'mailbox', [CompletionResultType]::ParameterValue, 'What this device owes: asks addressed to it that no later terminal reply of its own answers')
            [CompletionResult]::new('feed', 'feed', [CompletionResultType]::ParameterValue, 'The harnesses'' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine')
            [CompletionResult]::new('outbox', 'outbox', [CompletionResultType]::ParameterValue, 'The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops')
            [CompletionResult]::new('gateway', 'gateway', [CompletionResultType]::ParameterValue, 'The primary host''s front door: one token per device, roles, rate limits, a hash-chained audit')
            [CompletionResult]::new('join', 'join', [CompletionResultType]::ParameterValue, 'Join this device to the fleet with the code `mpt gateway invite` made on the primary host')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'This device''s token for a harness that runs mpt to get it (`token header`)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (one per subcommand) into DIR, or print mpt(1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mpt;help;doctor' {
            break
        }
        'mpt;help;edge' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Whether the owner runs, and whether the primary is reachable')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop this palace''s edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it')
            [CompletionResult]::new('wire', 'wire', [CompletionResultType]::ParameterValue, 'Set a harness''s MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)')
            break
        }
        'mpt;help;edge;status' {
            break
        }
        'mpt;help;edge;stop' {
            break
        }
        'mpt;help;edge;wire' {
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
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Announce only what became owed: woken by the primary''s live stream, else by polling')
            [CompletionResult]::new('ack', 'ack', [CompletionResultType]::ParameterValue, 'Answer an ask with a terminal status, as the identity it was addressed to (or --as)')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or nowhere and why); exit 3 when nowhere')
            break
        }
        'mpt;help;mailbox;watch' {
            break
        }
        'mpt;help;mailbox;ack' {
            break
        }
        'mpt;help;mailbox;notify' {
            break
        }
        'mpt;help;feed' {
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Stage pi''s (and opencode''s) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace')
            [CompletionResult]::new('mine', 'mine', [CompletionResultType]::ParameterValue, 'Prepare, then mine MINE_SOURCE through the palace''s writer (for extensions that cannot feed)')
            [CompletionResult]::new('install-helper', 'install-helper', [CompletionResultType]::ParameterValue, 'Link `mempalace-pi-session` to mpt, so the pi bridge''s feeder runs `mpt feed prepare`')
            break
        }
        'mpt;help;feed;prepare' {
            break
        }
        'mpt;help;feed;mine' {
            break
        }
        'mpt;help;feed;install-helper' {
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
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Queue this device''s existing memory for the primary, once (a dry run without --yes)')
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
        'mpt;help;outbox;backfill' {
            break
        }
        'mpt;help;gateway' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Listen for devices and forward to mempalace serve what each device''s role allows')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Issue, list, rotate and revoke device tokens (the only writers of tokens.json)')
            [CompletionResult]::new('invite', 'invite', [CompletionResultType]::ParameterValue, 'Add a device to the policy and make its single-use join code, for `mpt join` on the device')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show the audit log (by device, denials, time); `verify` checks its hash chain')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Check the policy file and its tests, or explain the rule that decides one call')
            break
        }
        'mpt;help;gateway;serve' {
            break
        }
        'mpt;help;gateway;token' {
            [CompletionResult]::new('issue', 'issue', [CompletionResultType]::ParameterValue, 'A new token for a device the policy names: shown once, alone on stdout or into --out')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every token: id, device, state, created, last used, expiry (never a secret)')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'A new token for a device; its old one keeps working for the overlap, then is expired')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Refuse a token (by id) or every token of a device, at once')
            break
        }
        'mpt;help;gateway;token;issue' {
            break
        }
        'mpt;help;gateway;token;list' {
            break
        }
        'mpt;help;gateway;token;rotate' {
            break
        }
        'mpt;help;gateway;token;revoke' {
            break
        }
        'mpt;help;gateway;invite' {
            break
        }
        'mpt;help;gateway;audit' {
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Recompute the hash chain and check its head: exit 3 naming the first record that fails')
            break
        }
        'mpt;help;gateway;audit;verify' {
            break
        }
        'mpt;help;gateway;policy' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'The decision on one tools/call by a device, the rule that decides it, and what it rewrites')
            break
        }
        'mpt;help;gateway;policy;check' {
            break
        }
        'mpt;help;gateway;policy;explain' {
            break
        }
        'mpt;help;join' {
            break
        }
        'mpt;help;token' {
            [CompletionResult]::new('header', 'header', [CompletionResultType]::ParameterValue, 'Print {"Authorization": "Bearer <token>"} for a harness''s header helper (never to a terminal, never with --json)')
            break
        }
        'mpt;help;token;header' {
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
