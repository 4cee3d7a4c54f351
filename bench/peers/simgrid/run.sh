#!/usr/bin/env bash
# Measures macepc's simulator against SimGrid in the same run, as a ratio of
# message deliveries per wall second, on one core. See README.md.
#
# Usage: bench/peers/simgrid/run.sh
#
# Environment (all optional):
#   M=1000000          message deliveries per run, ping-pong (same for every P)
#   CHORD_M=500000     message deliveries per run, Chord-like lookups
#   PAIRS="10 1000 10000"   ping-pong sizes P (2P hosts/nodes)
#   NODES="1000 10000"      Chord sizes N ("" skips the Chord workload)
#   REPS=3             runs of each configuration; the table shows the median
#   MODELS="CM02 Constant"  SimGrid network models, one column each
#   EXEC=1             SimGrid handlers also compute 1-10 ms (macepc's
#                      default handler durations; see README.md)
#   MACEPC_FLAGS=-warm time macepc's second execution instead of its first
#   MACEPC_BASE=path   also run this macepc peer binary (e.g. built from an
#                      earlier commit: go build ./bench/peers/simgrid/macepc),
#                      interleaved with the others, as a column of its own
#   BUILD=dir          where binaries and raw results go
#                      (default ${TMPDIR:-/tmp}/macepc-simgrid-peer)
#
# It installs nothing: if a tool is missing it says what to install and
# exits with status 1.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
M=${M:-1000000}
CHORD_M=${CHORD_M:-500000}
PAIRS=${PAIRS-10 1000 10000}
NODES=${NODES-1000 10000}
REPS=${REPS:-3}
MODELS=${MODELS:-CM02 Constant}
EXEC=${EXEC:-0}
MACEPC_FLAGS=${MACEPC_FLAGS:-}
BUILD=${BUILD:-${TMPDIR:-/tmp}/macepc-simgrid-peer}
MACEPC_BASE=${MACEPC_BASE:-}

# --- prerequisites -----------------------------------------------------------
missing=()
GO=$(command -v go || true)
[ -z "$GO" ] && [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go
[ -z "$GO" ] && { echo "run.sh: the Go toolchain (go) is not on PATH nor in /usr/local/go/bin" >&2; exit 1; }
command -v g++ >/dev/null || missing+=(g++)
sg_ok=0
if command -v pkg-config >/dev/null; then
	if pkg-config --exists simgrid &&
		[ -f "$(pkg-config --variable=includedir simgrid)/simgrid/s4u.hpp" ] &&
		[ -e "$(pkg-config --variable=libdir simgrid)/libsimgrid.so" ]; then
		sg_ok=1
	fi
else
	missing+=(pkg-config)
	# Without pkg-config, look in the usual place to name what is missing.
	[ -f /usr/include/simgrid/s4u.hpp ] && compgen -G "/usr/lib/*/libsimgrid.so" >/dev/null && sg_ok=1
fi
[ $sg_ok = 1 ] || missing+=(libsimgrid-dev)
if [ ${#missing[@]} -gt 0 ]; then
	echo "run.sh: missing: ${missing[*]}" >&2
	echo "install with:  apt-get update && apt-get install -y ${missing[*]}" >&2
	exit 1
fi
sgver=$(pkg-config --modversion simgrid)
if [ -n "$MACEPC_BASE" ] && [ ! -x "$MACEPC_BASE" ]; then
	echo "run.sh: MACEPC_BASE=$MACEPC_BASE is not an executable" >&2
	exit 1
fi
# /usr/bin/time (Debian: time) gives each process's CPU seconds, for a
# second table; without it that table is left out.
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f 'cpu_s=%U+%S')

# --- build -------------------------------------------------------------------
mkdir -p "$BUILD"
raw="$BUILD/raw.txt"
: >"$raw"
sgflags=$(pkg-config --cflags --libs simgrid)
for prog in pingpong chord; do
	# shellcheck disable=SC2086 # sgflags is a list of flags
	if ! g++ -O2 -std=c++17 -o "$BUILD/${prog}_sg" "$here/$prog.cpp" $sgflags; then
		echo "run.sh: building $prog.cpp against SimGrid $sgver failed (is libsimgrid-dev complete? apt-get install -y libsimgrid-dev)" >&2
		exit 1
	fi
done
(cd "$root" && "$GO" build -o "$BUILD/macepc" ./bench/peers/simgrid/macepc)

# --- runs --------------------------------------------------------------------
common=(--log=root.thres:critical --cfg=contexts/stack-size:64)
model_cfg() { # SimGrid options of a network model
	case $1 in
	Constant) echo "--cfg=network/model:Constant --cfg=network/latency-factor:0.001" ;;
	CM02 | LV08) echo "--cfg=network/model:$1 --cfg=network/crosstraffic:0" ;;
	*) echo "--cfg=network/model:$1" ;;
	esac
}
exec_arg=()
[ "$EXEC" = 1 ] && exec_arg=(exec)

rate() { sed -n 's/.*msgs_per_s=\([0-9.]*\).*/\1/p'; }
# cpurate: messages per CPU second (user + system) of the whole process,
# set-up included.
cpurate() {
	local m c
	m=$(sed -n 's/.* messages=\([0-9]*\).*/\1/p' | head -1)
	c=$(sed -n 's/.*cpu_s=\([0-9.]*\)+\([0-9.]*\).*/\1 \2/p' <<<"$out" | tail -1)
	[ -n "$m" ] && [ -n "$c" ] && awk -v m="$m" -v c="$c" 'BEGIN { split(c, a, " "); t = a[1] + a[2]; if (t > 0) printf "%.0f", m / t }'
}
median() { tr ' ' '\n' | { grep . || true; } | sort -g | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

declare -A rates cpurates
run_one() { # key command...: runs it, records the rates under key
	local key=$1 out
	shift
	if ! out=$("${timer[@]}" "$@" 2>&1); then
		echo "run.sh: failed: $*" >&2
		echo "$out" >&2
		exit 1
	fi
	echo "$out" | tr '\n' ' ' >>"$raw"
	echo >>"$raw"
	rates[$key]="${rates[$key]:-} $(rate <<<"$out")"
	cpurates[$key]="${cpurates[$key]:-} $(cpurate <<<"$out")"
}

configs=()
for p in $PAIRS; do configs+=("pingpong $p $M"); done
for n in $NODES; do configs+=("chord $n $CHORD_M"); done

echo "SimGrid $sgver vs macepc, $REPS run(s) per configuration (median shown); raw output in $raw" >&2
for cfg in "${configs[@]}"; do
	read -r wl size msgs <<<"$cfg"
	for ((r = 1; r <= REPS; r++)); do
		echo "  $wl size=$size M=$msgs run $r/$REPS" >&2
		for model in $MODELS; do
			# shellcheck disable=SC2046 # model_cfg is a list of options
			run_one "$cfg sg $model" "$BUILD/${wl}_sg" "${common[@]}" $(model_cfg "$model") "$size" "$msgs" "${exec_arg[@]}"
		done
		# shellcheck disable=SC2086 # MACEPC_FLAGS is a list of flags
		run_one "$cfg macepc" "$BUILD/macepc" -workload "$wl" -size "$size" -messages "$msgs" $MACEPC_FLAGS
		if [ -n "$MACEPC_BASE" ]; then
			# shellcheck disable=SC2086 # MACEPC_FLAGS is a list of flags
			run_one "$cfg base" "$MACEPC_BASE" -workload "$wl" -size "$size" -messages "$msgs" $MACEPC_FLAGS
		fi
	done
done

# --- table -------------------------------------------------------------------
fmt() { awk -v x="$1" 'BEGIN { if (x >= 1e6) printf "%.2f M", x/1e6; else printf "%.0f k", x/1e3 }'; }
exec_note=""
[ "$EXEC" = 1 ] && exec_note=" (exec: handlers compute 1-10 ms)"
# table name: prints the table of medians of rates (or cpurates)
table() {
	local -n rs=$1
	local header="| workload | size | M |" rule="|---|---:|---:|" model cfg wl size msgs line ratios sg mp who
	local whos=(macepc)
	[ -n "$MACEPC_BASE" ] && whos=(base macepc)
	for model in $MODELS; do header+=" SimGrid $model |"; rule+="---:|"; done
	for who in "${whos[@]}"; do header+=" $who |"; rule+="---:|"; done
	for who in "${whos[@]}"; do
		for model in $MODELS; do header+=" $who vs $model |"; rule+="---:|"; done
	done
	echo "$header"
	echo "$rule"
	for cfg in "${configs[@]}"; do
		read -r wl size msgs <<<"$cfg"
		line="| $wl | $size | $msgs |"
		ratios=""
		for model in $MODELS; do line+=" $(fmt "$(median <<<"${rs[$cfg sg $model]}")") |"; done
		for who in "${whos[@]}"; do
			mp=$(median <<<"${rs[$cfg $who]}")
			line+=" $(fmt "$mp") |"
			for model in $MODELS; do
				sg=$(median <<<"${rs[$cfg sg $model]}")
				ratios+=" $(awk -v a="$mp" -v b="$sg" 'BEGIN { printf "%.1f×", a/b }') |"
			done
		done
		echo "$line$ratios"
	done
}
echo
echo "messages/s, median of $REPS; SimGrid $sgver$exec_note; macepc ${MACEPC_FLAGS:-cold}; size = P pairs (ping-pong) or N nodes (chord)${MACEPC_BASE:+; base = $MACEPC_BASE}"
table rates
if [ ${#timer[@]} -gt 0 ]; then
	echo
	echo "messages per CPU second (user + system) of the whole process, set-up included, median of $REPS"
	table cpurates
fi
