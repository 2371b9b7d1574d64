#!/usr/bin/env bash
# A/B: perfcap pprof before (one extra walk for --labels comm) and after
# (the COMM walk folded into the maps walk), interleaved, same recording.
set -euo pipefail
OLD=$1 NEW=$2 REC=$3 REPS=${4:-5} OUT=${5:-/tmp/ab}
echo "rep,binary,wall_s,cpu_s,maxrss_kb,bytes"
for r in $(seq 1 "$REPS"); do
	for b in old new; do
		bin=$OLD; [ $b = new ] && bin=$NEW
		/usr/bin/time -f "%e %U %S %M" -o "$OUT/t" taskset -c "${PIN:-0}" "$bin" pprof -i "$REC" -o "$OUT/$b.pb.gz" >/dev/null 2>&1
		read -r wall u s rss <"$OUT/t"
		echo "$r,$b,$wall,$(echo "$u + $s" | bc),$rss,$(stat -c %s "$OUT/$b.pb.gz")"
	done
done
