#!/usr/bin/env bash
# A sweep run as a real Slurm job array on this machine (docs/SHARDING.md, "Slurm"): a
# controller and a node on localhost, started here from Debian's slurm-wlm with a
# configuration of their own (ports 16817/16818, state in a temporary folder, munge on a
# socket of its own); three array tasks each run `opspec run --shard auto`, which reads its
# shard from SLURM_ARRAY_TASK_*; `opspec merge` joins their results, and the merged run is
# compared check for check, chunk for chunk, with the same sweep run unsharded. Everything it
# starts is stopped at the end.
#
#   scripts/slurm-check.sh [OPSPEC_BINARY]     (default: target/release/opspec)
#
# Needs root (the daemons) and slurm-wlm (.ci/run installs it); without either it says so
# and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/opspec}")

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    echo "slurm-check: skipped: no slurmctld or munged (Debian's slurm-wlm; .ci/run installs it)"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "slurm-check: skipped: starting Slurm's daemons needs root"
    exit 0
fi

work=$(mktemp -d /tmp/opspec-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# munge, which Slurm authenticates with, on a socket of its own, as its own user.
mkdir -p "$work/munge"
chown munge:munge "$work/munge"
runuser -u munge -- munged --foreground --socket="$work/munge/socket" \
    --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" >"$work/munge/out" 2>&1 &
pids+=($!)

host=$(hostname)
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=opspec
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=opspec Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
for _ in $(seq 50); do [ -S "$work/munge/socket" ] && break; sleep 0.2; done
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && break
    sleep 0.5
done
if ! sinfo -h -o %t 2>/dev/null | grep -qx idle; then
    echo "slurm-check: the node did not come up:" >&2
    tail -n 20 "$work/slurmctld.log" "$work/slurmd.log" >&2 || true
    exit 1
fi

# Six chunks of two 16-bit pair sweeps: twelve units over three tasks.
sweep=(run --exhaustive --suite array-api --filter 'array-api:cpu:{add,multiply}:f16:*' --chunks 0..6 --no-tables)
started=$SECONDS
sbatch --array=1-3 --wait --quiet --output="$work/task-%a.log" \
    --wrap "$bin ${sweep[*]@Q} --shard auto --out $work/shard-\$SLURM_ARRAY_TASK_ID" ||
    { echo "slurm-check: an array task failed:" >&2; cat "$work"/task-*.log >&2; exit 1; }
array=$((SECONDS - started))
grep -h "^report:" "$work"/task-*.log >/dev/null || { cat "$work"/task-*.log >&2; exit 1; }
"$bin" merge "$work"/shard-*/results.jsonl --out "$work/merged" >"$work/merge.log" 2>&1
"$bin" "${sweep[@]}" --out "$work/whole" >"$work/whole.log" 2>&1

python3 - "$work/whole/results.jsonl" "$work/merged/results.jsonl" "$work" <<'EOF'
import glob, json, sys

def checks(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r["record"] == "check":
            chunks = [(c["chunk"], c["cases"], c["failed"]) for c in r.get("chunks", [])]
            out[r["id"]] = (r["status"], r["inputs"], r["failed_inputs"], chunks)
    return out

whole, merged = checks(sys.argv[1]), checks(sys.argv[2])
if whole != merged:
    for id in sorted(set(whole) | set(merged)):
        if whole.get(id) != merged.get(id):
            print(f"slurm-check: {id}: unsharded {whole.get(id)}, merged {merged.get(id)}", file=sys.stderr)
    sys.exit(1)
shards = []
for path in sorted(glob.glob(sys.argv[3] + "/shard-*/results.jsonl")):
    info = json.loads(open(path).readline())["info"]
    chunks = sum(len(r.get("chunks", [])) for r in map(json.loads, open(path)) if r["record"] == "check")
    shards.append(f"{info['shard']['shard']} ({chunks} chunks)")
units = sum(len(c[3]) for c in whole.values())
print(f"slurm-check: shards {', '.join(shards)}; merged = unsharded: {len(whole)} checks, {units} chunks")
EOF
echo "slurm-check: the array took ${array} s"
