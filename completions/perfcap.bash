# SPDX-License-Identifier: GPL-2.0
# bash completion for perfcap.
#
# The commands and each command's options are read from the installed
# binary's own --help output (once per shell, then cached), so this file
# never goes stale when an option is added to src/options.c.

# _perfcap_help CMD: "perfcap CMD --help" (CMD empty: "perfcap --help"), cached.
_perfcap_help()
{
	local key=${1:-_top} var
	var=_perfcap_help_cache_${key//[^a-zA-Z0-9]/_}
	if [[ -z ${!var+set} ]]; then
		local bin=${_perfcap_bin:-perfcap}
		printf -v "$var" '%s' "$("$bin" ${1:+"$1"} --help 2>&1)"
	fi
	printf '%s\n' "${!var}"
}

# The commands: lines "  name   description" of perfcap --help.
_perfcap_commands()
{
	_perfcap_help "" | sed -nE 's/^  ([a-z][a-z-]*)  +[a-z].*/\1/p'
}

# The option column of CMD's help: "-o, --output <file>", "--aio[=<n>]", "-g".
_perfcap_option_specs()
{
	_perfcap_help "$1" | sed -nE 's/^ +(-.*)/\1/p' | sed -E 's/   *.*//'
}

# Every option of CMD: "-a", "--all-cpus", "--aio=" (optional value).
_perfcap_options()
{
	_perfcap_option_specs "$1" | grep -oE -- '--?[a-zA-Z][a-zA-Z-]*(\[=)?' |
		sed -E 's/\[=$/=/' | sort -u
}

# Does option $2 of command $1 take a value ("-o <file>", "--writer <backend>")?
_perfcap_takes_value()
{
	[[ $2 == -* ]] && _perfcap_option_specs "$1" | grep -qE -- "(^|, )$2(,| ).*<"
}

_perfcap()
{
	local cur prev words cword split
	if declare -F _init_completion >/dev/null; then
		# -s: "--writer=ur" comes as prev "--writer", cur "ur".
		_init_completion -s || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
		# bash splits "--writer=ur" into "--writer" "=" "ur".
		if [[ $prev == = ]] && ((cword >= 2)); then
			prev=${words[cword - 2]}
		elif [[ $cur == = ]]; then
			prev=${words[cword - 1]} cur=
		fi
	fi
	local _perfcap_bin=${words[0]}

	# The command: the first word after perfcap.
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$(_perfcap_commands) --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]} i

	# After "--" or a command to run (record): complete that command.
	if [[ $cmd == record ]]; then
		for ((i = 2; i < cword; i++)); do
			# "--", or a word that is neither an option nor an option's value.
			if [[ ${words[i]} == -- ]] ||
			   { [[ ${words[i]} != -* ]] && ! _perfcap_takes_value record "${words[i - 1]}"; }; then
				[[ ${words[i]} == -- ]] && ((i++))
				if declare -F _command_offset >/dev/null; then
					_command_offset "$i"
				elif ((i == cword)); then
					COMPREPLY=($(compgen -c -- "$cur"))
				else
					COMPREPLY=($(compgen -f -- "$cur"))
				fi
				return
			fi
		done
	fi

	# The value of an option.
	case $cmd:$prev in
	record:-o | record:--output | loss:-i | loss:--input | dump:-i | dump:--input)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return ;;
	record:--writer)
		COMPREPLY=($(compgen -W "$(_perfcap_help record |
			sed -nE 's/.*--writer <[a-z]+> *//p' | grep -oE '(^|, )[a-z]+' |
			tr -d ', ')" -- "$cur"))
		return ;;
	record:--call-graph)
		COMPREPLY=($(compgen -W "fp dwarf dwarf," -- "$cur"))
		return ;;
	record:-e | record:--event)
		local tp=
		for tp in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[[ -r $tp/available_events ]] && break
		done
		COMPREPLY=($(compgen -W "cpu-clock task-clock cycles instructions cache-misses
			branch-misses context-switches page-faults
			$([[ -r $tp/available_events ]] && tr ':' ':' <"$tp/available_events")" \
			-- "$cur"))
		__ltrim_colon_completions "$cur" 2>/dev/null
		return ;;
	record:-p | record:--pid)
		COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur"))
		return ;;
	record:-C | record:--cpu | record:-t | record:--tid | record:-c | record:--count | \
	record:-F | record:--freq | record:-m | record:--mmap-pages | record:-r | record:--realtime)
		return ;;
	test:-w | test:--workload)
		COMPREPLY=($(compgen -W "spin" -- "$cur"))
		return ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_perfcap_options "$cmd")" -- "$cur"))
		[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	case $cmd in
	record)
		# Not an option: the command to record.
		COMPREPLY=($(compgen -c -- "$cur")) ;;
	loss | dump)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null ;;
	test)
		COMPREPLY=($(compgen -W "$("$_perfcap_bin" test -l 2>/dev/null |
			sed -nE 's/^ *([0-9]+):.*/\1/p')" -- "$cur")) ;;
	esac
}
complete -F _perfcap perfcap
