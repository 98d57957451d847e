#!/usr/bin/env bash
# mf-bench/verdicts.sh: the release set of benchmarks as pooled forks, and its verdicts with 95% bootstrap intervals.
#
# Each step below runs in three interleaved rounds (round 1 of every step, then round 2, then round 3), each round 3
# forks of 3 x 1 s warm-up and 5 x 1 s measurement with -prof gc: 9 forks per row, pooled so that one JVM's placement
# mode cannot decide a verdict. A verdict is "met" when the whole 95% interval is within the goal, "failed" when the
# whole interval is beyond it, else "inconclusive". Run it on a quiet machine (nothing else building or testing): a
# step waits up to --wait seconds for the 1-minute load average to fall under 1.5, and a step that still starts at or
# above 1.5 marks its rows "busy" in the report (their figures decide nothing).
#
# Usage (from the repository root):
#   mf-bench/verdicts.sh [--only REGEX] [--base JAR] [--rounds 3] [--forks 3] [--out DIR] [--no-build] [--wait 300]
#     --only REGEX  run only the steps whose name matches (steps: select counting servers variants ejection
#                   prefix session eligibility inflight refresh parse threads blocks); the report says "not run" for the other goals
#     --base JAR    also run a baseline benchmarks.jar (for example one built from the previous commit) in the same
#                   rounds, and print every row's time against it: "nothing got slower beyond the interval"
#     --base-steps REGEX  run the baseline jar only in the steps whose name matches (default: every step run)
#     --out DIR     where the JMH results, steps.tsv and report.md go (default mf-bench/target/verdicts-DATE)
# The whole release set takes about 90 minutes (about 10 s per row per fork); the select step alone about 15.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/mf-bench/target/benchmarks.jar"
only="" base="" base_steps="" rounds=3 forks=3 out="" build=1 wait_s=300
while [[ $# -gt 0 ]]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    --base) base="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --base-steps) base_steps="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --forks) forks="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --wait) wait_s="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "verdicts.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -z "$base" || -f "$base" ]] || { echo "verdicts.sh: --base $base: no such jar" >&2; exit 2; }
out="${out:-$root/mf-bench/target/verdicts-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"

if [[ $build -eq 1 ]]; then
  echo "verdicts.sh: building benchmarks.jar (log: $out/build.log)..." >&2
  mvn -B -q -f "$root/pom.xml" -pl mf-bench -am package -DskipTests -Dmaven.javadoc.skip=true >"$out/build.log" 2>&1 \
    || { tail -n 30 "$out/build.log" >&2; exit 1; }
fi
[[ -f "$jar" ]] || { echo "verdicts.sh: $jar is missing (run without --no-build)" >&2; exit 1; }
cp "$jar" "$out/new.jar"

# name;JMH include regex;JMH parameters
steps=(
  "select;SelectBenchmark\.(engine|handLoop|handLoopStoringCounting)\$;-p candidates=4,16,64 -p ceilings=all"
  "counting;CountingBenchmark;-p candidates=4,16"
  "servers;ServerSignalsBenchmark;-p variant=without,queueKv"
  "variants;SignalVariantsBenchmark\.select\$;"
  "ejection;EjectionBenchmark\.select;"
  "prefix;PrefixBenchmark\.select\$;"
  "session;SessionBenchmark;-p liveKeys=1000"
  "eligibility;EligibilityBenchmark;-p candidates=4,16"
  "inflight;(InflightBenchmark\.beginEnd|RecordBenchmark\.record.*)\$;"
  "refresh;RefreshBenchmark;"
  "parse;MetricsParseBenchmark\.reader\$;"
  "threads;ThreadsBenchmark;"
  "blocks;PromptBlocksBenchmark;"
)

load_now() { cut -d' ' -f1 /proc/loadavg; }
wait_quiet() {
  local waited=0
  while awk -v l="$(load_now)" 'BEGIN { exit !(l >= 1.5) }' && [[ $waited -lt $wait_s ]]; do
    sleep 10; waited=$((waited + 10))
  done
}

: >"$out/steps.tsv"
{
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ), nproc $(nproc), $(java -version 2>&1 | head -n 1)"
  [[ -n "$base" ]] && echo "base jar: $base"
} >"$out/context.txt"
for round in $(seq 1 "$rounds"); do
  for step in "${steps[@]}"; do
    IFS=';' read -r name include params <<<"$step"
    [[ -z "$only" || "$name" =~ $only ]] || continue
    labels=(new)
    [[ -n "$base" && ( -z "$base_steps" || "$name" =~ $base_steps ) ]] && labels+=(base)
    for label in "${labels[@]}"; do
      [[ $label == new ]] && run_jar="$out/new.jar" || run_jar="$base"
      wait_quiet
      load="$(load_now)"
      json="$label-$name-r$round.json"
      echo "verdicts.sh: round $round/$rounds, $name ($label), load $load, $(date -u +%H:%M:%S)" >&2
      # shellcheck disable=SC2086
      java -jar "$run_jar" "$include" $params -f "$forks" -wi 3 -w 1 -i 5 -r 1 -prof gc \
        -rf json -rff "$out/$json" >"$out/$label-$name-r$round.log" 2>&1 \
        || { echo "verdicts.sh: $name ($label) failed; see $out/$label-$name-r$round.log" >&2; exit 1; }
      printf '%s\t%s\t%s\t%s\n' "$label" "$round" "$load" "$json" >>"$out/steps.tsv"
    done
  done
done
echo "ended: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(load_now)" >>"$out/context.txt"

java -cp "$out/new.jar" io.multifactor.bench.verdict.VerdictReport "$out" >"$out/report.md"
cat "$out/context.txt" "$out/report.md"
echo "verdicts.sh: the report is in $out/report.md" >&2
