#!/usr/bin/env bash
# mf-bench/proxy-vs-nginx.sh: what the gateway costs next to nginx proxying the same SSE streams, in one run.
#
# The same load (bin/mf load: Poisson arrivals, about 200 streams open at once, streams of 50 chunks from one fake
# model server of bin/mf backends, examples/overhead-*.yaml) goes first through nginx, then through `bin/mf serve`.
# nginx runs as it is compared in the project's figures: one worker process, `proxy_buffering off`, HTTP/1.1 with
# keep-alive connections to the upstream, no access log; its configuration is written by this script to a temporary
# directory. The gateway runs with one event loop (`--event-loops 1`, as nginx has one worker process; change it with
# --event-loops) and `--access-log off` (nginx logs nothing either), its other settings at their defaults.
#
# Prints, for each proxy: requests, errors, the proxy's CPU seconds during its load (user + system, from
# /proc/PID/stat, nginx's master and worker together), CPU milliseconds per request, p50/p99 TTFT as the load
# generator measured it, the CPU seconds the load generator and the fake server took in the same span ("others"), and
# how busy all three kept the machine's cores ("busy": a TTFT tail grows as this nears 100%, whoever spends it).
# Figures taken on a busy machine decide nothing: run it with nothing else running.
#
# Each proxy first carries an unmeasured warm-up load (--warmup seconds of the same arrivals): a gateway runs for hours,
# so what counts is its steady state, not the JIT compiling its first requests (nginx has no JIT; it gets the same
# warm-up, and the fake server and the load generator are warm for both).
#
# Usage: mf-bench/proxy-vs-nginx.sh [--duration SECONDS] [--rate STREAMS_PER_S] [--warmup SECONDS] [--event-loops N]
#   --duration  seconds of arrivals per proxy (default 20, the examples' own)
#   --rate      arrivals per second (default 180: about 200 streams open at once with streams of about 1.1 s)
#   --warmup    seconds of unmeasured arrivals through each proxy before its measured load (default 10; 0: none)
#   --event-loops  the gateway's event loops (default 1, as nginx's one worker)
# Skips with a message (exit 0) when nginx is not installed: `apt-get install -y nginx-light` (Debian, Ubuntu).
# Ports: the fake server 18201, nginx 18290, the gateway 18280 (all loopback).
set -euo pipefail

duration=20
rate=180
warmup=10
event_loops=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --event-loops) event_loops="$2"; shift 2 ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "proxy-vs-nginx: unknown option $1 (--duration S, --rate N, --warmup S, --event-loops N)" >&2; exit 2 ;;
  esac
done
[[ "$duration" =~ ^[0-9]+$ && "$duration" -gt 0 ]] || { echo "proxy-vs-nginx: --duration $duration: a whole number of seconds > 0" >&2; exit 2; }
[[ "$rate" =~ ^[0-9]+$ && "$rate" -gt 0 ]] || { echo "proxy-vs-nginx: --rate $rate: a whole number > 0" >&2; exit 2; }
[[ "$warmup" =~ ^[0-9]+$ ]] || { echo "proxy-vs-nginx: --warmup $warmup: a whole number of seconds >= 0" >&2; exit 2; }
[[ "$event_loops" =~ ^[0-9]+$ && "$event_loops" -gt 0 ]] || { echo "proxy-vs-nginx: --event-loops $event_loops: a whole number > 0" >&2; exit 2; }

nginx_bin="$(command -v nginx || true)"
if [[ -z "$nginx_bin" && -x /usr/sbin/nginx ]]; then nginx_bin=/usr/sbin/nginx; fi
if [[ -z "$nginx_bin" ]]; then
  echo "proxy-vs-nginx: skipped: nginx is not installed (apt-get install -y nginx-light)"
  exit 0
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mf="$root/bin/mf"
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

backend_port=18201
nginx_port=18290
gateway_port=18280

wait_port() { # PORT WHAT
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "proxy-vs-nginx: $2 did not listen on 127.0.0.1:$1 within 60 s" >&2
  exit 1
}

cpu_ticks() { # PID...: user + system clock ticks of these processes
  local total=0 pid stat
  for pid in "$@"; do
    stat="$(cat "/proc/$pid/stat")"
    stat="${stat##*) }"           # the fields after "(comm) ": field 3 is the first
    read -r -a f <<<"$stat"
    total=$((total + f[11] + f[12])) # utime (14) and stime (15)
  done
  echo "$total"
}

# The two load profiles, with this run's duration and rate.
profile() { # SOURCE DEST
  sed -e "s/^duration_s: .*/duration_s: $duration/" -e "s/^arrivals_per_s: .*/arrivals_per_s: $rate/" \
    -e "s/^max_requests: .*/max_requests: 1000000/" "$root/examples/$1" >"$tmp/$2"
}
profile overhead-direct.yaml direct.yaml
profile overhead-load.yaml gateway.yaml
sed -e "s/^duration_s: .*/duration_s: $warmup/" "$tmp/direct.yaml" >"$tmp/direct-warmup.yaml"
sed -e "s/^duration_s: .*/duration_s: $warmup/" "$tmp/gateway.yaml" >"$tmp/gateway-warmup.yaml"

cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $tmp/client_body;
  proxy_temp_path $tmp/proxy;
  fastcgi_temp_path $tmp/fastcgi;
  uwsgi_temp_path $tmp/uwsgi;
  scgi_temp_path $tmp/scgi;
  upstream fake_server {
    server 127.0.0.1:$backend_port;
    keepalive 512;
  }
  server {
    listen 127.0.0.1:$nginx_port;
    location / {
      proxy_pass http://fake_server;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
EOF

# Build the tool first if it needs it (bin/mf builds on first use), so the servers below start at once.
"$mf" --version >/dev/null
echo "proxy-vs-nginx: $duration s of $rate streams/s through each proxy, after $warmup s of warm-up, the gateway on $event_loops event loop(s) ($(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg))"
"$mf" backends --profile "$root/examples/overhead-backends.yaml" >"$tmp/backends.out" 2>&1 &
backends_pid=$!
pids+=("$backends_pid")
"$nginx_bin" -p "$tmp" -c "$tmp/nginx.conf" >"$tmp/nginx.out" 2>&1 &
nginx_master=$!
pids+=("$nginx_master")
"$mf" serve --config "$root/examples/overhead-gateway.yaml" --port "$gateway_port" --access-log off --event-loops "$event_loops" \
  >"$tmp/serve.out" 2>&1 &
gateway_pid=$!
pids+=("$gateway_pid")
wait_port "$backend_port" "bin/mf backends"
wait_port "$nginx_port" "nginx"
wait_port "$gateway_port" "bin/mf serve"
nginx_pids=("$nginx_master" $(pgrep -P "$nginx_master" || true))

# One measured load: LABEL URL PROFILE PID...
results=()
measure() {
  local label="$1" url="$2" load="$3"
  shift 3
  local before after csv="$tmp/$label.csv"
  if [[ "$warmup" -gt 0 ]]; then
    "$mf" load --target "$url" --profile "${load%.yaml}-warmup.yaml" >"$tmp/$label-warmup.out" 2>&1 || {
      echo "proxy-vs-nginx: the warm-up load through $label failed:" >&2
      tail -n 20 "$tmp/$label-warmup.out" >&2
      exit 1
    }
  fi
  local backends_before backends_after started ended load_cpu TIMEFORMAT='%U %S'
  before="$(cpu_ticks "$@")"
  backends_before="$(cpu_ticks "$backends_pid")"
  started="$(date +%s.%N)"
  { time "$mf" load --target "$url" --profile "$load" --csv "$csv" >"$tmp/$label.out" 2>&1; } 2>"$tmp/$label.time" || {
    echo "proxy-vs-nginx: bin/mf load through $label failed:" >&2
    tail -n 20 "$tmp/$label.out" >&2
    exit 1
  }
  ended="$(date +%s.%N)"
  after="$(cpu_ticks "$@")"
  backends_after="$(cpu_ticks "$backends_pid")"
  # The load generator's and the fake server's CPU in the same span: with the proxy's, how busy the machine was.
  load_cpu="$(awk '{ print $1 + $2 }' "$tmp/$label.time")"
  results+=("$(awk -F, -v label="$label" -v ticks="$((after - before))" -v hz="$(getconf CLK_TCK)" \
    -v others="$(awk -v l="$load_cpu" -v b="$((backends_after - backends_before))" -v hz="$(getconf CLK_TCK)" \
      'BEGIN { printf "%.2f", l + b / hz }')" \
    -v busy="$(awk -v s="$started" -v e="$ended" -v c="$(nproc)" -v l="$load_cpu" -v b="$((backends_after - backends_before))" \
      -v p="$((after - before))" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", 100 * (l + (b + p) / hz) / ((e - s) * c) }')" '
    NR == 1 { next }
    { n++ }
    $3 != 200 || $8 != "true" { errors++ }
    $5 != "" { ttft[++t] = $5 + 0 }
    END {
      # percentiles of the TTFTs: a heap sort by hand (mawk has no asort)
      if (t == 0) { printf "%-8s %9d %7d %9.2f %12.3f %10s %10s %9s %5s%%\n", label, n, errors, ticks / hz, 0, "-", "-", others, busy; exit }
      m = t; for (i = 1; i <= m; i++) a[i] = ttft[i]
      # heap sort, ascending
      for (i = int(m / 2); i >= 1; i--) sift(a, i, m)
      for (e = m; e > 1; e--) { x = a[1]; a[1] = a[e]; a[e] = x; sift(a, 1, e - 1) }
      p50 = a[int(0.50 * (m - 1)) + 1]; p99 = a[int(0.99 * (m - 1)) + 1]
      printf "%-8s %9d %7d %9.2f %12.3f %8.1f ms %7.1f ms %9s %5s%%\n", label, n, errors + 0, ticks / hz,
        n ? 1000 * ticks / hz / n : 0, p50, p99, others, busy
    }
    function sift(a, i, m,   c, x) {
      while ((c = 2 * i) <= m) {
        if (c < m && a[c + 1] > a[c]) c++
        if (a[i] >= a[c]) return
        x = a[i]; a[i] = a[c]; a[c] = x; i = c
      }
    }' "$csv")")
}

measure nginx "http://127.0.0.1:$nginx_port" "$tmp/direct.yaml" "${nginx_pids[@]}"
measure gateway "http://127.0.0.1:$gateway_port" "$tmp/gateway.yaml" "$gateway_pid"

printf "%-8s %9s %7s %9s %12s %11s %10s %9s %6s\n" proxy requests errors "CPU s" "CPU ms/req" "TTFT p50" "TTFT p99" \
  "others s" busy
for line in "${results[@]}"; do echo "$line"; done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (figures taken above 1.5 are busy and decide nothing)"
