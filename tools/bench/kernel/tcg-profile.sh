#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where QEMU's time goes while the guest runs one lookup cell of
# sl_bench.ko: a host-side profile of the emulator, one VM boot per index,
# to explain why the in-kernel lookup ratios under software emulation (TCG)
# differ from the native ones.
#
#   tools/bench/kernel/tcg-profile.sh [--items N] [--threads N]
#                                     [--seconds S] [--keyset K] [INDEX ...]
#
# K is one key set of keyset.h (default even).
# INDEX defaults to "skiplist maple rbtree-rw".  For each, the guest loads
# sl_bench.ko with that index alone and workloads=lookup; once the preload
# ("fill") is reported on the guest console, "perf record" samples the
# QEMU process for S seconds (default 6) while the lookups run.  The
# samples are split into the generated guest code, QEMU's software-TLB
# miss path (helper_*_mmu and the page-table walk and refill they call),
# and the rest, and turned into host CPU microseconds per lookup.
# Results in build/bench/tcg-profile.{md,json}.  Needs perf on the host,
# and TCG: under KVM there is no software TLB to see.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
items=1048576
threads=2
seconds=6
keyset=even
freq=2000

usage() {
	sed -n '9,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--items) items=${2:?}; shift 2 ;;
	--threads) threads=${2:?}; shift 2 ;;
	--seconds) seconds=${2:?}; shift 2 ;;
	--keyset) keyset=${2:?}; shift 2 ;;
	-h|--help) usage ;;
	-*) echo "tcg-profile: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
indexes=("$@")
[ ${#indexes[@]} -gt 0 ] || indexes=(skiplist maple rbtree-rw)
for n in "$items" "$threads" "$seconds"; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] ||
		{ echo "tcg-profile: '$n' is not a positive integer" >&2; exit 2; }
done
command -v perf >/dev/null ||
	{ echo "tcg-profile: perf not found: apt-get install linux-perf" >&2; exit 1; }
if [ "$(cat "$top/build/vm/kvm" 2>/dev/null)" = yes ]; then
	echo "tcg-profile: this machine runs the VM under KVM: nothing to profile" >&2
	exit 1
fi

out=$top/build/bench/tcg-profile
rm -rf "$out"
mkdir -p "$out"
make -C "$top" --no-print-directory modules SL_KEY_LOADS=0 >/dev/null

for idx in "${indexes[@]}"; do
	dir=$out/$idx
	mkdir -p "$dir"
	# The cell outlasts the recording by the wait for it to start and more.
	cell_ms=$(( (seconds + 10) * 1000 ))
	echo "tcg-profile: $idx: $items items, $threads kthreads, ${seconds} s of samples"
	"$top/tools/vm/vm-run" --kernel 6.1 --timeout 900 \
		--append "slub_debug=- clocksource=tsc tsc=reliable" --out "$dir" -- \
		SL_BENCH_ITEMS="$items" SL_BENCH_CHURN=0 tools/bench/kernel/guest-bench-kernel.sh "$dir" \
		indexes="$idx" workloads=lookup allocators=none threads="$threads" \
		keysets="$keyset" \
		cell_ms="$cell_ms" rounds=1 > "$dir/log" 2>&1 &
	vm=$!
	fill="result workload=fill impl=$idx items=$items "
	while ! grep -qF "$fill" "$dir/console.txt" 2>/dev/null; do
		kill -0 $vm 2>/dev/null ||
			{ echo "tcg-profile: the VM ended before the lookups began:" >&2;
			  tail -20 "$dir/log" >&2; exit 1; }
		sleep 1
	done
	sleep 2
	qemu=$(pgrep -n -x qemu-system-x86) ||
		{ echo "tcg-profile: no qemu-system-x86_64 process" >&2; exit 1; }
	perf record -q -F $freq -p "$qemu" -o "$dir/perf.data" -- sleep "$seconds" \
		>/dev/null 2>&1 ||
		{ echo "tcg-profile: perf record failed (perf_event_paranoid?)" >&2; exit 1; }
	if ! wait $vm; then
		echo "tcg-profile: the VM run failed:" >&2
		tail -20 "$dir/log" >&2
		exit 1
	fi
	perf report -i "$dir/perf.data" --sort dso,sym --stdio -n 2>/dev/null \
		> "$dir/report.txt"
done

/usr/bin/python3 - "$out" "$items" "$threads" "$seconds" "$freq" "${indexes[@]}" <<'EOF'
import json, os, re, sys

out, items, threads, seconds, freq = sys.argv[1:6]
indexes = sys.argv[6:]
seconds, freq = float(seconds), float(freq)
# QEMU's software-TLB miss path: the load/store slow paths, the x86 page
# walk and the refill of the TLB entry.
tlb = re.compile(r'^(helper_(le|be)_(ld|st)\w*_mmu|helper_ret_\w*_mmu|'
                 r'tlb_set_page\w*|x86_cpu_tlb_fill|probe_access\w*|'
                 r'get_pg_mode|mmu_translate|get_physical_address|'
                 r'victim_tlb_hit|address_space_translate_for_iotlb)$')
rows = []
for idx in indexes:
    d = os.path.join(out, idx)
    rate = None
    for line in open(os.path.join(d, 'results.txt')):
        f = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
        if f.get('workload') == 'lookup' and f.get('impl') == idx:
            rate = float(f['ops_per_sec'])
    counts = {'jit': 0, 'tlb': 0, 'qemu': 0, 'kernel': 0, 'other': 0}
    top = []
    for line in open(os.path.join(d, 'report.txt')):
        m = re.match(r'\s*[\d.]+%\s+(\d+)\s+(.+?)\s+\[(.)\]\s+(\S+)', line)
        if not m:
            continue
        n, dso, kind, sym = int(m[1]), m[2].strip(), m[3], m[4]
        if dso.startswith('[JIT]'):
            counts['jit'] += n
        elif dso.startswith('qemu-system') and tlb.match(sym):
            counts['tlb'] += n
            top.append((n, sym))
        elif dso.startswith('qemu-system'):
            counts['qemu'] += n
        elif kind == 'k':
            counts['kernel'] += n
        else:
            counts['other'] += n
    samples = sum(counts.values())
    share = {k: 100.0 * v / samples if samples else 0.0 for k, v in counts.items()}
    top = [(100.0 * n / samples, sym) for n, sym in top]
    host_us = samples / freq / (rate * seconds) * 1e6 if rate else None
    rows.append({'impl': idx, 'items': int(items), 'threads': int(threads),
                 'ops_per_sec': rate, 'host_us_per_lookup': host_us,
                 'share_pct': {k: round(v, 2) for k, v in share.items()},
                 'tlb_us_per_lookup': host_us * share['tlb'] / 100 if host_us else None,
                 'jit_us_per_lookup': host_us * share['jit'] / 100 if host_us else None,
                 'tlb_symbols': [{'symbol': s, 'pct': p} for p, s in sorted(top, reverse=True)[:6]]})

machine = {}
for line in open(os.path.join(out, indexes[0], 'results.txt')):
    if line.startswith('machine '):
        f = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
        machine = {'kernel': f.get('kernel'), 'vcpus': int(f.get('vcpus', 0))}
model = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
              if l.startswith('model name')), 'unknown CPU')
machine['host'] = f'{model}, {os.cpu_count()} CPUs, Linux {os.uname().release}, QEMU TCG'
json.dump({'machine': machine, 'items': int(items), 'threads': int(threads),
           'seconds': seconds, 'freq': freq, 'results': rows},
          open(out + '.json', 'w'), indent=1)
with open(out + '.md', 'w') as md:
    md.write('# QEMU host profile of lookups (tools/bench/kernel/tcg-profile.sh)\n\n'
             f"Guest {machine.get('kernel')} with {machine.get('vcpus')} vCPUs on "
             f"{machine['host']}.  "
             f'{items} items, {threads} kthreads, {seconds:g} s of perf samples at '
             f'{freq:g} Hz over every QEMU thread.  Host CPU microseconds per '
             'lookup, split into the generated guest code (JIT), QEMU\'s '
             'software-TLB miss path (slow-path loads, page walk, refill) and '
             'the rest of QEMU.\n\n')
    md.write('| index | lookups Mops/s | host us/lookup | in TLB miss path | in JIT code | TLB path % | JIT % |\n'
             '|---|---:|---:|---:|---:|---:|---:|\n')
    for r in rows:
        if r['host_us_per_lookup'] is None:
            md.write(f"| {r['impl']} | no result | | | | | |\n")
            continue
        md.write(f"| {r['impl']} | {r['ops_per_sec'] / 1e6:.3g} | "
                 f"{r['host_us_per_lookup']:.2f} | {r['tlb_us_per_lookup']:.2f} | "
                 f"{r['jit_us_per_lookup']:.2f} | {r['share_pct']['tlb']:.1f} | "
                 f"{r['share_pct']['jit']:.1f} |\n")
    md.write('\nTLB-path symbols (% of samples):\n\n')
    for r in rows:
        md.write(f"- {r['impl']}: " + ', '.join(
            f"{t['symbol']} {t['pct']:.1f}" for t in r['tlb_symbols']) + '\n')
print(open(out + '.md').read())
EOF
