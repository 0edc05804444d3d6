_mpt() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="mpt"
                ;;
            mpt,call)
                cmd="mpt__subcmd__call"
                ;;
            mpt,completions)
                cmd="mpt__subcmd__completions"
                ;;
            mpt,config)
                cmd="mpt__subcmd__config"
                ;;
            mpt,doctor)
                cmd="mpt__subcmd__doctor"
                ;;
            mpt,edge)
                cmd="mpt__subcmd__edge"
                ;;
            mpt,feed)
                cmd="mpt__subcmd__feed"
                ;;
            mpt,gateway)
                cmd="mpt__subcmd__gateway"
                ;;
            mpt,help)
                cmd="mpt__subcmd__help"
                ;;
            mpt,join)
                cmd="mpt__subcmd__join"
                ;;
            mpt,mailbox)
                cmd="mpt__subcmd__mailbox"
                ;;
            mpt,man)
                cmd="mpt__subcmd__man"
                ;;
            mpt,outbox)
                cmd="mpt__subcmd__outbox"
                ;;
            mpt,paths)
                cmd="mpt__subcmd__paths"
                ;;
            mpt,runbook)
                cmd="mpt__subcmd__runbook"
                ;;
            mpt,token)
                cmd="mpt__subcmd__token"
                ;;
            mpt__subcmd__edge,help)
                cmd="mpt__subcmd__edge__subcmd__help"
                ;;
            mpt__subcmd__edge,status)
                cmd="mpt__subcmd__edge__subcmd__status"
                ;;
            mpt__subcmd__edge,stop)
                cmd="mpt__subcmd__edge__subcmd__stop"
                ;;
            mpt__subcmd__edge,wire)
                cmd="mpt__subcmd__edge__subcmd__wire"
                ;;
            mpt__subcmd__edge__subcmd__help,help)
                cmd="mpt__subcmd__edge__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__edge__subcmd__help,status)
                cmd="mpt__subcmd__edge__subcmd__help__subcmd__status"
                ;;
            mpt__subcmd__edge__subcmd__help,stop)
                cmd="mpt__subcmd__edge__subcmd__help__subcmd__stop"
                ;;
            mpt__subcmd__edge__subcmd__help,wire)
                cmd="mpt__subcmd__edge__subcmd__help__subcmd__wire"
                ;;
            mpt__subcmd__feed,help)
                cmd="mpt__subcmd__feed__subcmd__help"
                ;;
            mpt__subcmd__feed,install-helper)
                cmd="mpt__subcmd__feed__subcmd__install__subcmd__helper"
                ;;
            mpt__subcmd__feed,mine)
                cmd="mpt__subcmd__feed__subcmd__mine"
                ;;
            mpt__subcmd__feed,prepare)
                cmd="mpt__subcmd__feed__subcmd__prepare"
                ;;
            mpt__subcmd__feed__subcmd__help,help)
                cmd="mpt__subcmd__feed__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__feed__subcmd__help,install-helper)
                cmd="mpt__subcmd__feed__subcmd__help__subcmd__install__subcmd__helper"
                ;;
            mpt__subcmd__feed__subcmd__help,mine)
                cmd="mpt__subcmd__feed__subcmd__help__subcmd__mine"
                ;;
            mpt__subcmd__feed__subcmd__help,prepare)
                cmd="mpt__subcmd__feed__subcmd__help__subcmd__prepare"
                ;;
            mpt__subcmd__gateway,audit)
                cmd="mpt__subcmd__gateway__subcmd__audit"
                ;;
            mpt__subcmd__gateway,help)
                cmd="mpt__subcmd__gateway__subcmd__help"
                ;;
            mpt__subcmd__gateway,invite)
                cmd="mpt__subcmd__gateway__subcmd__invite"
                ;;
            mpt__subcmd__gateway,policy)
                cmd="mpt__subcmd__gateway__subcmd__policy"
                ;;
            mpt__subcmd__gateway,serve)
                cmd="mpt__subcmd__gateway__subcmd__serve"
                ;;
            mpt__subcmd__gateway,token)
                cmd="mpt__subcmd__gateway__subcmd__token"
                ;;
            mpt__subcmd__gateway__subcmd__audit,help)
                cmd="mpt__subcmd__gateway__subcmd__audit__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__audit,verify)
                cmd="mpt__subcmd__gateway__subcmd__audit__subcmd__verify"
                ;;
            mpt__subcmd__gateway__subcmd__audit__subcmd__help,help)
                cmd="mpt__subcmd__gateway__subcmd__audit__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__audit__subcmd__help,verify)
                cmd="mpt__subcmd__gateway__subcmd__audit__subcmd__help__subcmd__verify"
                ;;
            mpt__subcmd__gateway__subcmd__help,audit)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__audit"
                ;;
            mpt__subcmd__gateway__subcmd__help,help)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__help,invite)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__invite"
                ;;
            mpt__subcmd__gateway__subcmd__help,policy)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__policy"
                ;;
            mpt__subcmd__gateway__subcmd__help,serve)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__serve"
                ;;
            mpt__subcmd__gateway__subcmd__help,token)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__token"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__audit,verify)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__audit__subcmd__verify"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__policy,check)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__policy__subcmd__check"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__policy,explain)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__policy__subcmd__explain"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__token,issue)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__issue"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__token,list)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__list"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__token,revoke)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__revoke"
                ;;
            mpt__subcmd__gateway__subcmd__help__subcmd__token,rotate)
                cmd="mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__rotate"
                ;;
            mpt__subcmd__gateway__subcmd__policy,check)
                cmd="mpt__subcmd__gateway__subcmd__policy__subcmd__check"
                ;;
            mpt__subcmd__gateway__subcmd__policy,explain)
                cmd="mpt__subcmd__gateway__subcmd__policy__subcmd__explain"
                ;;
            mpt__subcmd__gateway__subcmd__policy,help)
                cmd="mpt__subcmd__gateway__subcmd__policy__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__policy__subcmd__help,check)
                cmd="mpt__subcmd__gateway__subcmd__policy__subcmd__help__subcmd__check"
                ;;
            mpt__subcmd__gateway__subcmd__policy__subcmd__help,explain)
                cmd="mpt__subcmd__gateway__subcmd__policy__subcmd__help__subcmd__explain"
                ;;
            mpt__subcmd__gateway__subcmd__policy__subcmd__help,help)
                cmd="mpt__subcmd__gateway__subcmd__policy__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__token,help)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__token,issue)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__issue"
                ;;
            mpt__subcmd__gateway__subcmd__token,list)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__list"
                ;;
            mpt__subcmd__gateway__subcmd__token,revoke)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__revoke"
                ;;
            mpt__subcmd__gateway__subcmd__token,rotate)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__rotate"
                ;;
            mpt__subcmd__gateway__subcmd__token__subcmd__help,help)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__gateway__subcmd__token__subcmd__help,issue)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__issue"
                ;;
            mpt__subcmd__gateway__subcmd__token__subcmd__help,list)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__list"
                ;;
            mpt__subcmd__gateway__subcmd__token__subcmd__help,revoke)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__revoke"
                ;;
            mpt__subcmd__gateway__subcmd__token__subcmd__help,rotate)
                cmd="mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__rotate"
                ;;
            mpt__subcmd__help,call)
                cmd="mpt__subcmd__help__subcmd__call"
                ;;
            mpt__subcmd__help,completions)
                cmd="mpt__subcmd__help__subcmd__completions"
                ;;
            mpt__subcmd__help,config)
                cmd="mpt__subcmd__help__subcmd__config"
                ;;
            mpt__subcmd__help,doctor)
                cmd="mpt__subcmd__help__subcmd__doctor"
                ;;
            mpt__subcmd__help,edge)
                cmd="mpt__subcmd__help__subcmd__edge"
                ;;
            mpt__subcmd__help,feed)
                cmd="mpt__subcmd__help__subcmd__feed"
                ;;
            mpt__subcmd__help,gateway)
                cmd="mpt__subcmd__help__subcmd__gateway"
                ;;
            mpt__subcmd__help,help)
                cmd="mpt__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__help,join)
                cmd="mpt__subcmd__help__subcmd__join"
                ;;
            mpt__subcmd__help,mailbox)
                cmd="mpt__subcmd__help__subcmd__mailbox"
                ;;
            mpt__subcmd__help,man)
                cmd="mpt__subcmd__help__subcmd__man"
                ;;
            mpt__subcmd__help,outbox)
                cmd="mpt__subcmd__help__subcmd__outbox"
                ;;
            mpt__subcmd__help,paths)
                cmd="mpt__subcmd__help__subcmd__paths"
                ;;
            mpt__subcmd__help,runbook)
                cmd="mpt__subcmd__help__subcmd__runbook"
                ;;
            mpt__subcmd__help,token)
                cmd="mpt__subcmd__help__subcmd__token"
                ;;
            mpt__subcmd__help__subcmd__edge,status)
                cmd="mpt__subcmd__help__subcmd__edge__subcmd__status"
                ;;
            mpt__subcmd__help__subcmd__edge,stop)
                cmd="mpt__subcmd__help__subcmd__edge__subcmd__stop"
                ;;
            mpt__subcmd__help__subcmd__edge,wire)
                cmd="mpt__subcmd__help__subcmd__edge__subcmd__wire"
                ;;
            mpt__subcmd__help__subcmd__feed,install-helper)
                cmd="mpt__subcmd__help__subcmd__feed__subcmd__install__subcmd__helper"
                ;;
            mpt__subcmd__help__subcmd__feed,mine)
                cmd="mpt__subcmd__help__subcmd__feed__subcmd__mine"
                ;;
            mpt__subcmd__help__subcmd__feed,prepare)
                cmd="mpt__subcmd__help__subcmd__feed__subcmd__prepare"
                ;;
            mpt__subcmd__help__subcmd__gateway,audit)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__audit"
                ;;
            mpt__subcmd__help__subcmd__gateway,invite)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__invite"
                ;;
            mpt__subcmd__help__subcmd__gateway,policy)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__policy"
                ;;
            mpt__subcmd__help__subcmd__gateway,serve)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__serve"
                ;;
            mpt__subcmd__help__subcmd__gateway,token)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__token"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__audit,verify)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__audit__subcmd__verify"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__policy,check)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__policy__subcmd__check"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__policy,explain)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__policy__subcmd__explain"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__token,issue)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__issue"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__token,list)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__list"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__token,revoke)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__revoke"
                ;;
            mpt__subcmd__help__subcmd__gateway__subcmd__token,rotate)
                cmd="mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__rotate"
                ;;
            mpt__subcmd__help__subcmd__mailbox,ack)
                cmd="mpt__subcmd__help__subcmd__mailbox__subcmd__ack"
                ;;
            mpt__subcmd__help__subcmd__mailbox,notify)
                cmd="mpt__subcmd__help__subcmd__mailbox__subcmd__notify"
                ;;
            mpt__subcmd__help__subcmd__mailbox,watch)
                cmd="mpt__subcmd__help__subcmd__mailbox__subcmd__watch"
                ;;
            mpt__subcmd__help__subcmd__outbox,backfill)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__backfill"
                ;;
            mpt__subcmd__help__subcmd__outbox,drop)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__drop"
                ;;
            mpt__subcmd__help__subcmd__outbox,enqueue)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__enqueue"
                ;;
            mpt__subcmd__help__subcmd__outbox,flush)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__flush"
                ;;
            mpt__subcmd__help__subcmd__outbox,list)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__list"
                ;;
            mpt__subcmd__help__subcmd__outbox,purge)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__purge"
                ;;
            mpt__subcmd__help__subcmd__outbox,retry)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__retry"
                ;;
            mpt__subcmd__help__subcmd__outbox,show)
                cmd="mpt__subcmd__help__subcmd__outbox__subcmd__show"
                ;;
            mpt__subcmd__help__subcmd__runbook,apply)
                cmd="mpt__subcmd__help__subcmd__runbook__subcmd__apply"
                ;;
            mpt__subcmd__help__subcmd__token,header)
                cmd="mpt__subcmd__help__subcmd__token__subcmd__header"
                ;;
            mpt__subcmd__mailbox,ack)
                cmd="mpt__subcmd__mailbox__subcmd__ack"
                ;;
            mpt__subcmd__mailbox,help)
                cmd="mpt__subcmd__mailbox__subcmd__help"
                ;;
            mpt__subcmd__mailbox,notify)
                cmd="mpt__subcmd__mailbox__subcmd__notify"
                ;;
            mpt__subcmd__mailbox,watch)
                cmd="mpt__subcmd__mailbox__subcmd__watch"
                ;;
            mpt__subcmd__mailbox__subcmd__help,ack)
                cmd="mpt__subcmd__mailbox__subcmd__help__subcmd__ack"
                ;;
            mpt__subcmd__mailbox__subcmd__help,help)
                cmd="mpt__subcmd__mailbox__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__mailbox__subcmd__help,notify)
                cmd="mpt__subcmd__mailbox__subcmd__help__subcmd__notify"
                ;;
            mpt__subcmd__mailbox__subcmd__help,watch)
                cmd="mpt__subcmd__mailbox__subcmd__help__subcmd__watch"
                ;;
            mpt__subcmd__outbox,backfill)
                cmd="mpt__subcmd__outbox__subcmd__backfill"
                ;;
            mpt__subcmd__outbox,drop)
                cmd="mpt__subcmd__outbox__subcmd__drop"
                ;;
            mpt__subcmd__outbox,enqueue)
                cmd="mpt__subcmd__outbox__subcmd__enqueue"
                ;;
            mpt__subcmd__outbox,flush)
                cmd="mpt__subcmd__outbox__subcmd__flush"
                ;;
            mpt__subcmd__outbox,help)
                cmd="mpt__subcmd__outbox__subcmd__help"
                ;;
            mpt__subcmd__outbox,list)
                cmd="mpt__subcmd__outbox__subcmd__list"
                ;;
            mpt__subcmd__outbox,purge)
                cmd="mpt__subcmd__outbox__subcmd__purge"
                ;;
            mpt__subcmd__outbox,retry)
                cmd="mpt__subcmd__outbox__subcmd__retry"
                ;;
            mpt__subcmd__outbox,show)
                cmd="mpt__subcmd__outbox__subcmd__show"
                ;;
            mpt__subcmd__outbox__subcmd__help,backfill)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__backfill"
                ;;
            mpt__subcmd__outbox__subcmd__help,drop)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__drop"
                ;;
            mpt__subcmd__outbox__subcmd__help,enqueue)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__enqueue"
                ;;
            mpt__subcmd__outbox__subcmd__help,flush)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__flush"
                ;;
            mpt__subcmd__outbox__subcmd__help,help)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__outbox__subcmd__help,list)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__list"
                ;;
            mpt__subcmd__outbox__subcmd__help,purge)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__purge"
                ;;
            mpt__subcmd__outbox__subcmd__help,retry)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__retry"
                ;;
            mpt__subcmd__outbox__subcmd__help,show)
                cmd="mpt__subcmd__outbox__subcmd__help__subcmd__show"
                ;;
            mpt__subcmd__runbook,apply)
                cmd="mpt__subcmd__runbook__subcmd__apply"
                ;;
            mpt__subcmd__runbook,help)
                cmd="mpt__subcmd__runbook__subcmd__help"
                ;;
            mpt__subcmd__runbook__subcmd__help,apply)
                cmd="mpt__subcmd__runbook__subcmd__help__subcmd__apply"
                ;;
            mpt__subcmd__runbook__subcmd__help,help)
                cmd="mpt__subcmd__runbook__subcmd__help__subcmd__help"
                ;;
            mpt__subcmd__token,header)
                cmd="mpt__subcmd__token__subcmd__header"
                ;;
            mpt__subcmd__token,help)
                cmd="mpt__subcmd__token__subcmd__help"
                ;;
            mpt__subcmd__token__subcmd__help,header)
                cmd="mpt__subcmd__token__subcmd__help__subcmd__header"
                ;;
            mpt__subcmd__token__subcmd__help,help)
                cmd="mpt__subcmd__token__subcmd__help__subcmd__help"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        mpt)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__call)
            opts="-q -v -h -V --list --timeout-ms --palace --child --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --timeout-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --child)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__completions)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__config)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__doctor)
            opts="-q -v -h -V --offline --check --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --check)
                    COMPREPLY=($(compgen -W "extension config transport half-flip false-positive kg-path embedder writers outbox pull mailbox gateway" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge)
            opts="-q -v -h -V --child --palace --harness --standalone --owner --json --quiet --verbose --color --mpt-config --help --version status stop wire help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --child)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --harness)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__help)
            opts="status stop wire help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__help__subcmd__stop)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__help__subcmd__wire)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__status)
            opts="-q -v -h -V --child --palace --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --child)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__stop)
            opts="-q -v -h -V --child --palace --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --child)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__edge__subcmd__wire)
            opts="-q -v -h -V --config --dry-run --scope --all-scopes --hooks --remove-hooks --replace-mempalace-hooks --child --palace --json --quiet --verbose --color --mpt-config --help --version opencode pi claude codex"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scope)
                    COMPREPLY=($(compgen -W "user project" -- "${cur}"))
                    return 0
                    ;;
                --child)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version prepare mine install-helper help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__help)
            opts="prepare mine install-helper help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__help__subcmd__install__subcmd__helper)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__help__subcmd__mine)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__help__subcmd__prepare)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__install__subcmd__helper)
            opts="-q -v -h -V --force --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__mine)
            opts="-q -v -h -V --reason --wait --palace --harness --wing --sessions --out --min-user-turns --min-chars --quiet-period-ms --include-subagents --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wait)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --harness)
                    COMPREPLY=($(compgen -W "pi opencode claude codex" -- "${cur}"))
                    return 0
                    ;;
                --wing)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sessions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-user-turns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-chars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --quiet-period-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__feed__subcmd__prepare)
            opts="-q -v -h -V --reason --harness --wing --sessions --out --min-user-turns --min-chars --quiet-period-ms --include-subagents --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --harness)
                    COMPREPLY=($(compgen -W "pi opencode claude codex" -- "${cur}"))
                    return 0
                    ;;
                --wing)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sessions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-user-turns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-chars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --quiet-period-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version serve token invite audit policy help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__audit)
            opts="-q -v -h -V --device --denied --since --limit --json --quiet --verbose --color --mpt-config --help --version verify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__audit__subcmd__help)
            opts="verify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__audit__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__audit__subcmd__help__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__audit__subcmd__verify)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help)
            opts="serve token invite audit policy help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__audit)
            opts="verify"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__audit__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__invite)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__policy)
            opts="check explain"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__policy__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__policy__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__token)
            opts="issue list rotate revoke"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__issue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__revoke)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__help__subcmd__token__subcmd__rotate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__invite)
            opts="-q -v -h -V --role --wings --expires --valid --url --out --force --revoke --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --role)
                    COMPREPLY=($(compgen -W "member observer admin" -- "${cur}"))
                    return 0
                    ;;
                --wings)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expires)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --valid)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version check explain help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy__subcmd__check)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy__subcmd__explain)
            opts="-q -v -h -V --current-wing --policy --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --current-wing)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --policy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy__subcmd__help)
            opts="check explain help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__policy__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__serve)
            opts="-q -v -h -V --listen --upstream --tls-cert --tls-key --allow-insecure --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --upstream)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version issue list rotate revoke help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__help)
            opts="issue list rotate revoke help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__issue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__revoke)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__help__subcmd__rotate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__issue)
            opts="-q -v -h -V --expires --out --force --env-file --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --expires)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__list)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__revoke)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__gateway__subcmd__token__subcmd__rotate)
            opts="-q -v -h -V --overlap --expires --out --force --env-file --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --overlap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expires)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help)
            opts="doctor edge runbook call config paths mailbox feed outbox gateway join token completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__call)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__config)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__doctor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__edge)
            opts="status stop wire"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__edge__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__edge__subcmd__stop)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__edge__subcmd__wire)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__feed)
            opts="prepare mine install-helper"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__feed__subcmd__install__subcmd__helper)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__feed__subcmd__mine)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__feed__subcmd__prepare)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway)
            opts="serve token invite audit policy"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__audit)
            opts="verify"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__audit__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__invite)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__policy)
            opts="check explain"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__policy__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__policy__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__token)
            opts="issue list rotate revoke"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__issue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__revoke)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__gateway__subcmd__token__subcmd__rotate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__join)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__mailbox)
            opts="watch ack notify"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__mailbox__subcmd__ack)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__mailbox__subcmd__notify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__mailbox__subcmd__watch)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox)
            opts="list show enqueue flush retry drop purge backfill"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__backfill)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__drop)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__enqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__flush)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__purge)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__retry)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__outbox__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__paths)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__runbook)
            opts="apply"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__runbook__subcmd__apply)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__token)
            opts="header"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__help__subcmd__token__subcmd__header)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__join)
            opts="-q -v -h -V --code-file --ca-sha256 --ca-file --yes --allow-insecure --no-wire --no-timer --leave --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --code-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-sha256)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox)
            opts="-q -v -h -V --as --count --json --quiet --verbose --color --mpt-config --help --version watch ack notify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__ack)
            opts="-q -v -h -V --status --body --as --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --status)
                    COMPREPLY=($(compgen -W "applied failed blocked superseded" -- "${cur}"))
                    return 0
                    ;;
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__help)
            opts="watch ack notify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__help__subcmd__ack)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__help__subcmd__notify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__help__subcmd__watch)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__notify)
            opts="-q -v -h -V --test --as --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__mailbox__subcmd__watch)
            opts="-q -v -h -V --interval-ms --max-polls --poll --as --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interval-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-polls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__man)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version list show enqueue flush retry drop purge backfill help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__backfill)
            opts="-q -v -h -V --palace --wing --since --dry-run --yes --include-dropped --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wing)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__drop)
            opts="-q -v -h -V --yes --reason --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__enqueue)
            opts="-q -v -h -V --dedupe-key --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dedupe-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__flush)
            opts="-q -v -h -V --limit --deadline --wait --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help)
            opts="list show enqueue flush retry drop purge backfill help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__backfill)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__drop)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__enqueue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__flush)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__purge)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__retry)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__list)
            opts="-q -v -h -V --state --limit --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --state)
                    COMPREPLY=($(compgen -W "open queued leased done failed dropped all" -- "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__purge)
            opts="-q -v -h -V --older-than --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__retry)
            opts="-q -v -h -V --failed --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__outbox__subcmd__show)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__paths)
            opts="-q -v -h -V --palace --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__runbook)
            opts="-q -v -h -V --scan --serve-cmd --device --bind-ok --palace --json --quiet --verbose --color --mpt-config --help --version phase0 phase1 phase2 phase4 apply help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scan)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --serve-cmd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bind-ok)
                    COMPREPLY=($(compgen -W "loopback lan" -- "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__runbook__subcmd__apply)
            opts="-q -v -h -V --yes --scan --serve-cmd --device --bind-ok --palace --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scan)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --serve-cmd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bind-ok)
                    COMPREPLY=($(compgen -W "loopback lan" -- "${cur}"))
                    return 0
                    ;;
                --palace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__runbook__subcmd__help)
            opts="apply help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__runbook__subcmd__help__subcmd__apply)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__runbook__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__token)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version header help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__token__subcmd__header)
            opts="-q -v -h -V --json --quiet --verbose --color --mpt-config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --mpt-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__token__subcmd__help)
            opts="header help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__token__subcmd__help__subcmd__header)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        mpt__subcmd__token__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _mpt -o nosort -o bashdefault -o default mpt
else
    complete -F _mpt -o bashdefault -o default mpt
fi
