#!/bin/sh
# Slurm Prolog: `roceops slurm prolog` for this node. It calls no Slurm command; a failed RoCE check exits 1,
# and slurmd then drains the node ("Prolog error") and requeues the job. Any other outcome (healthy, not
# checkable, roceops itself misconfigured or missing) exits 0 and is logged to slurmd's log: a broken
# roceops must not drain the whole cluster.
# Settings: as roceops-healthcheck.sh ($ROCEOPS_SLURM_ENV, else roceops-slurm.env beside this script).
# slurm.conf: Prolog=/etc/slurm/roceops-prolog.sh
set -u
here=$(dirname -- "$0")
env_file=${ROCEOPS_SLURM_ENV:-$here/roceops-slurm.env}
if [ -r "$env_file" ]; then
    set -a
    # shellcheck source=/dev/null
    . "$env_file"
    set +a
fi
PATH=${ROCEOPS_PATH:-/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin}
export PATH
"${ROCEOPS:-roceops}" slurm prolog "$@"
status=$?
if [ "$status" -eq 1 ]; then
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "roceops prolog on ${SLURMD_NODENAME:-this node}: exit $status (not a failed check); job allowed" >&2
fi
exit 0
